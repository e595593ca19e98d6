import { ActionIcon, Button, CopyButton, Group, Paper, Stack, Tabs, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { UserInfo } from '@shiptrail/contract';
import { IconCheck, IconCopy, IconEye, IconEyeOff, IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import { useUpdateUser } from '../../api/update-user';
import { useRegenerateWebhookSecret } from '../../../notifications/api/regenerate-webhook-secret';
import { DeliveryLog } from '../../../notifications/components/delivery-log';
import { NotificationChannels, toChannelValues, validateReceive, validateSend, type ChannelValues } from '../../../../components/notification-channels';
import { applyServerErrors } from '../../../../lib/notify';

function ReceiveForm({ info }: { info: UserInfo }) {
  const update = useUpdateUser();
  const form = useForm<ChannelValues>({
    mode: 'controlled',
    initialValues: toChannelValues(info.settings.receiveNotification, ['email', 'phone', 'webhook'], { email: info.profile.email, phone: info.profile.phone }),
    validate: validateReceive,
    validateInputOnBlur: true,
  });
  return (
    <Paper p="lg">
      <form
        noValidate
        aria-label="Notifications you receive"
        onSubmit={form.onSubmit((v) =>
          update.mutate({ settings: { receiveNotification: v, emailContent: null } }, { onError: (e) => applyServerErrors(form, e), onSuccess: () => form.resetDirty() }),
        )}
      >
        <Text size="sm" c="dimmed" mb="md">
          Alerts about your own trackings. Email and webhooks are free; each SMS is charged to your balance.
        </Text>
        <NotificationChannels form={form} channels={['email', 'phone', 'webhook']} withEndpoints caption="Notifications you receive" />
        <Group justify="flex-end" mt="md">
          <Button type="submit" loading={update.isPending} disabled={!form.isValid() || update.isPending}>
            Save
          </Button>
        </Group>
      </form>
    </Paper>
  );
}

function SendForm({ info }: { info: UserInfo }) {
  const update = useUpdateUser();
  const form = useForm<ChannelValues>({
    mode: 'controlled',
    initialValues: toChannelValues(info.settings.sendNotification, ['email', 'phone']),
    validate: validateSend,
  });
  return (
    <Paper p="lg">
      <form
        noValidate
        aria-label="Notifications sent to your customers"
        onSubmit={form.onSubmit((v) =>
          update.mutate(
            { settings: { sendNotification: { email: { triggers: v.email!.triggers }, phone: { triggers: v.phone!.triggers } }, emailContent: null } },
            { onError: (e) => applyServerErrors(form, e) },
          ),
        )}
      >
        <Text size="sm" c="dimmed" mb="md">
          Updates sent to your customers, at the email and phone you set on each tracking.
        </Text>
        <NotificationChannels form={form} channels={['email', 'phone']} withEndpoints={false} caption="Notifications sent to your customers" />
        <Group justify="flex-end" mt="md">
          <Button type="submit" loading={update.isPending} disabled={update.isPending}>
            Save
          </Button>
        </Group>
      </form>
    </Paper>
  );
}

function WebhookSecret({ info }: { info: UserInfo }) {
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
        Every webhook carries webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks, HMAC-SHA256).
        Verify the signature with this secret.
      </Text>
      <Group gap="xs" align="flex-end">
        <TextInput
          aria-label="Webhook secret"
          readOnly
          value={shown ? secret : secret ? `${secret.slice(0, 6)}${'•'.repeat(20)}` : 'Not generated yet'}
          style={{ flex: '1 1 260px' }}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          rightSection={
            <ActionIcon variant="subtle" color="gray" onClick={() => setShown((s) => !s)} aria-label={shown ? 'Hide secret' : 'Show secret'}>
              {shown ? <IconEyeOff size={16} /> : <IconEye size={16} />}
            </ActionIcon>
          }
        />
        <CopyButton value={secret}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? 'Copied' : 'Copy'}>
              <Button variant="light" onClick={copy} leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />} disabled={!secret}>
                Copy
              </Button>
            </Tooltip>
          )}
        </CopyButton>
        <Button variant="light" color="red" leftSection={<IconRefresh size={16} />} onClick={() => regenerate.mutate(undefined)} loading={regenerate.isPending}>
          Regenerate
        </Button>
      </Group>
      {until && (
        <Text size="xs" c="dimmed" mt="xs">
          The previous secret still signs deliveries until {new Date(until).toLocaleString()}.
        </Text>
      )}
    </Paper>
  );
}

export function TriggersPanel({ info, subTab, onSubTab }: { info: UserInfo; subTab?: string; onSubTab: (t: string) => void }) {
  const isCompany = info.profile.userType === 'company';
  const receive = (
    <Stack gap="lg">
      <ReceiveForm info={info} />
      <WebhookSecret info={info} />
      <Paper p="lg">
        <Title order={3} fz="md" mb="sm">
          Webhook deliveries
        </Title>
        <DeliveryLog channel="webhook" limit={50} />
      </Paper>
    </Stack>
  );
  if (!isCompany) return receive;
  const tab = subTab === 'receiveNotification' ? 'receiveNotification' : 'sendNotifications';
  return (
    <Tabs value={tab} onChange={(v) => v && onSubTab(v)} variant="pills" keepMounted={false}>
      <Tabs.List mb="md">
        <Tabs.Tab value="sendNotifications">Send to customers</Tabs.Tab>
        <Tabs.Tab value="receiveNotification">Receive</Tabs.Tab>
      </Tabs.List>
      <Tabs.Panel value="sendNotifications">
        <SendForm info={info} />
      </Tabs.Panel>
      <Tabs.Panel value="receiveNotification">{receive}</Tabs.Panel>
    </Tabs>
  );
}
