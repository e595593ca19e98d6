import { ActionIcon, Box, Menu, Table, Text } from '@mantine/core';
import { IconDots, IconEdit, IconRefresh, IconTrash, IconTruckDelivery } from '@tabler/icons-react';
import { lastCheckPointText, type Tracking } from '../api/types';
import { StatusBadge } from '../../../components/status-badge';
import { courierName, formatDateTime } from '../../../lib/format';

const norm = (s: string) => s.replace(/\s/g, '').toUpperCase();

export function TrackingTable(props: {
  trackings: Tracking[];
  highlightTid: string | null;
  onOpen: (t: Tracking) => void;
  onEdit: (t: Tracking) => void;
  onRefresh: (tid: string) => void;
  onDelivered: (tid: string) => void;
  onDelete: (tid: string) => void;
}) {
  return (
    <Table.ScrollContainer minWidth={960}>
      <Table highlightOnHover verticalSpacing="sm" aria-label="Trackings" data-testid="trackings-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={150}>Status</Table.Th>
            <Table.Th>Tracking Number and Title</Table.Th>
            <Table.Th>Courier</Table.Th>
            <Table.Th>Origin</Table.Th>
            <Table.Th>Destination</Table.Th>
            <Table.Th>Last Check Point</Table.Th>
            <Table.Th w={48}>
              <span className="sr-only" style={{ position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)' }}>
                Actions
              </span>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {props.trackings.map((t) => (
            <Table.Tr
              key={t.tid}
              className={props.highlightTid && norm(props.highlightTid) === norm(t.tid) ? 'row-new' : undefined}
              data-tid={t.tid}
              data-status={t.status ?? ''}
              style={{ cursor: 'pointer' }}
              onClick={() => props.onOpen(t)}
            >
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <StatusBadge status={t.status} />
              </Table.Td>
              <Table.Td>
                <Box
                  component="button"
                  onClick={(e: React.MouseEvent) => {
                    e.stopPropagation();
                    props.onOpen(t);
                  }}
                  style={{ all: 'unset', cursor: 'pointer', display: 'block' }}
                  aria-label={`Open ${t.tid}`}
                >
                  <Text fw={600} size="sm" ff="monospace">
                    {t.tid}
                  </Text>
                  {t.title && (
                    <Text size="xs" c="dimmed" lineClamp={1}>
                      {t.title}
                    </Text>
                  )}
                </Box>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{courierName(t.courier)}</Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" lineClamp={1}>
                  {t.origin || '—'}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" lineClamp={1}>
                  {t.destination || '—'}
                </Text>
              </Table.Td>
              <Table.Td maw={280}>
                <Text size="sm" lineClamp={1}>
                  {lastCheckPointText(t) || '—'}
                </Text>
                <Text size="xs" c="dimmed">
                  {formatDateTime(t.updatedAt)}
                </Text>
              </Table.Td>
              <Table.Td onClick={(e) => e.stopPropagation()}>
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
                    <Menu.Item leftSection={<IconTruckDelivery size={16} />} onClick={() => props.onDelivered(t.tid)} disabled={t.status === 'Delivered'}>
                      Mark delivered
                    </Menu.Item>
                    <Menu.Divider />
                    <Menu.Item color="red" leftSection={<IconTrash size={16} />} onClick={() => props.onDelete(t.tid)}>
                      Delete
                    </Menu.Item>
                  </Menu.Dropdown>
                </Menu>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
