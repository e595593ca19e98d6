import { ActionIcon, Badge, Box, Center, Code, Collapse, Group, Loader, Stack, Table, Text, Tooltip } from '@mantine/core';
import type { NotificationLogItem } from '@shiptrail/contract';
import { IconChevronDown, IconChevronRight, IconMail, IconMessage, IconSend, IconWebhook } from '@tabler/icons-react';
import { Fragment, useState } from 'react';
import { useNotificationLog } from '../api/get-notification-log';
import { useResendNotification } from '../api/resend-notification';
import { formatDateTime, statusLabel } from '../../../lib/format';

const DELIVERY_COLORS: Record<string, string> = {
  pending: 'gray',
  sending: 'blue',
  retrying: 'yellow',
  sent: 'teal',
  delivered: 'green',
  failed: 'red',
  skipped_balance: 'orange',
  disabled: 'gray',
};
const CHANNEL_ICONS = { email: IconMail, sms: IconMessage, webhook: IconWebhook } as const;

function Row({ item }: { item: NotificationLogItem }) {
  const [open, setOpen] = useState(false);
  const resend = useResendNotification();
  const Icon = CHANNEL_ICONS[item.channel] ?? IconSend;
  const detail = item.deliveries.length > 0 || item.body || item.lastError;
  return (
    <Fragment>
      <Table.Tr data-testid="delivery-row">
        <Table.Td>
          {detail ? (
            <ActionIcon variant="subtle" color="gray" size="sm" onClick={() => setOpen((o) => !o)} aria-label={open ? 'Hide attempts' : 'Show attempts'} aria-expanded={open}>
              {open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
            </ActionIcon>
          ) : null}
        </Table.Td>
        <Table.Td>
          <Text size="sm">{formatDateTime(item.createdAt)}</Text>
        </Table.Td>
        <Table.Td>
          <Group gap={6} wrap="nowrap">
            <Icon size={16} aria-hidden />
            <Text size="sm" tt="capitalize">
              {item.channel}
            </Text>
            {item.audience === 'send' && (
              <Badge size="xs" variant="outline" color="gray">
                customer
              </Badge>
            )}
          </Group>
        </Table.Td>
        <Table.Td>
          <Text size="sm" lineClamp={1} style={{ wordBreak: 'break-all' }}>
            {item.recipient}
          </Text>
        </Table.Td>
        <Table.Td>
          <Text size="sm" ff="monospace">
            {item.tid}
          </Text>
          <Text size="xs" c="dimmed">
            {item.previousStatus ? `${statusLabel(item.previousStatus)} → ` : ''}
            {statusLabel(item.status)}
          </Text>
        </Table.Td>
        <Table.Td>
          <Badge variant="light" color={DELIVERY_COLORS[item.deliveryStatus] ?? 'gray'}>
            {item.deliveryStatus.replace('_', ' ')}
          </Badge>
          <Text size="xs" c="dimmed">
            {item.attempts} {item.attempts === 1 ? 'attempt' : 'attempts'}
          </Text>
        </Table.Td>
        <Table.Td>
          <Tooltip label="Send again">
            <ActionIcon variant="subtle" aria-label={`Resend notification for ${item.tid}`} onClick={() => resend.mutate(item.id)} loading={resend.isPending}>
              <IconSend size={16} />
            </ActionIcon>
          </Tooltip>
        </Table.Td>
      </Table.Tr>
      {detail && (
        <Table.Tr style={{ display: open ? undefined : 'none' }}>
          <Table.Td colSpan={7} p={0}>
            <Collapse expanded={open}>
              <Stack gap="xs" p="md" bg="var(--mantine-color-gray-0)">
                {item.lastError && (
                  <Text size="sm" c="red.8">
                    Last error: {item.lastError}
                  </Text>
                )}
                {item.deliveries.map((d, i) => (
                  <Text key={i} size="xs" ff="monospace">
                    {formatDateTime(d.at)} · {d.httpStatus ?? 'no response'} · {d.durationMs} ms{d.error ? ` · ${d.error}` : ''}
                  </Text>
                ))}
                {item.body && (
                  <Code block style={{ maxHeight: 200, overflow: 'auto' }}>
                    {item.body}
                  </Code>
                )}
              </Stack>
            </Collapse>
          </Table.Td>
        </Table.Tr>
      )}
    </Fragment>
  );
}

/** The notification delivery log; `channel` narrows it (the settings page shows webhooks only). */
export function DeliveryLog({ channel, limit = 100 }: { channel?: NotificationLogItem['channel']; limit?: number }) {
  const { data, isLoading, isError, error } = useNotificationLog(limit);
  const items = (data ?? []).filter((i) => !channel || i.channel === channel);
  if (isLoading) {
    return (
      <Center py="xl">
        <Loader size="sm" />
      </Center>
    );
  }
  if (isError) return <Text c="red.8" size="sm">{(error as Error).message}</Text>;
  if (!items.length) {
    return (
      <Box py="xl" ta="center">
        <Text fw={600}>No notifications yet</Text>
        <Text size="sm" c="dimmed">
          When a tracking changes status, each alert you chose appears here with its delivery result.
        </Text>
      </Box>
    );
  }
  return (
    <Table.ScrollContainer minWidth={820}>
      <Table verticalSpacing="xs" aria-label="Notification deliveries">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={36} />
            <Table.Th>When</Table.Th>
            <Table.Th>Channel</Table.Th>
            <Table.Th>Recipient</Table.Th>
            <Table.Th>Tracking</Table.Th>
            <Table.Th>Delivery</Table.Th>
            <Table.Th w={48} />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((i) => (
            <Row key={i.id} item={i} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
