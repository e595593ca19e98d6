import {
  Alert,
  Anchor,
  Button,
  Card,
  Center,
  Group,
  Loader,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  ThemeIcon,
  UnstyledButton,
} from '@mantine/core';
import type { ShipmentView } from '@shiptrail/contract';
import { IconBarcode, IconCheck, IconChevronRight, IconMapPin, IconPackage, IconPhone, IconRoute, IconX } from '@tabler/icons-react';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { PageHeader } from '../../../components/page-header';
import { StatusBadge } from '../../../components/status-badge';
import { useUserInfo } from '../../../lib/user-info';
import { useCourierDay } from '../api/get-courier-day';
import { useOutbox } from '../api/outbox';
import { useOnline } from '../../../lib/connection';
import { countsWithQueue, dayOrder } from '../api/day-with-queue';
import { awaitingPickup } from '../api/pickup';
import { OutboxPanel } from '../components/outbox-panel';

const loadShareLocation = () => import('../components/share-location');
const loadCheckpointModal = () => import('../components/checkpoint-modal');
const ShareLocation = lazy(() => loadShareLocation().then((m) => ({ default: m.ShareLocation })));
const CheckpointModal = lazy(() => loadCheckpointModal().then((m) => ({ default: m.CheckpointModal })));
// A stop's details and the pickup confirmation: fetched with the day, so they open without signal (decision 138).
const loadStopDetails = () => import('../components/stop-details');
const loadConfirmPickup = () => import('../components/confirm-pickup');
const StopDetails = lazy(() => loadStopDetails().then((m) => ({ default: m.StopDetails })));
const ConfirmPickup = lazy(() => loadConfirmPickup().then((m) => ({ default: m.ConfirmPickup })));
// The scanner and its barcode reader: fetched a moment after the day is on screen, so they work without signal
// (decision 150, in place of 130's "when it is opened").
const loadScanLabel = () => import('../components/scan-label');
const ScanLabel = lazy(() => loadScanLabel().then((m) => ({ default: m.ScanLabel })));
/** How long after the home opens the scanner's reader (about 1 MB) is fetched: the day's own requests go first. */
const SCANNER_PREFETCH_MS = 2000;

/** Said on the courier's home when a courier opened one of the owner's pages (the layout sends them here). */
export const OWNER_ONLY_SENTENCE =
  "That page belongs to your company's owner, so we brought you to your stops: as a courier you have your stops, your shipments and your account.";

const addressLine = (s: ShipmentView) =>
  [s.destination.address1, s.destination.address2, s.destination.city, [s.destination.state, s.destination.zip].filter(Boolean).join(' ')]
    .filter(Boolean)
    .join(', ');

function mapsHref(s: ShipmentView) {
  const d = s.destination;
  const where = d.lat != null && d.long != null ? `${d.lat},${d.long}` : addressLine(s);
  return `https://www.google.com/maps/dir/?api=1&destination=${encodeURIComponent(where)}`;
}

function Count({
  label,
  value,
  color,
  testId,
  icon,
}: {
  label: string;
  value: number | undefined;
  color: string;
  testId: string;
  icon: React.ReactNode;
}) {
  return (
    <Paper p="sm" ta="center">
      <Group gap={6} justify="center" wrap="nowrap">
        <ThemeIcon variant="light" color={color} size="sm" radius="xl">
          {icon}
        </ThemeIcon>
        <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
          {label}
        </Text>
      </Group>
      <Text fz={28} fw={800} lh={1.2} data-testid={testId}>
        {value ?? '–'}
      </Text>
    </Paper>
  );
}

const hhmm = (iso: string) => new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(new Date(iso));

/**
 * A courier's home: today's stops in the order of the day's plan with their planned times (decision 118), or
 * in the order they were handed out (the open shipments assigned to them),
 * what they delivered and failed today, and one tap from each stop to its checkpoint, a call or directions.
 */
