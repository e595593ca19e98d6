import { Center, Loader } from '@mantine/core';

export function PageLoader({ h = '60vh' }: { h?: string | number }) {
  return (
    <Center h={h} role="status" aria-label="Loading">
      <Loader type="dots" />
    </Center>
  );
}
