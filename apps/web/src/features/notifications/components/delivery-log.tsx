import { ActionIcon, Badge, Box, Center, Code, Collapse, Group, Loader, Stack, Table, Text, Tooltip } from '@mantine/core';
import type { NotificationLogItem } from '@shiptrail/contract';
import { IconChevronDown, IconChevronRight, IconMail, IconMessage, IconSend, IconWebhook } from '@tabler/icons-react';
import { Fragment, useState } from 'react';
import { useNotificationLog } from '../api/get-notification-log';
import { useResendNotification } from '../api/resend-notification';
import { formatDateTime, statusLabel } from '../../../lib/format';
import { useCardLayout } from '../../../components/card-layout';

const DELIVERY_COLORS: Record<string, string> = {
  pending: 'gray',
  sending: 'blue',
  retrying: 'yellow',
  sent: 'teal',
  delivered: 'green',
  failed: 'red',
  skipped_balance: 'orange',
  disabled: 'gray',
  held: 'yellow',
  limited: 'orange',
};
const CHANNEL_ICONS = { email: IconMail, sms: IconMessage, webhook: IconWebhook } as const;
const CHANNEL_NAMES: Record<string, string> = { email: 'Email', sms: 'SMS', webhook: 'Webhook' };
/** What the empty log says, true to the channel it shows. */
const EMPTY_TEXT: Record<string, { title: string; text: string }> = {
  all: {
    title: 'No notifications yet',
    text: 'When a tracking changes status, each alert you chose appears here with its delivery result.',
  },
  email: { title: 'No emails sent yet', text: 'When a tracking changes status, each email alert appears here with its delivery result.' },
  sms: { title: 'No SMS sent yet', text: 'When a tracking changes status, each SMS alert appears here with its delivery result.' },
  webhook: {
    title: 'No webhook deliveries yet',
    text: 'Once webhook alerts are on and a tracking changes status, each call to your endpoint appears here with its response.',
  },
};

function Detail({ item }: { item: NotificationLogItem }) {
  return (
    <Stack gap="xs" p="md" bg="var(--mantine-color-gray-0)">
      {item.lastError && (
        <Text size="sm" c="red.8">
          Last error: {item.lastError}
        </Text>
      )}
      {item.deliveries.map((d, i) => (
        <Text key={i} size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
          {formatDateTime(d.at)} · {d.httpStatus ?? 'no response'} · {d.durationMs} ms{d.error ? ` · ${d.error}` : ''}
        </Text>
      ))}
      {item.body && (
        <Code block style={{ maxHeight: 200, overflow: 'auto' }}>
          {item.body}
        </Code>
      )}
    </Stack>
  );
}

function Channel({ item }: { item: NotificationLogItem }) {
  const Icon = CHANNEL_ICONS[item.channel] ?? IconSend;
  return (
    <Group gap={6} wrap="nowrap">
      <Icon size={16} aria-hidden />
      <Text size="sm">{CHANNEL_NAMES[item.channel] ?? item.channel}</Text>
      {item.audience === 'send' && (
        <Badge size="xs" variant="outline" color="gray">
          customer
        </Badge>
      )}
    </Group>
  );
}

function DeliveryBadge({ item }: { item: NotificationLogItem }) {
  return (
    <Badge variant="light" color={DELIVERY_COLORS[item.deliveryStatus] ?? 'gray'}>
      {item.deliveryStatus.replace('_', ' ')}
    </Badge>
  );
}

