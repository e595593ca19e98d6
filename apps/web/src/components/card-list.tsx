import { Box, Stack } from '@mantine/core';
import type { ReactNode } from 'react';

/** A list shown as cards on a phone, in place of a table (useCardLayout): a plain list, edge to edge. */
export function CardList({ label, testId, children }: { label?: string; testId: string; children: ReactNode }) {
  return (
    <Stack component="ul" gap={0} m={0} p={0} aria-label={label} data-testid={testId} style={{ listStyle: 'none' }}>
      {children}
    </Stack>
  );
}

/**
 * One card of a CardList, ruled off from its neighbours by a line at its `rule` edge; `data-*` attributes name the row
 * for tests (data-email, data-tid).
 */
export function CardItem({
  rule,
  children,
  ...data
}: { rule: 'top' | 'bottom'; children: ReactNode } & { [attribute: `data-${string}`]: string }) {
  const line = '1px solid var(--mantine-color-default-border)';
  return (
    <Box component="li" px="md" py="sm" {...data} style={rule === 'top' ? { borderTop: line } : { borderBottom: line }}>
      {children}
    </Box>
  );
}
