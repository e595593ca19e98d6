import { Button, LoadingOverlay, Paper, Text, Box } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { LIMITS, TRACKING_STATUSES } from '@shiptrail/contract';
import { IconFileImport, IconPackage, IconPlus } from '@tabler/icons-react';
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useTrackings } from '../api/get-trackings';
import { useCouriers } from '../api/get-couriers';
import { useRefreshTracking } from '../api/refresh-tracking';
import { useMarkDelivered } from '../api/mark-delivered';
import { useDeleteTracking } from '../api/delete-tracking';
import type { TrackingView } from '@shiptrail/contract';
import { sameTid, TrackingTable } from '../components/tracking-table';
import { TrackingPanel } from '../components/tracking-panel';
import { PageHeader } from '../../../components/page-header';
import { courierFilter, ListFilters, statusFilter } from '../../../components/list-filters';
import { ListPager } from '../../../components/list-pager';
import { EmptyList } from '../../../components/empty-list';
import { ConfirmDeleteModal } from '../../../components/confirm-delete-modal';
import { useKeysetPaging } from '../../../components/keyset-paging';
import { useUserInfo } from '../../../lib/user-info';

// The forms (and the contract's zod schemas) load when a modal first opens, keeping the list page light.
const AddTrackingModal = lazy(() => import('../components/add-tracking-modal').then((m) => ({ default: m.AddTrackingModal })));
const EditTrackingModal = lazy(() => import('../components/edit-tracking-modal').then((m) => ({ default: m.EditTrackingModal })));
const ImportModal = lazy(() => import('../components/import-modal').then((m) => ({ default: m.ImportModal })));

/** A page of the trackings with these filters; keyset paging (product rules §4): a stack of the lastTid values that opened each page. */
function usePagedTrackings() {
  const { couriers } = useCouriers();
  const [status, setStatus] = useState<string[]>([]);
  const [courier, setCourier] = useState<string[]>([]);
  const paging = useKeysetPaging();
  const { pageSize, lastTid } = paging;
  const query = useMemo(() => ({ numRecords: pageSize, lastTid, status, courier }), [pageSize, lastTid, status, courier]);
  const list = useTrackings(query);
  const trackings = useMemo(() => list.data ?? [], [list.data]);
  const filters = [
    statusFilter(TRACKING_STATUSES, status, setStatus),
    courierFilter(
      couriers.map((c) => ({ value: c.courier, label: c.name })),
      courier,
      setCourier,
    ),
  ];
  return {
    list,
    trackings,
    filters,
    hasFilters: status.length > 0 || courier.length > 0,
    paging,
  };
}

/**
 * The row of a tracking just added, highlighted for a moment (product rules §2, §9). The moment starts when the row is
 * in the list, not when the add was answered: on a slow connection the list comes later, and the row still stands out.
 */
function useHighlight(trackings: TrackingView[]) {
  const [highlight, setHighlight] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const started = useRef<string | null>(null);
  useEffect(() => () => clearTimeout(timer.current), []);
  const inList = !!highlight && trackings.some((t) => sameTid(t.tid, highlight));
  useEffect(() => {
    if (!inList || started.current === highlight) return;
    started.current = highlight;
    clearTimeout(timer.current);
    // The new row is highlighted for 3 seconds (product rules §2, §9).
    timer.current = setTimeout(() => setHighlight(null), LIMITS.newRowHighlightMs);
  }, [inList, highlight]);
  const show = (tid: string) => {
    started.current = null;
    setHighlight(tid);
  };
  return { highlight, show };
}

/** No trackings: none yet (with the way to add one), or none for these filters. */
function NoTrackings({ hasFilters, onAdd }: { hasFilters: boolean; onAdd: () => void }) {
  return (
    <EmptyList
      icon={<IconPackage size={30} />}
      title={hasFilters ? 'No trackings match these filters' : 'No trackings yet'}
      text={hasFilters ? 'Clear a filter to see more.' : 'Add your first tracking number and we will follow it for you.'}
    >
      {!hasFilters && (
        <Button mt="xs" leftSection={<IconPlus size={16} />} onClick={onAdd}>
          Add tracking
        </Button>
      )}
    </EmptyList>
  );
}

/** "Delete tracking?": the number and its checkpoints go for good once confirmed. */
function ConfirmDelete({ tid, ...props }: { tid: string | null; busy: boolean; onCancel: () => void; onDelete: (tid: string) => void }) {
  return (
    <ConfirmDeleteModal item={tid} title="Delete tracking?" {...props}>
      <Text size="sm" mb="lg">
        <b>{tid}</b> and its checkpoints will be removed. This cannot be undone.
      </Text>
    </ConfirmDeleteModal>
  );
}