export default function CourierHomeRoute() {
  const { data: info } = useUserInfo();
  const { state } = useLocation() as { state: { ownerOnly?: string } | null };
  const day = useCourierDay(!!info);
  const [checkpointFor, setCheckpointFor] = useState<ShipmentView | null>(null);
  const [scanning, setScanning] = useState(false);
  const [detailsFor, setDetailsFor] = useState<{ stop: ShipmentView; position?: number } | null>(null);
  const [pickupFor, setPickupFor] = useState<ShipmentView | null>(null);
  const stops = day.data?.stops ?? [];
  const planned = new Map((day.data?.planned ?? []).map((p) => [p.tid, p]));
  const first = info?.profile.firstName;
  const online = useOnline();
  const { waiting, refused } = useOutbox(info?.profile.uid);
  // The last action waiting for each stop: the stop shows it until the server has it (decision 120).
  const pending = new Map(waiting.map((i) => [i.tid, i] as const));
  const counts = day.data && countsWithQueue(day.data, waiting);
  // The stops still to do first, numbered; those delivered on this phone and not yet sent after them (decision 138).
  const { todo, doneHere } = dayOrder({ stops }, waiting);
  const ordered = [...todo.map((s, i) => [s, i + 1] as const), ...doneHere.map((s) => [s, undefined] as const)];
  // The checkpoint form's code is fetched now, while there is signal: the service worker keeps it for later.
  useEffect(() => {
    void loadCheckpointModal();
    void loadShareLocation();
    void loadStopDetails();
    void loadConfirmPickup();
    // Not on a phone that asks to save data: there the scanner is fetched when it is opened.
    if ((navigator as { connection?: { saveData?: boolean } }).connection?.saveData) return;
    const later = setTimeout(
      () =>
        void loadScanLabel()
          .then((m) => m.prefetchReader())
          .catch(() => undefined),
      SCANNER_PREFETCH_MS,
    );
    return () => clearTimeout(later);
  }, []);
  return (
    <>
      {state?.ownerOnly && (
        <Alert color="blue" mb="md" role="alert" data-testid="owner-only-notice" title="Not a courier's page">
          {OWNER_ONLY_SENTENCE}
        </Alert>
      )}
      <PageHeader
        title={first ? `Today, ${first}` : 'Today'}
        description={new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long' }).format(new Date())}
        actions={
          <Group gap="xs">
            <Button onClick={() => setScanning(true)} leftSection={<IconBarcode size={16} />}>
              Scan a label
            </Button>
            <Button component={Link} to="/account/shipments" variant="default" leftSection={<IconPackage size={16} />}>
              All my shipments
            </Button>
          </Group>
        }
      />
      <OutboxPanel online={online} waiting={waiting} refused={refused} savedAt={day.data?.savedAt} />
      <SimpleGrid cols={3} spacing="sm" mb="md" aria-label="Today's counts">
        <Count label="To do" value={counts?.left} color="blue" testId="day-left" icon={<IconMapPin size={14} />} />
        <Count label="Delivered" value={counts?.done} color="green" testId="day-done" icon={<IconCheck size={14} />} />
        <Count label="Failed" value={counts?.failed} color="orange" testId="day-failed" icon={<IconX size={14} />} />
      </SimpleGrid>
      <Suspense fallback={null}>
        <ShareLocation />
      </Suspense>
      {day.isLoading ? (
        <Center py={48}>
          <Stack align="center" gap="xs" role="status" aria-label="Loading your stops">
            <Loader />
            <Text size="sm" c="dimmed">
              Loading your stops…
            </Text>
          </Stack>
        </Center>
      ) : day.isError && !day.data ? (
        <Alert color="red" data-testid="day-error" title="Could not load your stops">
          {day.error.message}{' '}
          <Anchor component="button" onClick={() => day.refetch()}>
            Try again
          </Anchor>
        </Alert>
      ) : stops.length === 0 ? (
        <Paper p="xl" ta="center" data-testid="no-stops">
          <Text fw={600}>No stops left</Text>
          <Text size="sm" c="dimmed">
            Every shipment assigned to you is delivered. New ones appear here as your company assigns them.
          </Text>
        </Paper>
      ) : (
        <Stack component="ol" gap="sm" m={0} p={0} aria-label="Today's stops" data-testid="stops" style={{ listStyle: 'none' }}>
          {ordered.map(([s, n]) => (
            <Card
              component="li"
              key={s.tid}
              p="md"
              opacity={n ? 1 : 0.75}
              data-tid={s.tid}
              data-status={s.status}
              data-pending={pending.get(s.tid)?.status}
            >
              <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
                <Group gap="sm" wrap="nowrap" align="flex-start" style={{ minWidth: 0 }}>
                  {n ? (
                    <ThemeIcon radius="xl" size={32} variant="filled" aria-label={`Stop ${n}`}>
                      <Text fw={800} size="sm" c="white">
                        {n}
                      </Text>
                    </ThemeIcon>
                  ) : (
                    <ThemeIcon radius="xl" size={32} variant="light" color="green" aria-label="Delivered on this phone">
                      <IconCheck size={18} />
                    </ThemeIcon>
                  )}
                  <UnstyledButton
                    onClick={() => setDetailsFor({ stop: s, position: n })}
                    aria-label={`Open stop ${s.tid}`}
                    style={{ minWidth: 0 }}
                  >
                    {planned.has(s.tid) && (
                      <Text size="sm" fw={700} c="blue.8" data-testid="stop-time">
                        {hhmm(planned.get(s.tid)!.eta)}{' '}
                        <Text span size="xs" c="dimmed" fw={500}>
                          (customer told {hhmm(planned.get(s.tid)!.windowFrom)}–{hhmm(planned.get(s.tid)!.windowTo)})
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
                </Group>
                <Stack gap={4} align="flex-end">
                  <StatusBadge status={pending.get(s.tid)?.status ?? s.status} />
                  {pending.has(s.tid) && (
                    <Text size="xs" c="blue" fw={700} ta="right" data-testid="stop-waiting">
                      Waiting to send
                    </Text>
                  )}
                </Stack>
              </Group>
              <Group gap="xs" mt="sm" grow>
                <Button onClick={() => setCheckpointFor(s)} aria-label={`Add checkpoint to ${s.tid}`}>
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
            </Card>
          ))}
        </Stack>
      )}
      {scanning && (
        <Suspense fallback={null}>
          <ScanLabel
            stops={stops}
            onClose={() => setScanning(false)}
            onFound={(s) => {
              setScanning(false);
              // A label of a shipment not picked up yet offers to confirm the pickup (decision 138).
              if (awaitingPickup(s, pending.get(s.tid)?.status)) setPickupFor(s);
              else setCheckpointFor(s);
            }}
          />
        </Suspense>
      )}
      {detailsFor && (
        <Suspense fallback={null}>
          <StopDetails
            stop={detailsFor.stop}
            position={detailsFor.position}
            waiting={waiting.filter((i) => i.tid === detailsFor.stop.tid)}
            onClose={() => setDetailsFor(null)}
            onUpdate={() => {
              setCheckpointFor(detailsFor.stop);
              setDetailsFor(null);
            }}
          />
        </Suspense>
      )}
      {pickupFor && (
        <Suspense fallback={null}>
          <ConfirmPickup
            shipment={pickupFor}
            onClose={() => setPickupFor(null)}
            onOther={() => {
              setCheckpointFor(pickupFor);
              setPickupFor(null);
            }}
          />
        </Suspense>
      )}
      {checkpointFor && (
        <Suspense fallback={null}>
          <CheckpointModal shipment={checkpointFor} asCourier onClose={() => setCheckpointFor(null)} />
        </Suspense>
      )}
    </>
  );
}
