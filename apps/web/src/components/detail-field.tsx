import { Text } from '@mantine/core';

/** A labelled value in a details panel (a tracking's, a shipment's); a dash when there is none. */
export function DetailField({ label, value }: { label: string; value: string | null | undefined }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" style={{ wordBreak: 'break-word' }}>
        {value || '—'}
      </Text>
    </div>
  );
}
