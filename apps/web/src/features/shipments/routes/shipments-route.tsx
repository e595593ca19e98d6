import { Button, Center, Loader, Paper, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { SHIPMENT_STATUSES, type ShipmentStatus, type ShipmentView } from '@shiptrail/contract';
import { IconMap, IconPackage, IconPlus, IconPrinter, IconRoute, IconUserShare } from '@tabler/icons-react';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useShipments } from '../api/get-shipments';
import { ShipmentTable } from '../components/shipment-table';
import { ShipmentPanel } from '../components/shipment-panel';
import { PageHeader } from '../../../components/page-header';
import { courierFilter, ListFilters, statusFilter } from '../../../components/list-filters';
import { ListPager } from '../../../components/list-pager';
import { EmptyList } from '../../../components/empty-list';
import { useKeysetPaging } from '../../../components/keyset-paging';
import { useUserInfo } from '../../../lib/user-info';
import { couriersOf, memberName, useMembers } from '../../../lib/members';

// The forms (signature pad, zod schemas) load when first opened, keeping the list light on a phone.
const ShipmentFormModal = lazy(() => import('../components/shipment-form-modal').then((m) => ({ default: m.ShipmentFormModal })));
const ShareLocation = lazy(() => import('../components/share-location').then((m) => ({ default: m.ShareLocation })));
const AssignModal = lazy(() => import('../components/assign-modal').then((m) => ({ default: m.AssignModal })));
const CheckpointModal = lazy(() => import('../components/checkpoint-modal').then((m) => ({ default: m.CheckpointModal })));

/** The shipments ticked in the list, to assign or print together. */
function usePicked(shipments: ShipmentView[]) {
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const toggle = (tid: string) =>
    setPicked((p) => {
      const n = new Set(p);
      if (n.has(tid)) n.delete(tid);
      else n.add(tid);
      return n;
    });
  const toggleAll = (on: boolean) => setPicked(on ? new Set(shipments.map((s) => s.tid)) : new Set());
  return { picked, setPicked, toggle, toggleAll };
}

/** The company's buttons over its list: the map, the plan, and what to do with the shipments ticked. */
function OwnerActions({ picked, onAssign, onAdd }: { picked: Set<string>; onAssign: () => void; onAdd: () => void }) {
  const printHref = `/account/print?tids=${encodeURIComponent([...picked].join(','))}`;
  return (
    <>
      <Button component={Link} to="/account/shipments/map" variant="default" leftSection={<IconMap size={16} />}>
        Map
      </Button>
      <Button component={Link} to="/account/shipments/plan" variant="default" leftSection={<IconRoute size={16} />}>
        Plan the day
      </Button>
      <Button
        variant="default"
        leftSection={<IconUserShare size={16} />}
        disabled={picked.size === 0}
        title={picked.size === 0 ? 'Select shipments to assign them to a courier' : undefined}
        onClick={onAssign}
      >
        {picked.size > 0 ? `Assign to courier (${picked.size})` : 'Assign to courier'}
      </Button>
      {picked.size > 0 ? (
        <Button component={Link} to={printHref} variant="default" leftSection={<IconPrinter size={16} />}>
          Print ({picked.size})
        </Button>
      ) : (
        <Button variant="default" leftSection={<IconPrinter size={16} />} disabled title="Select shipments to print their labels">
          Print
        </Button>
      )}
      <Button leftSection={<IconPlus size={16} />} onClick={onAdd}>
        Add New Shipment
      </Button>
    </>
  );
}

/** What the list shows when it has no rows: loading, an error, or nothing (yet, or for these filters). */
function NoRows({
  list,
  loading,
  hasFilters,
  asCourier,
}: {
  list: ReturnType<typeof useShipments>;
  loading: boolean;
  hasFilters: boolean;
  asCourier: boolean;
}) {
  if (loading)
    return (
      <Center py={64}>
        <Stack align="center" gap="xs" role="status" aria-label="Loading shipments">
          <Loader />
          <Text size="sm" c="dimmed">
            Loading shipments…
          </Text>
        </Stack>
      </Center>
    );
  if (list.isError)
    return (
      <Center py={64} px="md">
        <Stack align="center" gap="xs" ta="center" data-testid="shipments-error">
          <Text fw={600}>Could not load the shipments</Text>
          <Text size="sm" c="dimmed">
            {list.error.message}
          </Text>
          <Button variant="light" onClick={() => list.refetch()}>
            Try again
          </Button>
        </Stack>
      </Center>
    );
  return (
    <EmptyList
      icon={<IconPackage size={30} />}
      title={hasFilters ? 'No shipments match these filters' : asCourier ? 'Nothing assigned to you yet' : 'No shipments yet'}
      text={
        hasFilters
          ? 'Clear a filter to see more.'
          : asCourier
            ? 'When your company assigns you a shipment it shows up here.'
            : 'Create a shipment, assign it to one of your couriers and print its label.'
      }
      textWidth={400}
    />
  );
}

/** The list's filters (status, and the courier for the company) with their values. */
function useShipmentFilters(asCourier: boolean, couriers: ReturnType<typeof couriersOf>) {
  const [status, setStatus] = useState<string[]>([]);
  const [courier, setCourier] = useState<string[]>([]);
  const filters = [
    statusFilter(SHIPMENT_STATUSES, status, setStatus),
    // A courier sees only their own shipments: no courier filter.
    ...(asCourier
      ? []
      : [
          courierFilter(
            couriers.map((c) => ({ value: c.email, label: memberName(c) })),
            courier,
            setCourier,
          ),
        ]),
  ];
  return { status, courier, filters, hasFilters: status.length > 0 || courier.length > 0 };
}

