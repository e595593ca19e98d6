import { ActionIcon, Badge, Box, Group, Menu, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import { IconDots, IconEdit, IconRefresh, IconTrash, IconTruckDelivery } from '@tabler/icons-react';
import { describeEstimate, estimateDay, estimateTime, likelyLateReason, type TrackingView } from '@shiptrail/contract';
import { lastCheckPointText } from '../api/types';
import { StatusBadge } from '../../../components/status-badge';
import { useCardLayout } from '../../../components/card-layout';
import { OpenTidButton } from '../../../components/open-tid-button';
import { EstimateZone, readerEstimateZone } from '../../../components/estimate-zone';
import { courierName, formatDateTime } from '../../../lib/format';

/** One tracking number however it is typed: without spaces, in capitals. */
export const sameTid = (a: string, b: string) => norm(a) === norm(b);
const norm = (s: string) => s.replace(/\s/g, '').toUpperCase();

type Props = {
  trackings: TrackingView[];
  highlightTid: string | null;
  onOpen: (t: TrackingView) => void;
  onEdit: (t: TrackingView) => void;
  onRefresh: (tid: string) => void;
  onDelivered: (tid: string) => void;
  onDelete: (tid: string) => void;
};

/** The Expected column (decision 122): the carrier's day and window, or "by" the predicted window's last day. */
function ExpectedCell({ t }: { t: TrackingView }) {
  const e = t.estimatedDelivery;
  if (!e) return <Text size="sm">—</Text>;
  const from = estimateTime(e.from);
  const to = estimateTime(e.to);
  const predicted = e.source === 'predicted';
  const zone = readerEstimateZone(e);
  return (
    <div data-testid="expected" data-source={e.source} title={zone ? `${describeEstimate(e)} (times in ${zone})` : describeEstimate(e)}>
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        {predicted ? `by ${estimateDay(e.to ?? e.date)}` : estimateDay(e.date)}
      </Text>
      <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
        {predicted ? 'predicted' : from && to ? (from === to ? `around ${from}` : `${from}–${to}`) : to ? `by ${to}` : ''}
      </Text>
      <LikelyLateBadge t={t} narrow />
    </div>
  );
}

/** "Likely late" and who says so (decision 151): the carrier's own dates, or our delivery history. */
function LikelyLateBadge({ t, narrow = false }: { t: TrackingView; narrow?: boolean }) {
  const late = t.likelyLate;
  if (!late) return null;
  const why =
    late.source === 'history' ? likelyLateReason(late) : 'The carrier moved its date past its first promise, or its window passed.';
  const badge = (
    <Badge
      size="xs"
      color="orange"
      variant="light"
      mt={4}
      data-testid="likely-late"
      data-source={late.source}
      title={why ?? undefined}
      aria-label={`Likely late, ${late.source === 'history' ? 'from our delivery history' : 'from the carrier'}`}
      style={{ textTransform: 'none' }}
    >
      {narrow ? 'Likely late' : `Likely late · ${late.source}`}
    </Badge>
  );
  // The table's Expected column is narrow: the source goes on its own line.
  return narrow ? (
    <>
      {badge}
      <Text size="xs" c="dimmed" data-testid="likely-late-source" style={{ whiteSpace: 'nowrap' }}>
        {late.source === 'history' ? 'from history' : 'from carrier'}
      </Text>
    </>
  ) : (
    badge
  );
}

const isNew = (props: Props, t: TrackingView) => !!props.highlightTid && norm(props.highlightTid) === norm(t.tid);

function RowActions({ t, ...props }: Props & { t: TrackingView }) {
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${t.tid}`}>
          <IconDots size={18} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item leftSection={<IconEdit size={16} />} onClick={() => props.onEdit(t)}>
          Edit
        </Menu.Item>
        <Menu.Item leftSection={<IconRefresh size={16} />} onClick={() => props.onRefresh(t.tid)}>
          Refresh now
        </Menu.Item>
        <Menu.Item
          leftSection={<IconTruckDelivery size={16} />}
          onClick={() => props.onDelivered(t.tid)}
          disabled={t.status === 'Delivered'}
        >
          Mark delivered
        </Menu.Item>
        <Menu.Divider />
        <Menu.Item color="red" leftSection={<IconTrash size={16} />} onClick={() => props.onDelete(t.tid)}>
          Delete
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/** One card per tracking for narrow screens: status, number and title, courier, last checkpoint. */
function TrackingCards(props: Props) {
  return (
    <Stack component="ul" gap={0} m={0} p={0} aria-label="Trackings" data-testid="trackings-cards" style={{ listStyle: 'none' }}>
      {props.trackings.map((t) => {
        const last = lastCheckPointText(t);
        return (
          <Box
            component="li"
            key={t.tid}
            px="md"
            py="sm"
            className={isNew(props, t) ? 'row-new' : undefined}
            data-tid={t.tid}
            data-status={t.status ?? ''}
            style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}
          >
            <Group justify="space-between" wrap="nowrap" gap="xs" mb={6}>
              <StatusBadge status={t.status} />
              <RowActions t={t} {...props} />
            </Group>
            <UnstyledButton onClick={() => props.onOpen(t)} aria-label={`Open ${t.tid}`} display="block" w="100%">
              <Text fw={600} size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                {t.tid}
              </Text>
              {t.title && (
                <Text size="sm" c="dimmed">
                  {t.title}
                </Text>
              )}
              <Text size="sm" mt={4}>
                <b>{courierName(t.courier)}</b>
                {t.origin || t.destination ? ` · ${t.origin || '—'} → ${t.destination || '—'}` : ''}
              </Text>
              {t.estimatedDelivery && (
                <Text size="sm" mt={2} fw={500} data-testid="expected" data-source={t.estimatedDelivery.source}>
                  {describeEstimate(t.estimatedDelivery)}
                </Text>
              )}
              {t.estimatedDelivery && <EstimateZone estimate={t.estimatedDelivery} testId="expected-zone" />}
              <LikelyLateBadge t={t} />
              <Text size="sm" mt={2}>
                {last || 'No checkpoints yet'}
              </Text>
              <Text size="xs" c="dimmed">
                {formatDateTime(t.updatedAt)}
              </Text>
            </UnstyledButton>
          </Box>
        );
      })}
    </Stack>
  );
}

/** A tracking's row at a desk: a click opens its panel, the last cell holds its menu. */
function TrackingRow({ t, props }: { t: TrackingView; props: Props }) {
  return (
    <Table.Tr
      className={isNew(props, t) ? 'row-new' : undefined}
      data-tid={t.tid}
      data-status={t.status ?? ''}
      style={{ cursor: 'pointer' }}
      onClick={() => props.onOpen(t)}
    >
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <StatusBadge status={t.status} />
      </Table.Td>
      <Table.Td>
        <OpenTidButton tid={t.tid} onOpen={() => props.onOpen(t)} block>
          <Text fw={600} size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
            {t.tid}
          </Text>
          {t.title && (
            <Text size="xs" c="dimmed" lineClamp={2}>
              {t.title}
            </Text>
          )}
        </OpenTidButton>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{courierName(t.courier)}</Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{t.origin || '—'}</Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{t.destination || '—'}</Text>
      </Table.Td>
      <Table.Td>
        <ExpectedCell t={t} />
      </Table.Td>
      <Table.Td>
        <Text size="sm">{lastCheckPointText(t) || '—'}</Text>
        <Text size="xs" c="dimmed">
          {formatDateTime(t.updatedAt)}
        </Text>
      </Table.Td>
      <Table.Td onClick={(e) => e.stopPropagation()}>
        <RowActions t={t} {...props} />
      </Table.Td>
    </Table.Tr>
  );
}

export function TrackingTable(props: Props) {
  const cards = useCardLayout();
  if (cards) return <TrackingCards {...props} />;
  return (
    <Table.ScrollContainer minWidth={880}>
      <Table highlightOnHover verticalSpacing="sm" aria-label="Trackings" data-testid="trackings-table" layout="fixed">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={160}>Status</Table.Th>
            <Table.Th w="18%">Tracking Number and Title</Table.Th>
            <Table.Th w={96}>Courier</Table.Th>
            <Table.Th>Origin</Table.Th>
            <Table.Th>Destination</Table.Th>
            <Table.Th w={112}>Expected</Table.Th>
            <Table.Th w="22%">Last Check Point</Table.Th>
            <Table.Th w={48}>
              <span className="sr-only" style={{ position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)' }}>
                Actions
              </span>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {props.trackings.map((t) => (
            <TrackingRow key={t.tid} t={t} props={props} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
