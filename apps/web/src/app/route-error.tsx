import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { useRouteError } from 'react-router';

export function RouteError() {
  const error = useRouteError() as Error | undefined;
  // A new deployment removes old chunks: a reload fetches the current ones.
  const chunk = error?.message?.includes('dynamically imported module') || error?.message?.includes('Importing a module');
  return (
    <Center mih="80vh" p="xl">
      <Stack align="center" gap="sm" maw={460} ta="center">
        <Title order={2}>{chunk ? 'A new version is available' : 'Something went wrong'}</Title>
        <Text c="dimmed">
          {chunk
            ? 'Reload the page to get the latest version of Shiptrail.'
            : 'An unexpected error stopped this page. Reloading usually helps.'}
        </Text>
        <Button onClick={() => window.location.reload()}>Reload</Button>
      </Stack>
    </Center>
  );
}
