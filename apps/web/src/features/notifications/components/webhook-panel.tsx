import { ActionIcon, Button, CopyButton, Group, Paper, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import type { UserInfo } from '@shiptrail/contract';
import { IconCheck, IconCopy, IconEye, IconEyeOff, IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import { formatDateTime } from '../../../lib/format';
import { useRegenerateWebhookSecret } from '../api/regenerate-webhook-secret';
import { DeliveryLog } from './delivery-log';

export function WebhookSecret({ info }: { info: UserInfo }) {
  const [shown, setShown] = useState(false);
  const regenerate = useRegenerateWebhookSecret();
  const secret = regenerate.data?.payload?.webhookSecret ?? info.settings.webhookSecret ?? '';
  const until = regenerate.data?.payload?.previousSecretValidUntil;
  return (
    <Paper p="lg">
      <Title order={3} fz="md" mb={4}>
        Webhook signing secret
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Every webhook carries webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks, HMAC-SHA256). Verify the
        signature with this secret.
      </Text>
      <Group gap="xs" align="flex-end">
        <TextInput
          aria-label="Webhook secret"
          readOnly
          value={shown ? secret : secret ? `${secret.slice(0, 6)}${'•'.repeat(20)}` : 'Not generated yet'}
          style={{ flex: '1 1 260px' }}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          rightSection={
            <ActionIcon
              variant="subtle"
              color="gray"
              onClick={() => setShown((s) => !s)}
              aria-label={shown ? 'Hide secret' : 'Show secret'}
            >
              {shown ? <IconEyeOff size={16} /> : <IconEye size={16} />}
            </ActionIcon>
          }
        />
        <CopyButton value={secret}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? 'Copied' : 'Copy'}>
              <Button
                variant="light"
                onClick={copy}
                leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
                disabled={!secret}
              >
                Copy
              </Button>
            </Tooltip>
          )}
        </CopyButton>
        <Button
          variant="light"
          color="red"
          leftSection={<IconRefresh size={16} />}
          onClick={() => regenerate.mutate(undefined)}
          loading={regenerate.isPending}
        >
          Regenerate
        </Button>
      </Group>
      {until && (
        <Text size="xs" c="dimmed" mt="xs">
          The previous secret still signs deliveries until {formatDateTime(until)}.
        </Text>
      )}
    </Paper>
  );
}

/** The webhook part of the notification settings: the signing secret and the delivery log. */
export function WebhookPanel({ info }: { info: UserInfo }) {
  return (
    <Stack gap="lg">
      <WebhookSecret info={info} />
      <Paper p="lg">
        <Title order={3} fz="md" mb="sm">
          Webhook deliveries
        </Title>
        <DeliveryLog channel="webhook" limit={50} />
      </Paper>
    </Stack>
  );
}
