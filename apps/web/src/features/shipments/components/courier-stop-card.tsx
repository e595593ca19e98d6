import { Button, Card, Group, Stack, Text, ThemeIcon, UnstyledButton } from '@mantine/core';
import type { CourierDay, ShipmentStatus, ShipmentView } from '@shiptrail/contract';
import { IconCheck, IconChevronRight, IconPhone, IconRoute } from '@tabler/icons-react';
import { StatusBadge } from '../../../components/status-badge';

/** A stop's place in the day's plan: when the courier gets there, and the window the customer was told. */
type PlannedStop = CourierDay['planned'][number];

const addressLine = (s: ShipmentView) =>
  [s.destination.address1, s.destination.address2, s.destination.city, [s.destination.state, s.destination.zip].filter(Boolean).join(' ')]
    .filter(Boolean)
    .join(', ');

function mapsHref(s: ShipmentView) {
  const d = s.destination;
  const where = d.lat != null && d.long != null ? `${d.lat},${d.long}` : addressLine(s);
  return `https://www.google.com/maps/dir/?api=1&destination=${encodeURIComponent(where)}`;
}

const hhmm = (iso: string) => new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(new Date(iso));

/** The stop's number on the day, or a tick for one delivered on this phone and not sent yet. */
function StopMark({ n }: { n: number | undefined }) {
  return n ? (
    <ThemeIcon radius="xl" size={32} variant="filled" aria-label={`Stop ${n}`}>
      <Text fw={800} size="sm" c="white">
        {n}
      </Text>
    </ThemeIcon>
  ) : (
    <ThemeIcon radius="xl" size={32} variant="light" color="green" aria-label="Delivered on this phone">
      <IconCheck size={18} />
    </ThemeIcon>
  );
}

/** Who and where, with the planned time: a tap opens the stop's details. */
function StopSummary({ stop: s, planned, onOpen }: { stop: ShipmentView; planned: PlannedStop | undefined; onOpen: () => void }) {
  return (
    <UnstyledButton onClick={onOpen} aria-label={`Open stop ${s.tid}`} style={{ minWidth: 0 }}>
      {planned && (
        <Text size="sm" fw={700} c="blue.8" data-testid="stop-time">
          {hhmm(planned.eta)}{' '}
          <Text span size="xs" c="dimmed" fw={500}>
            (customer told {hhmm(planned.windowFrom)}–{hhmm(planned.windowTo)})
          </Text>
        </Text>
      )}
      <Text fw={700} style={{ overflowWrap: 'anywhere' }}>
        {s.destination.name || s.tid}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {addressLine(s)}
      </Text>
      {s.message && (
        <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {s.message}
        </Text>
      )}
      <Group gap={2} wrap="nowrap" mt={2}>
        <Text size="xs" c="dimmed" ff="monospace">
          {s.tid}
        </Text>
        <IconChevronRight size={14} color="var(--mantine-color-dimmed)" aria-hidden />
      </Group>
    </UnstyledButton>
  );
}

/** One tap from the stop to its checkpoint, a call or directions. */
function StopActions({ stop: s, n, onUpdate }: { stop: ShipmentView; n: number | undefined; onUpdate: () => void }) {
  return (
    <Group gap="xs" mt="sm" grow>
      <Button onClick={onUpdate} aria-label={`Add checkpoint to ${s.tid}`}>
        Update
      </Button>
      {s.destination.phone && (
        <Button
          component="a"
          href={`tel:${s.destination.phone}`}
          variant="default"
          leftSection={<IconPhone size={16} />}
          aria-label={`Call ${s.destination.name || 'the recipient'}`}
        >
          Call
        </Button>
      )}
      <Button
        component="a"
        href={mapsHref(s)}
        target="_blank"
        rel="noreferrer"
        variant="default"
        leftSection={<IconRoute size={16} />}
        aria-label={n ? `Directions to stop ${n}` : `Directions to ${s.tid}`}
      >
        Go
      </Button>
    </Group>
  );
}

/**
 * One of the courier's stops for today: its number (none once delivered on this phone), the planned time, who and
 * where, its status (or the one waiting to be sent, decision 120), and its buttons.
 */
export function CourierStopCard({
  stop: s,
  n,
  planned,
  pendingStatus,
  onOpen,
  onUpdate,
}: {
  stop: ShipmentView;
  n: number | undefined;
  planned: PlannedStop | undefined;
  pendingStatus: ShipmentStatus | undefined;
  onOpen: () => void;
  onUpdate: () => void;
}) {
  return (
    <Card component="li" p="md" opacity={n ? 1 : 0.75} data-tid={s.tid} data-status={s.status} data-pending={pendingStatus}>
      <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
        <Group gap="sm" wrap="nowrap" align="flex-start" style={{ minWidth: 0 }}>
          <StopMark n={n} />
          <StopSummary stop={s} planned={planned} onOpen={onOpen} />
        </Group>
        <Stack gap={4} align="flex-end">
          <StatusBadge status={pendingStatus ?? s.status} />
          {pendingStatus !== undefined && (
            <Text size="xs" c="blue" fw={700} ta="right" data-testid="stop-waiting">
              Waiting to send
            </Text>
          )}
        </Stack>
      </Group>
      <StopActions stop={s} n={n} onUpdate={onUpdate} />
    </Card>
  );
}
