import { Alert, Badge, Button, Group, List, Stack, Text } from '@mantine/core';
import { IconCloudOff, IconClockHour4, IconAlertTriangle } from '@tabler/icons-react';
import { statusLabel } from '../../../lib/format';
import { dismiss, type OutboxItem } from '../api/outbox';

const clock = (iso: string) => new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(new Date(iso));
const what = (i: OutboxItem) => `${statusLabel(i.status)} · ${i.tid} · ${clock(i.occurredAt)}`;

/**
 * What the courier's phone holds (decision 120): that it is offline, the actions waiting to be sent, and the ones
 * the server refused, each with the server's sentence, until the courier dismisses it.
 */
export function OutboxPanel({
  online,
  waiting,
  refused,
  savedAt,
}: {
  online: boolean;
  waiting: OutboxItem[];
  refused: OutboxItem[];
  /** When the stops shown were saved on the phone, when they are the phone's copy. */
  savedAt?: string;
}) {
  if (online && waiting.length === 0 && refused.length === 0 && !savedAt) return null;
  return (
    <Stack gap="sm" mb="md">
      {!online && (
        <Alert
          color="gray"
          variant="filled"
          icon={<IconCloudOff size={20} />}
          role="status"
          data-testid="offline-banner"
          title="You are offline"
        >
          What you record is kept on this phone and sent by itself when you are back online.
          {savedAt && ` Your stops as of ${clock(savedAt)}.`}
        </Alert>
      )}
      {online && savedAt && (
        <Alert color="gray" role="status" data-testid="stale-banner">
          Cannot reach Shiptrail right now: your stops as of {clock(savedAt)}, saved on this phone.
        </Alert>
      )}
      {waiting.length > 0 && (
        <Alert color="blue" icon={<IconClockHour4 size={20} />} data-testid="outbox-waiting" title={`Waiting to send: ${waiting.length}`}>
          <List size="sm" spacing={2} aria-label="Waiting to send">
            {waiting.map((i) => (
              <List.Item key={i.key} data-tid={i.tid}>
                {what(i)}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      {refused.length > 0 && (
        <Alert color="red" icon={<IconAlertTriangle size={20} />} data-testid="outbox-refused" title={`Not sent: ${refused.length}`}>
          <Stack gap="xs" component="ul" m={0} p={0} aria-label="Not sent" style={{ listStyle: 'none' }}>
            {refused.map((i) => (
              <Stack component="li" key={i.key} gap={4} data-tid={i.tid}>
                <Group gap="xs" wrap="wrap">
                  <Badge color="red" variant="light">
                    {statusLabel(i.status)}
                  </Badge>
                  <Text size="sm" ff="monospace">
                    {i.tid}
                  </Text>
                  <Text size="sm" c="dimmed">
                    {clock(i.occurredAt)}
                  </Text>
                </Group>
                <Text size="sm">{i.error}</Text>
                <Button
                  size="xs"
                  variant="default"
                  onClick={() => void dismiss(i)}
                  aria-label={`Dismiss ${what(i)}`}
                  style={{ alignSelf: 'flex-start' }}
                >
                  Dismiss
                </Button>
              </Stack>
            ))}
          </Stack>
        </Alert>
      )}
    </Stack>
  );
}