/** A log entry as a card, for narrow screens where seven columns do not fit. */
function Card({ item }: { item: NotificationLogItem }) {
  const [open, setOpen] = useState(false);
  const resend = useResendNotification();
  const detail = item.deliveries.length > 0 || item.body || item.lastError;
  return (
    <Box component="li" py="sm" data-testid="delivery-row" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Channel item={item} />
        <Group gap={4} wrap="nowrap">
          <DeliveryBadge item={item} />
          <ActionIcon
            variant="subtle"
            aria-label={`Resend notification for ${item.tid}`}
            onClick={() => resend.mutate(item.id)}
            loading={resend.isPending}
          >
            <IconSend size={16} />
          </ActionIcon>
        </Group>
      </Group>
      <Text size="sm" mt={4} style={{ overflowWrap: 'anywhere' }}>
        {item.recipient}
      </Text>
      <Text size="sm">
        <Text span ff="monospace" size="sm">
          {item.tid}
        </Text>
        {' · '}
        {item.previousStatus ? `${statusLabel(item.previousStatus)} → ` : ''}
        {statusLabel(item.status)}
      </Text>
      <Group justify="space-between" gap="xs">
        <Text size="xs" c="dimmed">
          {formatDateTime(item.createdAt)} · {item.attempts} {item.attempts === 1 ? 'attempt' : 'attempts'}
        </Text>
        {detail ? (
          <ActionIcon
            variant="subtle"
            color="gray"
            size="sm"
            onClick={() => setOpen((o) => !o)}
            aria-label={open ? 'Hide attempts' : 'Show attempts'}
            aria-expanded={open}
          >
            {open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
          </ActionIcon>
        ) : null}
      </Group>
      {detail && (
        <Collapse expanded={open}>
          <Detail item={item} />
        </Collapse>
      )}
    </Box>
  );
}

function Row({ item }: { item: NotificationLogItem }) {
  const [open, setOpen] = useState(false);
  const resend = useResendNotification();
  const detail = item.deliveries.length > 0 || item.body || item.lastError;
  return (
    <Fragment>
      <Table.Tr data-testid="delivery-row">
        <Table.Td>
          {detail ? (
            <ActionIcon
              variant="subtle"
              color="gray"
              size="sm"
              onClick={() => setOpen((o) => !o)}
              aria-label={open ? 'Hide attempts' : 'Show attempts'}
              aria-expanded={open}
            >
              {open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
            </ActionIcon>
          ) : null}
        </Table.Td>
        <Table.Td>
          <Text size="sm">{formatDateTime(item.createdAt)}</Text>
        </Table.Td>
        <Table.Td>
          <Channel item={item} />
        </Table.Td>
        <Table.Td>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
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
          <DeliveryBadge item={item} />
          <Text size="xs" c="dimmed">
            {item.attempts} {item.attempts === 1 ? 'attempt' : 'attempts'}
          </Text>
        </Table.Td>
        <Table.Td>
          <Tooltip label="Send again">
            <ActionIcon
              variant="subtle"
              aria-label={`Resend notification for ${item.tid}`}
              onClick={() => resend.mutate(item.id)}
              loading={resend.isPending}
            >
              <IconSend size={16} />
            </ActionIcon>
          </Tooltip>
        </Table.Td>
      </Table.Tr>
      {detail && (
        <Table.Tr style={{ display: open ? undefined : 'none' }}>
          <Table.Td colSpan={7} p={0}>
            <Collapse expanded={open}>
              <Detail item={item} />
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
  const cards = useCardLayout();
  if (isLoading) {
    return (
      <Center py="xl">
        <Loader size="sm" />
      </Center>
    );
  }
  if (isError)
    return (
      <Text c="red.8" size="sm">
        {(error as Error).message}
      </Text>
    );
  if (!items.length) {
    return (
      <Box py="xl" ta="center">
        <Text fw={600}>{EMPTY_TEXT[channel ?? 'all']!.title}</Text>
        <Text size="sm" c="dimmed">
          {EMPTY_TEXT[channel ?? 'all']!.text}
        </Text>
      </Box>
    );
  }
  if (cards) {
    return (
      <Stack component="ul" gap={0} m={0} p={0} aria-label="Notification deliveries" style={{ listStyle: 'none' }}>
        {items.map((i) => (
          <Card key={i.id} item={i} />
        ))}
      </Stack>
    );
  }
  return (
    <Table.ScrollContainer minWidth={720}>
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