/** Whether the page was opened with ?add=1 (the dashboard's "Add tracking"): the form opens, and the link loses it. */
function useAddLink() {
  const [search, setSearch] = useSearchParams();
  const [asked] = useState(() => search.get('add') === '1');
  useEffect(() => {
    if (search.get('add') === '1') {
      search.delete('add');
      setSearch(search, { replace: true });
    }
  }, [search, setSearch]);
  return asked;
}

function TrackingsHeader({ onImport, onAdd }: { onImport: () => void; onAdd: () => void }) {
  return (
    <PageHeader
      title="Trackings"
      description="Every parcel you follow, refreshed automatically."
      actions={
        <>
          <Button variant="default" leftSection={<IconFileImport size={16} />} onClick={onImport}>
            Import CSV
          </Button>
          <Button leftSection={<IconPlus size={16} />} onClick={onAdd}>
            Add tracking
          </Button>
        </>
      }
    />
  );
}

/** The list: loading, the rows, or a word when there are none. */
function TrackingRows({
  loading,
  trackings,
  hasFilters,
  highlight,
  onAdd,
  ...actions
}: {
  loading: boolean;
  trackings: TrackingView[];
  hasFilters: boolean;
  highlight: string | null;
  onAdd: () => void;
} & Pick<Parameters<typeof TrackingTable>[0], 'onOpen' | 'onEdit' | 'onRefresh' | 'onDelivered' | 'onDelete'>) {
  return (
    <Paper pos="relative" mih={200}>
      <LoadingOverlay visible={loading} overlayProps={{ blur: 1 }} />
      {!loading && trackings.length === 0 ? (
        <NoTrackings hasFilters={hasFilters} onAdd={onAdd} />
      ) : (
        <TrackingTable trackings={trackings} highlightTid={highlight} {...actions} />
      )}
    </Paper>
  );
}

/** What a row and the side panel do to a tracking: edit, refresh, mark delivered, delete (after asking). */
function useTrackingActions(onEdit: (t: TrackingView) => void) {
  const refresh = useRefreshTracking();
  const delivered = useMarkDelivered();
  const remove = useDeleteTracking();
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  return {
    row: {
      onEdit,
      onRefresh: (tid: string) => refresh.mutate(tid),
      onDelivered: (tid: string) => delivered.mutate(tid),
      onDelete: setConfirmDelete,
    },
    busy: refresh.isPending || delivered.isPending || remove.isPending,
    remove,
    confirmDelete,
    setConfirmDelete,
  };
}

export default function TrackingsRoute() {
  const { data: info } = useUserInfo();
  const isCompany = info?.profile.userType === 'company';
  const { list, trackings, filters, hasFilters, paging } = usePagedTrackings();

  const [addOpened, add] = useDisclosure(useAddLink());
  const [importOpened, importModal] = useDisclosure(false);
  const [selectedTid, setSelectedTid] = useState<string | null>(null);
  const selected = trackings.find((t) => t.tid === selectedTid) ?? null;
  // The tracking being edited, as it was when the form opened (the form is prefilled from it).
  const [editing, setEditing] = useState<TrackingView | null>(null);
  const { highlight, show } = useHighlight(trackings);
  const { row, busy, remove, confirmDelete, setConfirmDelete } = useTrackingActions(setEditing);

  const onAdded = (tid: string) => {
    paging.reset();
    show(tid);
  };

  return (
    <>
      <TrackingsHeader onImport={importModal.open} onAdd={add.open} />
      <ListFilters filters={filters} paging={paging} list={list} />
      <TrackingRows
        loading={list.isLoading}
        trackings={trackings}
        hasFilters={hasFilters}
        highlight={highlight}
        onAdd={add.open}
        onOpen={(t) => setSelectedTid(t.tid)}
        {...row}
      />
      <ListPager paging={paging} rows={trackings} noun={['tracking', 'trackings']} />

      <Suspense>
        {addOpened && <AddTrackingModal opened={addOpened} onClose={add.close} onAdded={onAdded} isCompany={isCompany} />}
        {editing && <EditTrackingModal key={editing.tid} tracking={editing} onClose={() => setEditing(null)} />}
        {importOpened && <ImportModal opened={importOpened} onClose={importModal.close} />}
      </Suspense>
      <TrackingPanel
        tracking={selected}
        uid={info?.profile.uid}
        isCompany={isCompany}
        onClose={() => setSelectedTid(null)}
        {...row}
        busy={busy}
      />
      <ConfirmDelete
        tid={confirmDelete}
        busy={remove.isPending}
        onCancel={() => setConfirmDelete(null)}
        onDelete={(tid) =>
          remove.mutate(tid, {
            onSettled: () => {
              if (selectedTid === tid) setSelectedTid(null);
              setConfirmDelete(null);
            },
          })
        }
      />
      <Box />
    </>
  );
}
