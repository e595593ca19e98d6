import { Alert, Anchor, Button, Center, Group, Loader, Paper, SimpleGrid, Stack, Text, ThemeIcon } from '@mantine/core';
import type { ShipmentView } from '@shiptrail/contract';
import { IconBarcode, IconCheck, IconMapPin, IconPackage, IconX } from '@tabler/icons-react';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { PageHeader } from '../../../components/page-header';
import { useUserInfo } from '../../../lib/user-info';
import { useCourierDay } from '../api/get-courier-day';
import { useOutbox } from '../api/outbox';
import { useOnline } from '../../../lib/connection';
import { countsWithQueue, dayOrder } from '../api/day-with-queue';
import { awaitingPickup } from '../api/pickup';
import { CourierStopCard } from '../components/courier-stop-card';
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

/** The checkpoint form's code is fetched now, while there is signal: the service worker keeps it for later. */
function usePrefetchStopTools() {
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
}

/** What the courier has open over the day: the scanner, a stop's details, a pickup to confirm, a checkpoint form. */
function useStopDialogs() {
  const [checkpointFor, setCheckpointFor] = useState<ShipmentView | null>(null);
  const [scanning, setScanning] = useState(false);
  const [detailsFor, setDetailsFor] = useState<{ stop: ShipmentView; position?: number } | null>(null);
  const [pickupFor, setPickupFor] = useState<ShipmentView | null>(null);
  return { checkpointFor, setCheckpointFor, scanning, setScanning, detailsFor, setDetailsFor, pickupFor, setPickupFor };
}

type Waiting = ReturnType<typeof useOutbox>['waiting'];

/** The dialogs of the courier's home, each fetched when first shown (or earlier, by usePrefetchStopTools). */
function StopDialogs({
  dialogs: d,
  stops,
  waiting,
}: {
  dialogs: ReturnType<typeof useStopDialogs>;
  stops: ShipmentView[];
  waiting: Waiting;
}) {
  const pending = new Map(waiting.map((i) => [i.tid, i] as const));
  return (
    <>
      {d.scanning && (
        <Suspense fallback={null}>
          <ScanLabel
            stops={stops}
            onClose={() => d.setScanning(false)}
            onFound={(s) => {
              d.setScanning(false);
              // A label of a shipment not picked up yet offers to confirm the pickup (decision 138).
              if (awaitingPickup(s, pending.get(s.tid)?.status)) d.setPickupFor(s);
              else d.setCheckpointFor(s);
            }}
          />
        </Suspense>
      )}
      {d.detailsFor && (
        <Suspense fallback={null}>
          <StopDetails
            stop={d.detailsFor.stop}
            position={d.detailsFor.position}
            waiting={waiting.filter((i) => i.tid === d.detailsFor!.stop.tid)}
            onClose={() => d.setDetailsFor(null)}
            onUpdate={() => {
              d.setCheckpointFor(d.detailsFor!.stop);
              d.setDetailsFor(null);
            }}
          />
        </Suspense>
      )}
      {d.pickupFor && (
        <Suspense fallback={null}>
          <ConfirmPickup
            shipment={d.pickupFor}
            onClose={() => d.setPickupFor(null)}
            onOther={() => {
              d.setCheckpointFor(d.pickupFor);
              d.setPickupFor(null);
            }}
          />
        </Suspense>
      )}
      {d.checkpointFor && (
        <Suspense fallback={null}>
          <CheckpointModal shipment={d.checkpointFor} asCourier onClose={() => d.setCheckpointFor(null)} />
        </Suspense>
      )}
    </>
  );
}

/** Today's stops: the ones still to do first, numbered; those delivered on this phone and not yet sent after them (decision 138). */
function DayStops({
  day,
  waiting,
  dialogs,
}: {
  day: ReturnType<typeof useCourierDay>;
  waiting: Waiting;
  dialogs: ReturnType<typeof useStopDialogs>;
}) {
  const stops = day.data?.stops ?? [];
  const planned = new Map((day.data?.planned ?? []).map((p) => [p.tid, p]));
  // The last action waiting for each stop: the stop shows it until the server has it (decision 120).
  const pending = new Map(waiting.map((i) => [i.tid, i] as const));
  const { todo, doneHere } = dayOrder({ stops }, waiting);
  const ordered = [...todo.map((s, i) => [s, i + 1] as const), ...doneHere.map((s) => [s, undefined] as const)];
  if (day.isLoading)
    return (
      <Center py={48}>
        <Stack align="center" gap="xs" role="status" aria-label="Loading your stops">
          <Loader />
          <Text size="sm" c="dimmed">
            Loading your stops…
          </Text>
        </Stack>
      </Center>
    );
  if (day.isError && !day.data)
    return (
      <Alert color="red" data-testid="day-error" title="Could not load your stops">
        {day.error.message}{' '}
        <Anchor component="button" onClick={() => day.refetch()}>
          Try again
        </Anchor>
      </Alert>
    );
  if (stops.length === 0)
    return (
      <Paper p="xl" ta="center" data-testid="no-stops">
        <Text fw={600}>No stops left</Text>
        <Text size="sm" c="dimmed">
          Every shipment assigned to you is delivered. New ones appear here as your company assigns them.
        </Text>
      </Paper>
    );
  return (
    <Stack component="ol" gap="sm" m={0} p={0} aria-label="Today's stops" data-testid="stops" style={{ listStyle: 'none' }}>
      {ordered.map(([s, n]) => (
        <CourierStopCard
          key={s.tid}
          stop={s}
          n={n}
          planned={planned.get(s.tid)}
          pendingStatus={pending.get(s.tid)?.status}
          onOpen={() => dialogs.setDetailsFor({ stop: s, position: n })}
          onUpdate={() => dialogs.setCheckpointFor(s)}
        />
      ))}
    </Stack>
  );
}

/**
 * A courier's home: today's stops in the order of the day's plan with their planned times (decision 118), or
 * in the order they were handed out (the open shipments assigned to them),
 * what they delivered and failed today, and one tap from each stop to its checkpoint, a call or directions.
 */
export default function CourierHomeRoute() {
  const { data: info } = useUserInfo();
  const { state } = useLocation() as { state: { ownerOnly?: string } | null };
  const day = useCourierDay(!!info);
  const dialogs = useStopDialogs();
  const first = info?.profile.firstName;
  const online = useOnline();
  const { waiting, refused } = useOutbox(info?.profile.uid);
  const counts = day.data && countsWithQueue(day.data, waiting);
  usePrefetchStopTools();
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
            <Button onClick={() => dialogs.setScanning(true)} leftSection={<IconBarcode size={16} />}>
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
      <DayStops day={day} waiting={waiting} dialogs={dialogs} />
      <StopDialogs dialogs={dialogs} stops={day.data?.stops ?? []} waiting={waiting} />
    </>
  );
}
