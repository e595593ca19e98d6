import { Anchor, Button, Drawer, Group, SimpleGrid, Stack, Table, Tabs, Text, Timeline, Title } from '@mantine/core';
import { IconEdit, IconExternalLink, IconMapPinPlus } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { AddressView, ShipmentView } from '@shiptrail/contract';
import { StatusBadge } from '../../../components/status-badge';
import { statusColor } from '../../../config/status';
import { formatDate, formatDateTime, statusLabel } from '../../../lib/format';
import { ProofOfDelivery } from './proof-of-delivery';
import { LazyMap } from '../../../components/map/lazy-map';
import { DETAIL_ZOOM, shipmentCenter, shipmentLayers } from './shipment-map';
import { DetailField } from '../../../components/detail-field';

/** The shipment's route on a small map, at the detail zoom on its last known point; nothing when unplaced. */
function PanelMap({ s }: { s: ShipmentView }) {
  const center = shipmentCenter(s);
  if (!center) return null;
  const { markers, line } = shipmentLayers(s, false);
  return (
    <div data-testid="shipment-panel-map">
      <LazyMap label={`Map of ${s.tid}`} center={center} zoom={DETAIL_ZOOM} height={240} markers={markers} lines={line ? [line] : []} />
    </div>
  );
}

function Address({ a }: { a: AddressView }) {
  return (
    <SimpleGrid cols={2} spacing="md">
      <DetailField label="Name" value={a.name} />
      <DetailField label="Company" value={a.company} />
      <DetailField label="Address 1" value={a.address1} />
      <DetailField label="Address 2" value={a.address2} />
      <DetailField label="City" value={a.city} />
      <DetailField label="State" value={a.state} />
      <DetailField label="Zip" value={a.zip} />
      <DetailField label="Country" value={a.country} />
      <DetailField label="Email" value={a.email} />
      <DetailField label="Phone" value={a.phone} />
      {a.lat != null && a.long != null && <DetailField label="Position" value={`${a.lat}, ${a.long}`} />}
    </SimpleGrid>
  );
}

export function ShipmentPanel(props: {
  shipment: ShipmentView | null;
  asCourier: boolean;
  onClose: () => void;
  onEdit: (s: ShipmentView) => void;
  onCheckpoint: (s: ShipmentView) => void;
}) {
  const s = props.shipment;
  const publicPath = s ? `/track/${s.uid}/${encodeURIComponent(s.tid)}` : '';
  return (
    <Drawer opened={!!s} onClose={props.onClose} position="right" size="lg" title={<Text fw={700}>Shipment details</Text>}>
      {s && (
        <Stack gap="md" data-testid="shipment-panel">
          <Group justify="space-between" align="flex-start" wrap="nowrap">
            <div style={{ minWidth: 0 }}>
              <Title order={2} fz="lg" ff="monospace" style={{ wordBreak: 'break-all' }}>
                {s.tid}
              </Title>
              <Text size="sm" c="dimmed">
                {[s.courier || s.courierEmail, s.orderId && `Order ${s.orderId}`].filter(Boolean).join(' · ')}
              </Text>
            </div>
            <StatusBadge status={s.status} size="lg" />
          </Group>
          <Group gap="xs">
            <Button size="xs" variant="light" leftSection={<IconMapPinPlus size={14} />} onClick={() => props.onCheckpoint(s)}>
              Add checkpoint
            </Button>
            {!props.asCourier && (
              <Button size="xs" variant="light" leftSection={<IconEdit size={14} />} onClick={() => props.onEdit(s)}>
                Edit
              </Button>
            )}
          </Group>
          <Tabs defaultValue="details" keepMounted={false}>
            <Tabs.List>
              <Tabs.Tab value="details">Details</Tabs.Tab>
              <Tabs.Tab value="checkpoints">Checkpoints ({s.checkpoints.length})</Tabs.Tab>
              <Tabs.Tab value="destination">Destination</Tabs.Tab>
              <Tabs.Tab value="origin">Origin</Tabs.Tab>
              <Tabs.Tab value="parcels">Parcels ({s.parcels.length})</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="details" pt="md">
              <PanelMap s={s} />
              <SimpleGrid cols={2} spacing="md" mt="md">
                <DetailField label="Status" value={statusLabel(s.status)} />
                <DetailField label="Order ID" value={s.orderId} />
                <DetailField label="Courier" value={s.courier} />
                <DetailField label="Courier email" value={s.courierEmail} />
                <DetailField label="Expected" value={formatDate(s.expected)} />
                <DetailField label="Last update" value={formatDateTime(s.updatedAt)} />
                <DetailField label="Created" value={formatDateTime(s.createdAt)} />
              </SimpleGrid>
              <Stack gap={2} mt="md">
                <DetailField label="Note" value={s.message} />
              </Stack>
              <Anchor component={Link} to={publicPath} target="_blank" size="sm" mt="lg" display="inline-block">
                <Group gap={4}>
                  Public tracking page <IconExternalLink size={14} />
                </Group>
              </Anchor>
            </Tabs.Panel>
            <Tabs.Panel value="checkpoints" pt="md">
              {s.checkpoints.length === 0 ? (
                <Text c="dimmed" size="sm">
                  No checkpoints yet.
                </Text>
              ) : (
                <Timeline active={0} bulletSize={14} lineWidth={2} aria-label="Checkpoints">
                  {s.checkpoints.map((c) => (
                    <Timeline.Item
                      key={c.id}
                      color={statusColor(c.status)}
                      title={
                        <Text fw={600} size="sm">
                          {statusLabel(c.status)}
                        </Text>
                      }
                    >
                      {c.message && <Text size="sm">{c.message}</Text>}
                      <Text size="xs" c="dimmed">
                        {[c.location, formatDateTime(c.time), c.by?.name && `by ${c.by.name}`].filter(Boolean).join(' · ')}
                      </Text>
                      {c.proof && <ProofOfDelivery tid={s.tid} checkpoint={c} />}
                    </Timeline.Item>
                  ))}
                </Timeline>
              )}
            </Tabs.Panel>
            <Tabs.Panel value="destination" pt="md">
              <Address a={s.destination} />
            </Tabs.Panel>
            <Tabs.Panel value="origin" pt="md">
              <Address a={s.origin} />
            </Tabs.Panel>
            <Tabs.Panel value="parcels" pt="md">
              {s.parcels.length === 0 ? (
                <Text c="dimmed" size="sm">
                  No parcels listed.
                </Text>
              ) : (
                <Table.ScrollContainer minWidth={420}>
                  <Table aria-label="Parcels" verticalSpacing={6}>
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Name</Table.Th>
                        <Table.Th ta="right">Qty</Table.Th>
                        <Table.Th>Size (L × W × H)</Table.Th>
                        <Table.Th ta="right">Weight</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {s.parcels.map((p, i) => (
                        <Table.Tr key={p.id || i}>
                          <Table.Td>{p.name}</Table.Td>
                          <Table.Td ta="right">{p.quantity}</Table.Td>
                          <Table.Td>
                            {p.length} × {p.width} × {p.height} {p.distanceUnit}
                          </Table.Td>
                          <Table.Td ta="right">
                            {p.weight} {p.weightUnit}
                          </Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
              )}
            </Tabs.Panel>
          </Tabs>
        </Stack>
      )}
    </Drawer>
  );
}