/** A page of the shipments with these filters, and the way from page to page (a cursor a page). */
function usePagedShipments(status: string[], courier: string[], asCourier: boolean, enabled: boolean) {
  const paging = useKeysetPaging();
  const { pageSize, lastTid } = paging;
  const query = useMemo(
    () => ({ numRecords: pageSize, lastTid, status: status as ShipmentStatus[], courier }),
    [pageSize, lastTid, status, courier],
  );
  // Couriers list only what is assigned to them (their own call); the company lists all its shipments.
  const list = useShipments(query, asCourier, enabled);
  const shipments = useMemo(() => list.data ?? [], [list.data]);
  return { list, shipments, paging };
}

/** A link with ?add=1 (the dashboard's "Add shipment") opens the form once, for the company. */
function useAddFromLink(open: () => void, asCourier: boolean, ready: boolean) {
  const [search, setSearch] = useSearchParams();
  useEffect(() => {
    if (search.get('add') === '1' && ready) {
      if (!asCourier) open();
      search.delete('add');
      setSearch(search, { replace: true });
    }
  }, [search, setSearch, asCourier, ready, open]);
}

/** The page's title, and its buttons once the account is known (a courier has only the map). */
function ShipmentsHeader({
  asCourier,
  ready,
  picked,
  onAssign,
  onAdd,
}: {
  asCourier: boolean;
  ready: boolean;
  picked: Set<string>;
  onAssign: () => void;
  onAdd: () => void;
}) {
  return (
    <PageHeader
      title={asCourier ? 'My shipments' : 'Shipments'}
      description={
        asCourier ? 'The shipments assigned to you. Add a checkpoint as you go.' : 'Your own shipments, delivered by your couriers.'
      }
      actions={
        ready &&
        (asCourier ? (
          <Button component={Link} to="/account/shipments/map" variant="default" leftSection={<IconMap size={16} />}>
            Map
          </Button>
        ) : (
          <OwnerActions picked={picked} onAssign={onAssign} onAdd={onAdd} />
        ))
      }
    />
  );
}

export default function ShipmentsRoute() {
  const [search] = useSearchParams();
  const { data: info, isLoading: infoLoading } = useUserInfo();
  const asCourier = info?.profile.role === 'courier';
  const members = useMembers(!!info && !asCourier);
  const { status, courier, filters, hasFilters } = useShipmentFilters(asCourier, couriersOf(members.data ?? []));
  const { list, shipments, paging } = usePagedShipments(status, courier, asCourier, !!info);

  const [addOpened, add] = useDisclosure(false);
  const [editing, setEditing] = useState<ShipmentView | null>(null);
  const [checkpointFor, setCheckpointFor] = useState<ShipmentView | null>(null);
  // The maps' popups link here with ?tid= to open that shipment's panel.
  const [selectedTid, setSelectedTid] = useState<string | null>(() => search.get('tid'));
  const opened = shipments.find((s) => s.tid === selectedTid) ?? null;
  const { picked, setPicked, toggle, toggleAll } = usePicked(shipments);
  const [assigning, setAssigning] = useState(false);
  useAddFromLink(add.open, asCourier, !!info);

  return (
    <>
      <ShipmentsHeader asCourier={asCourier} ready={!!info} picked={picked} onAssign={() => setAssigning(true)} onAdd={add.open} />
      {asCourier && (
        <Suspense fallback={null}>
          <ShareLocation />
        </Suspense>
      )}
      <ListFilters filters={filters} paging={paging} list={list} />
      <Paper pos="relative" mih={200}>
        {infoLoading || list.isLoading || shipments.length === 0 ? (
          <NoRows list={list} loading={infoLoading || list.isLoading} hasFilters={hasFilters} asCourier={asCourier} />
        ) : (
          <ShipmentTable
            shipments={shipments}
            asCourier={asCourier}
            selected={picked}
            onToggle={toggle}
            onToggleAll={toggleAll}
            onOpen={(s) => setSelectedTid(s.tid)}
            onEdit={setEditing}
            onCheckpoint={setCheckpointFor}
          />
        )}
      </Paper>
      <ListPager paging={paging} rows={shipments} noun={['shipment', 'shipments']} picked={picked.size} />

      <Suspense>
        {addOpened && !asCourier && <ShipmentFormModal onClose={add.close} />}
        {editing && !asCourier && <ShipmentFormModal key={editing.tid} shipment={editing} onClose={() => setEditing(null)} />}
        {assigning && !asCourier && (
          <AssignModal tids={[...picked]} onClose={() => setAssigning(false)} onDone={() => setPicked(new Set())} />
        )}
        {checkpointFor && (
          <CheckpointModal key={checkpointFor.tid} shipment={checkpointFor} asCourier={asCourier} onClose={() => setCheckpointFor(null)} />
        )}
      </Suspense>
      <ShipmentPanel
        shipment={opened}
        asCourier={asCourier}
        onClose={() => setSelectedTid(null)}
        onEdit={setEditing}
        onCheckpoint={setCheckpointFor}
      />
    </>
  );
}
