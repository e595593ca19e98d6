import { Box, Button, Checkbox, Group, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import { IconEdit, IconMapPinPlus } from '@tabler/icons-react';
import type { ShipmentView } from '@shiptrail/contract';
import { StatusBadge } from '../../../components/status-badge';
import { useCardLayout } from '../../../components/card-layout';
import { OpenTidButton } from '../../../components/open-tid-button';
import { formatDateTime, statusLabel } from '../../../lib/format';

type Props = {
  shipments: ShipmentView[];
  /** A courier adds checkpoints instead of editing, and does not select for printing. */
  asCourier: boolean;
  selected: ReadonlySet<string>;
  onToggle: (tid: string) => void;
  onToggleAll: (on: boolean) => void;
  onOpen: (s: ShipmentView) => void;
  onEdit: (s: ShipmentView) => void;
  onCheckpoint: (s: ShipmentView) => void;
};

export function lastCheckPointText(s: ShipmentView) {
  const c = s.lastCheckPoint;
  if (!c) return '';
  return [statusLabel(c.status), c.location].filter(Boolean).join(' · ');
}

const courierText = (s: ShipmentView) => s.courier || s.courierEmail || 'Unassigned';

/** "Jo Customer" and "Santa Monica, CA 90403": who receives it and where it goes, for the table. */
export const recipientText = (s: ShipmentView) => s.destination.name || s.destination.company || '—';
export const destinationText = (s: ShipmentView) => {
  const d = s.destination;
  return [d.city, [d.state, d.zip].filter(Boolean).join(' ')].filter(Boolean).join(', ') || '—';
};

function RowAction({ s, ...props }: Props & { s: ShipmentView }) {
  if (props.asCourier) {
    return (
      <Button
        size="xs"
        variant="light"
        leftSection={<IconMapPinPlus size={14} />}
        onClick={() => props.onCheckpoint(s)}
        aria-label={`Add checkpoint to ${s.tid}`}
      >
        Checkpoint
      </Button>
    );
  }
  return (
    <Button size="xs" variant="light" leftSection={<IconEdit size={14} />} onClick={() => props.onEdit(s)} aria-label={`Edit ${s.tid}`}>
      Edit
    </Button>
  );
}

/** One card per shipment on narrow screens (a courier's phone): status, number, destination, last checkpoint. */
function ShipmentCards(props: Props) {
  return (
    <Stack component="ul" gap={0} m={0} p={0} aria-label="Shipments" data-testid="shipments-cards" style={{ listStyle: 'none' }}>
      {props.shipments.map((s) => (
        <Box
          component="li"
          key={s.tid}
          px="md"
          py="sm"
          data-tid={s.tid}
          data-status={s.status}
          style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}
        >
          <Group justify="space-between" wrap="nowrap" gap="xs" mb={6}>
            <Group gap="xs" wrap="nowrap">
              {!props.asCourier && (
                <Checkbox aria-label={`Select ${s.tid}`} checked={props.selected.has(s.tid)} onChange={() => props.onToggle(s.tid)} />
              )}
              <StatusBadge status={s.status} />
            </Group>
            <RowAction s={s} {...props} />
          </Group>
          <UnstyledButton onClick={() => props.onOpen(s)} aria-label={`Open ${s.tid}`} display="block" w="100%">
            <Text fw={600} size="sm" ff="monospace">
              {s.tid}
            </Text>
            <Text size="sm" c="dimmed">
              {[s.orderId && `Order ${s.orderId}`, courierText(s)].filter(Boolean).join(' · ')}
            </Text>
            <Text size="sm" mt={4}>
              To {[s.destination.name, s.destination.address1, s.destination.city].filter(Boolean).join(', ') || '—'}
            </Text>
            {s.message && (
              <Text size="sm" c="dimmed" lineClamp={2}>
                {s.message}
              </Text>
            )}
            <Text size="xs" c="dimmed" mt={2}>
              {lastCheckPointText(s) || 'No checkpoints yet'}
              {s.lastCheckPoint ? ` · ${formatDateTime(s.lastCheckPoint.time)}` : ''}
            </Text>
          </UnstyledButton>
        </Box>
      ))}
    </Stack>
  );
}

export function ShipmentTable(props: Props) {
  const cards = useCardLayout();
  if (cards) return <ShipmentCards {...props} />;
  const all = props.shipments.length > 0 && props.shipments.every((s) => props.selected.has(s.tid));
  const some = props.shipments.some((s) => props.selected.has(s.tid));
  return (
    <Table.ScrollContainer minWidth={1040}>
      <Table highlightOnHover verticalSpacing="sm" aria-label="Shipments" data-testid="shipments-table" layout="fixed">
        <Table.Thead>
          <Table.Tr>
            {!props.asCourier && (
              <Table.Th w={44}>
                <Checkbox
                  aria-label="Select all shipments"
                  checked={all}
                  indeterminate={some && !all}
                  onChange={() => props.onToggleAll(!all)}
                />
              </Table.Th>
            )}
            {/* Fixed layout: the columns with a width take it, Last check point takes what is left (~110 px at 1366). */}
            <Table.Th w={124}>Status</Table.Th>
            <Table.Th w="8%">Order ID</Table.Th>
            <Table.Th w={152}>Tracking Number</Table.Th>
            <Table.Th w="11%">Recipient</Table.Th>
            <Table.Th w="12%">Destination</Table.Th>
            <Table.Th w="10%">Courier</Table.Th>
            <Table.Th w="11%">Note</Table.Th>
            <Table.Th>Last check point</Table.Th>
            <Table.Th w={props.asCourier ? 132 : 92}>{props.asCourier ? 'Update' : 'Edit'}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {props.shipments.map((s) => (
            <Table.Tr key={s.tid} data-tid={s.tid} data-status={s.status} style={{ cursor: 'pointer' }} onClick={() => props.onOpen(s)}>
              {!props.asCourier && (
                <Table.Td onClick={(e) => e.stopPropagation()}>
                  <Checkbox aria-label={`Select ${s.tid}`} checked={props.selected.has(s.tid)} onChange={() => props.onToggle(s.tid)} />
                </Table.Td>
              )}
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <StatusBadge status={s.status} />
              </Table.Td>
              <Table.Td>
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {s.orderId || '—'}
                </Text>
              </Table.Td>
              <Table.Td>
                <OpenTidButton tid={s.tid} onOpen={() => props.onOpen(s)}>
                  <Text fw={600} size="sm" ff="monospace">
                    {s.tid}
                  </Text>
                </OpenTidButton>
              </Table.Td>
              <Table.Td data-col="recipient">
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {recipientText(s)}
                </Text>
              </Table.Td>
              <Table.Td data-col="destination">
                <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                  {destinationText(s)}
                </Text>
              </Table.Td>
              <Table.Td data-col="courier">
                <Text size="sm" style={{ overflowWrap: 'anywhere' }} c={s.courier || s.courierEmail ? undefined : 'dimmed'}>
                  {courierText(s)}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" lineClamp={2}>
                  {s.message || '—'}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{lastCheckPointText(s) || '—'}</Text>
                {s.lastCheckPoint && (
                  <Text size="xs" c="dimmed">
                    {formatDateTime(s.lastCheckPoint.time)}
                  </Text>
                )}
              </Table.Td>
              <Table.Td onClick={(e) => e.stopPropagation()}>
                <RowAction s={s} {...props} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
