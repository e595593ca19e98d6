import { Button, Divider, Group, Modal, Stack, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { ShipmentView } from '@shiptrail/contract';
import { IconPhone } from '@tabler/icons-react';
import { StatusBadge } from '../../../components/status-badge';
import { CheckpointTimeline } from '../../../components/checkpoint-timeline';
import type { OutboxItem } from '../api/outbox';
import { DetailField } from '../../../components/detail-field';

/**
 * One stop of the courier's day, in full (decision 138): the recipient, the address, the note, the parcels and the
 * history, with what waits on the phone on top. Everything comes from the day's answer, which the phone keeps
 * (decision 120), and this component's code is fetched when the day loads: a stop opens without signal even if it
 * was never opened with one.
 */
export function StopDetails({
  stop,
  position,
  waiting,
  onClose,
  onUpdate,
}: {
  stop: ShipmentView;
  /** Its number in the day's order; undefined for a stop done on the phone. */
  position?: number;
  /** This stop's actions waiting to be sent, oldest first. */
  waiting: OutboxItem[];
  onClose: () => void;
  onUpdate: () => void;
}) {
  const phone = useMediaQuery('(max-width: 48em)', false, { getInitialValueInEffect: false });
  const d = stop.destination;
  const address = [d.address1, d.address2, d.city, [d.state, d.zip].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  const shown = waiting.at(-1)?.status ?? stop.status;
  return (
    <Modal opened onClose={onClose} fullScreen={phone} title={position ? `Stop ${position}` : 'Stop'} centered>
      <Stack gap="md" data-testid="stop-details" data-tid={stop.tid}>
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <div style={{ minWidth: 0 }}>
            <Text fw={800} size="lg" style={{ overflowWrap: 'anywhere' }}>
              {d.name || stop.tid}
            </Text>
            <Text size="xs" c="dimmed" ff="monospace">
              {stop.tid}
            </Text>
          </div>
          <StatusBadge status={shown} />
        </Group>
        <DetailField label="Address">{address || '—'}</DetailField>
        {stop.message && <DetailField label="Note">{stop.message}</DetailField>}
        {stop.windowFrom && stop.windowTo && (
          <DetailField label="Delivery window">
            {stop.windowFrom}–{stop.windowTo}
          </DetailField>
        )}
        {stop.orderId && <DetailField label="Order">{stop.orderId}</DetailField>}
        <DetailField label="Parcels">
          {stop.parcels.length === 0
            ? '—'
            : stop.parcels
                .map(
                  (p) =>
                    `${p.quantity > 1 ? `${p.quantity} × ` : ''}${p.name} (${p.length} × ${p.width} × ${p.height} ${p.distanceUnit}, ${p.weight} ${p.weightUnit})`,
                )
                .join('; ')}
        </DetailField>
        <Group gap="xs" grow>
          <Button size="md" onClick={onUpdate} aria-label={`Update ${stop.tid}`}>
            Update
          </Button>
          {d.phone && (
            <Button size="md" component="a" href={`tel:${d.phone}`} variant="default" leftSection={<IconPhone size={16} />}>
              Call
            </Button>
          )}
        </Group>
        <Divider label="History" labelPosition="left" />
        <CheckpointTimeline
          checkpoints={stop.checkpoints}
          pending={[...waiting].reverse().map((w) => ({ key: w.key, status: w.status, location: w.body.location, time: w.occurredAt }))}
          label="History of this stop"
          empty="Nothing recorded yet."
        />
      </Stack>
    </Modal>
  );
}
