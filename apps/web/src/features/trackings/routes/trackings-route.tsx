import { Button, Center, Group, LoadingOverlay, Modal, Paper, Stack, Text, ThemeIcon, Box } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { LIMITS, STATUS_LABELS, TRACKING_STATUSES } from '@shiptrail/contract';
import { IconChevronLeft, IconChevronRight, IconFileImport, IconPackage, IconPlus } from '@tabler/icons-react';
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useTrackings } from '../api/get-trackings';
import { useCouriers } from '../api/get-couriers';
import { useRefreshTracking } from '../api/refresh-tracking';
import { useMarkDelivered } from '../api/mark-delivered';
import { useDeleteTracking } from '../api/delete-tracking';
import type { TrackingView } from '@shiptrail/contract';
import { TrackingTable } from '../components/tracking-table';
import { TrackingPanel } from '../components/tracking-panel';
import { PageHeader } from '../../../components/page-header';
import { ListFilters } from '../../../components/list-filters';
import { useUserInfo } from '../../../lib/user-info';

// The forms (and the contract's zod schemas) load when a modal first opens, keeping the list page light.
const AddTrackingModal = lazy(() => import('../components/add-tracking-modal').then((m) => ({ default: m.AddTrackingModal })));
const EditTrackingModal = lazy(() => import('../components/edit-tracking-modal').then((m) => ({ default: m.EditTrackingModal })));
const ImportModal = lazy(() => import('../components/import-modal').then((m) => ({ default: m.ImportModal })));

export default function TrackingsRoute() {
  const [search, setSearch] = useSearchParams();
  const { data: info } = useUserInfo();
  const isCompany = info?.profile.userType === 'company';
  const { couriers } = useCouriers();
  const [status, setStatus] = useState<string[]>([]);
  const [courier, setCourier] = useState<string[]>([]);
  const [pageSize, setPageSize] = useState<number>(LIMITS.trackingsPerPage);
  // Keyset paging (product rules §4): a stack of the lastTid values that opened each page.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const lastTid = cursors[cursors.length - 1];
  const query = useMemo(() => ({ numRecords: pageSize, lastTid, status, courier }), [pageSize, lastTid, status, courier]);
  const list = useTrackings(query);
  const trackings = useMemo(() => list.data ?? [], [list.data]);

  const [addOpened, add] = useDisclosure(search.get('add') === '1');
  const [importOpened, importModal] = useDisclosure(false);
  const [selectedTid, setSelectedTid] = useState<string | null>(null);
  const selected = trackings.find((t) => t.tid === selectedTid) ?? null;
  // The tracking being edited, as it was when the form opened (the form is prefilled from it).
  const [editing, setEditing] = useState<TrackingView | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  const [highlight, setHighlight] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  const refresh = useRefreshTracking();
  const delivered = useMarkDelivered();
  const remove = useDeleteTracking();

  useEffect(() => () => clearTimeout(timer.current), []);
  useEffect(() => {
    if (search.get('add') === '1') {
      search.delete('add');
      setSearch(search, { replace: true });
    }
  }, [search, setSearch]);

  const resetPaging = () => setCursors([undefined]);
  const onAdded = (tid: string) => {
    resetPaging();
    setHighlight(tid);
    clearTimeout(timer.current);
    // The new row is highlighted for 3 seconds (product rules §2, §9).
    timer.current = setTimeout(() => setHighlight(null), LIMITS.newRowHighlightMs);
  };

  const hasFilters = status.length > 0 || courier.length > 0;
  const page = cursors.length;

  return (
    <>
      <PageHeader
        title="Trackings"
        description="Every parcel you follow, refreshed automatically."
        actions={
          <>
            <Button variant="default" leftSection={<IconFileImport size={16} />} onClick={importModal.open}>
              Import CSV
            </Button>
            <Button leftSection={<IconPlus size={16} />} onClick={add.open}>
              Add tracking
            </Button>
          </>
        }
      />
      <ListFilters
        filters={[
          {
            label: 'Status',
            placeholder: 'All statuses',
            data: TRACKING_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] })),
            value: status,
            onChange: setStatus,
            width: 300,
          },
          {
            label: 'Courier',
            placeholder: 'All couriers',
            data: couriers.map((c) => ({ value: c.courier, label: c.name })),
            value: courier,
            onChange: setCourier,
            width: 260,
          },
        ]}
        pageSize={pageSize}
        onPageSize={setPageSize}
        onPagingReset={resetPaging}
        onReload={() => list.refetch()}
        reloading={list.isFetching && !list.isLoading}
      />
      <Paper pos="relative" mih={200}>
        <LoadingOverlay visible={list.isLoading} overlayProps={{ blur: 1 }} />
        {!list.isLoading && trackings.length === 0 ? (
          <Center py={64} px="md">
            <Stack align="center" gap="xs" ta="center">
              <ThemeIcon size={56} radius="xl" variant="light">
                <IconPackage size={30} />
              </ThemeIcon>
              <Text fw={600}>{hasFilters ? 'No trackings match these filters' : 'No trackings yet'}</Text>
              <Text size="sm" c="dimmed" maw={380}>
                {hasFilters ? 'Clear a filter to see more.' : 'Add your first tracking number and we will follow it for you.'}
              </Text>
              {!hasFilters && (
                <Button mt="xs" leftSection={<IconPlus size={16} />} onClick={add.open}>
                  Add tracking
                </Button>
              )}
            </Stack>
          </Center>
        ) : (
          <TrackingTable
            trackings={trackings}
            highlightTid={highlight}
            onOpen={(t: TrackingView) => setSelectedTid(t.tid)}
            onEdit={setEditing}
            onRefresh={(tid) => refresh.mutate(tid)}
            onDelivered={(tid) => delivered.mutate(tid)}
            onDelete={setConfirmDelete}
          />
        )}
      </Paper>
      <Group justify="space-between" mt="md">
        <Text size="sm" c="dimmed" data-testid="page-info">
          Page {page} · {trackings.length} {trackings.length === 1 ? 'tracking' : 'trackings'}
        </Text>
        <Group gap="xs">
          {page > 1 && (
            <Button variant="default" leftSection={<IconChevronLeft size={16} />} onClick={() => setCursors((c) => c.slice(0, -1))}>
              Prev
            </Button>
          )}
          {/* Next shows only when the page is full (product rules §4). */}
          {trackings.length >= pageSize && (
            <Button
              variant="default"
              rightSection={<IconChevronRight size={16} />}
              onClick={() => setCursors((c) => [...c, trackings[trackings.length - 1]!.tid])}
            >
              Next
            </Button>
          )}
        </Group>
      </Group>

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
        onEdit={setEditing}
        onRefresh={(tid) => refresh.mutate(tid)}
        onDelivered={(tid) => delivered.mutate(tid)}
        onDelete={setConfirmDelete}
        busy={refresh.isPending || delivered.isPending || remove.isPending}
      />
      <Modal opened={!!confirmDelete} onClose={() => setConfirmDelete(null)} title="Delete tracking?" size="sm">
        <Text size="sm" mb="lg">
          <b>{confirmDelete}</b> and its checkpoints will be removed. This cannot be undone.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setConfirmDelete(null)}>
            Cancel
          </Button>
          <Button
            color="red"
            loading={remove.isPending}
            onClick={() =>
              confirmDelete &&
              remove.mutate(confirmDelete, {
                onSettled: () => {
                  if (selectedTid === confirmDelete) setSelectedTid(null);
                  setConfirmDelete(null);
                },
              })
            }
          >
            Delete
          </Button>
        </Group>
      </Modal>
      <Box />
    </>
  );
}
