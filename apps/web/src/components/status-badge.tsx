import { Badge, type BadgeProps } from '@mantine/core';
import { statusColor } from '../config/status';
import { statusLabel } from '../lib/format';

export function StatusBadge({ status, ...rest }: { status: string | null | undefined } & BadgeProps) {
  return (
    <Badge color={statusColor(status)} variant="light" {...rest}>
      {statusLabel(status)}
    </Badge>
  );
}
