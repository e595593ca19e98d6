import type { MantineColor } from '@mantine/core';
import type { TrackingStatus } from '@shiptrail/contract';

// Colours of the dashboard status order (product rules §9), reused by badges and the doughnut.
export const STATUS_COLORS: Record<TrackingStatus, MantineColor> = {
  Delivered: 'green',
  Exception: 'red',
  Expired: 'gray',
  FailAttempt: 'orange',
  InTransit: 'blue',
  InfoReceived: 'cyan',
  OutForDelivery: 'violet',
  Pending: 'yellow',
};

export const statusColor = (s: string | null | undefined): MantineColor => STATUS_COLORS[(s ?? 'Pending') as TrackingStatus] ?? 'gray';
