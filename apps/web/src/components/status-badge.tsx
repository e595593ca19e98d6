import { Badge, type BadgeProps } from '@mantine/core';
import { statusColor } from '../config/status';
import { statusLabel } from '../lib/format';

export function StatusBadge({ status, ...rest }: { status: string | null | undefined } & BadgeProps) {
  return (
    <Badge
      color={statusColor(status)}
      variant="light"
      styles={{ root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } }}
      {...rest}
    >
      {statusLabel(status)}
    </Badge>
  );
}
