import { Anchor, Button, CopyButton, Drawer, Group, SimpleGrid, Stack, Tabs, Text, Title } from '@mantine/core';
import { IconCheck, IconCopy, IconEdit, IconExternalLink, IconRefresh, IconTrash, IconTruckDelivery } from '@tabler/icons-react';
import { Link } from 'react-router';
import { describeEstimate, type TrackingView } from '@shiptrail/contract';
import { ActionButton } from '../../../components/action-button';
import { StatusBadge } from '../../../components/status-badge';
import { CheckpointTimeline } from '../../../components/checkpoint-timeline';
import { courierName, formatDate, formatDateTime } from '../../../lib/format';
import { DetailField } from '../../../components/detail-field';
import { EstimateZone } from '../../../components/estimate-zone';

export function TrackingPanel(props: {
  tracking: TrackingView | null;
  uid?: string;
  isCompany: boolean;
  onClose: () => void;
  onEdit: (t: TrackingView) => void;
  onRefresh: (tid: string) => void;
  onDelivered: (tid: string) => void;
  onDelete: (tid: string) => void;
  busy: boolean;
}) {
  const t = props.tracking;
  const uid = t?.uid ?? props.uid;
  const publicPath = t && uid ? `/track/${uid}/${encodeURIComponent(t.tid)}` : null;
  return (
    <Drawer opened={!!t} onClose={props.onClose} position="right" size="lg" title={<Text fw={700}>Tracking details</Text>}>
      {t && (
        <Stack gap="md">
          <Group justify="space-between" align="flex-start" wrap="nowrap">
            <div style={{ minWidth: 0 }}>
              <Title order={2} fz="lg" style={{ wordBreak: 'break-all' }}>
                {t.tid}
              </Title>
              <Text size="sm" c="dimmed">
                {courierName(t.courier)}
                {t.title ? ` · ${t.title}` : ''}
              </Text>
            </div>
            <StatusBadge status={t.status} size="lg" />
          </Group>
          <Group gap="xs">
            <ActionButton icon={IconEdit} onClick={() => props.onEdit(t)} disabled={props.busy}>
              Edit
            </ActionButton>
            <ActionButton icon={IconRefresh} onClick={() => props.onRefresh(t.tid)} disabled={props.busy}>
              Refresh now
            </ActionButton>
            <ActionButton
              icon={IconTruckDelivery}
              color="teal"
              onClick={() => props.onDelivered(t.tid)}
              disabled={props.busy || t.status === 'Delivered'}
            >
              Mark delivered
            </ActionButton>
            <ActionButton icon={IconTrash} color="red" onClick={() => props.onDelete(t.tid)} disabled={props.busy}>
              Delete
            </ActionButton>
          </Group>
          <Tabs defaultValue="details">
            <Tabs.List>
              <Tabs.Tab value="details">Details</Tabs.Tab>
              <Tabs.Tab value="checkpoints">Checkpoints ({t.checkpoints.length})</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="details" pt="md">
              <SimpleGrid cols={2} spacing="md">
                <DetailField label="Origin" value={t.origin} />
                <DetailField label="Destination" value={t.destination} />
                <DetailField label="Expected" value={t.estimatedDelivery ? null : formatDate(t.expected)}>
                  {t.estimatedDelivery && (
                    <>
                      <span data-testid="panel-expected">{describeEstimate(t.estimatedDelivery).replace(/^Expected /, '')}</span>
                      <EstimateZone estimate={t.estimatedDelivery} testId="panel-expected-zone" inText />
                    </>
                  )}
                </DetailField>
                <DetailField label="Last update" value={formatDateTime(t.updatedAt)} />
                <DetailField label="Added" value={formatDateTime(t.createdAt)} />
                <DetailField label="Courier" value={courierName(t.courier)} />
                <DetailField label="Carrier updates" value={t.pushed ? 'Pushed by the carrier' : 'Polled'} />
                <DetailField label="Last heard from the carrier" value={t.lastHeardAt ? formatDateTime(t.lastHeardAt) : 'Not yet'} />
                {props.isCompany && (
                  <>
                    <DetailField label="Title" value={t.title} />
                    <DetailField label="Order ID" value={t.orderId} />
                    <DetailField label="Customer" value={t.customer} />
                    <DetailField label="Notify email" value={t.notify.email} />
                    <DetailField label="Notify phone" value={t.notify.phone} />
                  </>
                )}
              </SimpleGrid>
              {t.note && (
                <Stack gap={2} mt="md">
                  <DetailField label="Note" value={t.note} />
                </Stack>
              )}
              {publicPath && (
                <Group gap="xs" mt="lg">
                  <Anchor component={Link} to={publicPath} target="_blank" size="sm">
                    <Group gap={4}>
                      Public tracking page <IconExternalLink size={14} />
                    </Group>
                  </Anchor>
                  <CopyButton value={`${window.location.origin}${publicPath}`}>
                    {({ copied, copy }) => (
                      <Button
                        size="compact-xs"
                        variant="subtle"
                        onClick={copy}
                        leftSection={copied ? <IconCheck size={12} /> : <IconCopy size={12} />}
                      >
                        {copied ? 'Copied' : 'Copy link'}
                      </Button>
                    )}
                  </CopyButton>
                </Group>
              )}
            </Tabs.Panel>
            <Tabs.Panel value="checkpoints" pt="md">
              <CheckpointTimeline checkpoints={t.checkpoints} />
            </Tabs.Panel>
          </Tabs>
        </Stack>
      )}
    </Drawer>
  );
}
