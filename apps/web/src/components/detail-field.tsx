import type { ReactNode } from 'react';
import { Text } from '@mantine/core';

/**
 * A labelled value in a details panel (a tracking's, a shipment's, a courier's stop): `value`, else `children`, else a
 * dash.
 */
export function DetailField({ label, value, children }: { label: string; value?: string | null; children?: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {value || children || '—'}
      </Text>
    </div>
  );
}
