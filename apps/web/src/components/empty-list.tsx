import { Center, Stack, Text, ThemeIcon } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * What a list shows when it has no rows (trackings, shipments, couriers): its icon in a circle, a title, a line that
 * says why or what to do, and the action, if any, below.
 */
export function EmptyList({
  icon,
  title,
  text,
  textWidth = 380,
  children,
}: {
  icon: ReactNode;
  title: string;
  text: string;
  textWidth?: number;
  children?: ReactNode;
}) {
  return (
    <Center py={64} px="md">
      <Stack align="center" gap="xs" ta="center">
        <ThemeIcon size={56} radius="xl" variant="light">
          {icon}
        </ThemeIcon>
        <Text fw={600}>{title}</Text>
        <Text size="sm" c="dimmed" maw={textWidth}>
          {text}
        </Text>
        {children}
      </Stack>
    </Center>
  );
}
