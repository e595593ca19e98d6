import { Badge, Group, Text, Timeline } from '@mantine/core';
import type { Checkpoint } from '@shiptrail/contract';
import { statusColor } from '../config/status';
import { formatDateTime, statusLabel } from '../lib/format';

/** A carrier's checkpoint, or a shipment's, which may name who signed for the delivery. */
export type TimelineCheckpoint = Omit<Checkpoint, 'status'> & { status: string; signedBy?: string | null };

/** An action recorded on the phone and not sent yet (the courier's outbox): shown above the checkpoints, marked. */
export interface PendingCheckpoint {
  key: string;
  status: string;
  location?: string | null;
  time: string;
}

/**
 * Checkpoints newest first: status, location, message, time (product rules §2). `pending` come first, newest
 * first as given, each marked "Waiting to send"; `label` names the list and `empty` says why it is empty.
 */
export function CheckpointTimeline({
  checkpoints,
  pending = [],
  label = 'Checkpoints',
  empty = 'No checkpoints yet. We will add them as soon as the carrier reports one.',
}: {
  checkpoints: TimelineCheckpoint[] | null | undefined;
  pending?: PendingCheckpoint[];
  label?: string;
  empty?: string;
}) {
  const list = [...(checkpoints ?? [])].sort((a, b) => String(b.time ?? '').localeCompare(String(a.time ?? '')));
  if (!list.length && !pending.length)
    return (
      <Text c="dimmed" size="sm">
        {empty}
      </Text>
    );
  return (
    <Timeline active={0} bulletSize={14} lineWidth={2} aria-label={label}>
      {pending.map((p) => (
        <Timeline.Item
          key={p.key}
          color={statusColor(p.status)}
          title={
            <Group gap={6}>
              <Text fw={600} size="sm">
                {statusLabel(p.status)}
              </Text>
              <Badge size="xs" variant="light" color="blue">
                Waiting to send
              </Badge>
            </Group>
          }
        >
          <Text size="xs" c="dimmed">
            {[p.location, formatDateTime(p.time)].filter(Boolean).join(' · ')}
          </Text>
        </Timeline.Item>
      ))}
      {list.map((c, i) => (
        <Timeline.Item
          key={`${c.time}-${i}`}
          color={statusColor(c.status)}
          title={
            <Text fw={600} size="sm">
              {statusLabel(c.status)}
            </Text>
          }
        >
          {/* The server's own words for a signed delivery ("Delivered, signed by X") would repeat the title and the
              signer's line, so only a message the courier wrote is shown beside them. */}
          {c.message && !(c.signedBy && c.message === `Delivered, signed by ${c.signedBy}`) && <Text size="sm">{c.message}</Text>}
          {c.signedBy && (
            <Text size="sm" data-testid="signed-by">
              Signed by {c.signedBy}
            </Text>
          )}
          <Text size="xs" c="dimmed">
            {[c.location, formatDateTime(c.time)].filter(Boolean).join(' · ')}
          </Text>
        </Timeline.Item>
      ))}
    </Timeline>
  );
}
