import { NumberInput, SimpleGrid, Stack, Tabs, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { approachSettingsSchema, type ApproachSettings, type UserInfo } from '@shiptrail/contract';
import { zodResolver } from '../../../../lib/zod-resolver';
import type { ReactNode } from 'react';
import { useUpdateUser } from '../../api/update-user';
import { NotificationChannels } from '../../../../components/notification-channels';
import { FormPanel } from '../../../../components/form-panel';
import { SubTabs } from '../../../../components/sub-tabs';
import { sendSettings, useReceiveForm, useSendForm } from './channel-forms';
import { applyServerErrors } from '../../../../lib/notify';
import { CustomerMessagesHeld } from '../../../../components/customer-messages-held';
import { ApiError } from '../../../../lib/api-client';
import { receiveFormErrors } from '../../api/receive-errors';

function ReceiveForm({ info }: { info: UserInfo }) {
  const update = useUpdateUser();
  const form = useReceiveForm(info);
  return (
    <FormPanel
      label="Notifications you receive"
      onSubmit={form.onSubmit((v) =>
        update.mutate(
          { settings: { receiveNotification: v, emailContent: null } },
          {
            // The refusal goes under its field and every other choice stays as typed, to fix and save again.
            onError: (e) => {
              if (e instanceof ApiError) form.setErrors(receiveFormErrors(e.errors));
            },
            onSuccess: () => form.resetDirty(),
          },
        ),
      )}
      busy={update.isPending}
      blocked={!form.isValid()}
      submit="Save"
      align="end"
    >
      <Text size="sm" c="dimmed" mb="md">
        Alerts about your own trackings. Email and webhooks are free; each SMS is charged to your balance.
      </Text>
      <NotificationChannels form={form} channels={['email', 'phone', 'webhook']} withEndpoints caption="Notifications you receive" />
    </FormPanel>
  );
}

function SendForm({ info }: { info: UserInfo }) {
  const update = useUpdateUser();
  const form = useSendForm(info);
  return (
    <FormPanel
      label="Notifications sent to your customers"
      onSubmit={form.onSubmit((v) =>
        update.mutate(
          { settings: { sendNotification: sendSettings(v), emailContent: null } },
          { onError: (e) => applyServerErrors(form, e) },
        ),
      )}
      busy={update.isPending}
      submit="Save"
      align="end"
    >
      <Text size="sm" c="dimmed" mb="md">
        Updates sent to your customers, at the email and phone you set on each tracking.
      </Text>
      <CustomerMessagesHeld />
      <NotificationChannels
        form={form}
        channels={['email', 'phone']}
        withEndpoints={false}
        caption="Notifications sent to your customers"
      />
    </FormPanel>
  );
}

/**
 * When a company's customers hear "about N stops away" and "arriving now" (decision 129); the triggers themselves
 * are rows of the grid above.
 */
function ApproachForm({ info }: { info: UserInfo }) {
  const update = useUpdateUser();
  const form = useForm<ApproachSettings>({
    mode: 'controlled',
    initialValues: info.settings.approach,
    validate: zodResolver(approachSettingsSchema),
    validateInputOnBlur: true,
  });
  return (
    <FormPanel
      label="When the courier is coming"
      onSubmit={form.onSubmit((v) =>
        update.mutate({ settings: { approach: v, emailContent: null } }, { onError: (e) => applyServerErrors(form, e) }),
      )}
      busy={update.isPending}
      submit="Save"
      align="end"
    >
      <Title order={3} fz="md" mb={4}>
        When the courier is coming
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        For shipments out for delivery whose courier shares their location: each message goes once per shipment.
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <NumberInput
          label="Courier a few stops away: this many stops or fewer"
          min={1}
          max={20}
          clampBehavior="none"
          allowDecimal={false}
          {...form.getInputProps('stops')}
        />
        <NumberInput
          label="Courier arriving now: within (meters)"
          min={25}
          max={5000}
          step={25}
          clampBehavior="none"
          allowDecimal={false}
          {...form.getInputProps('meters')}
        />
      </SimpleGrid>
    </FormPanel>
  );
}

/** `webhooks` is shown under the receive settings (the page passes the notifications feature's webhook panel). */
export function TriggersPanel({
  info,
  subTab,
  onSubTab,
  webhooks,
}: {
  info: UserInfo;
  subTab?: string;
  onSubTab: (t: string) => void;
  webhooks?: ReactNode;
}) {
  const isCompany = info.profile.userType === 'company';
  const receive = (
    <Stack gap="lg">
      <ReceiveForm info={info} />
      {webhooks}
    </Stack>
  );
  // A person's customers are told too (decision 100): the customer form under the receive form, no sub-tabs.
  if (!isCompany)
    return (
      <Stack gap="lg">
        {receive}
        <SendForm info={info} />
      </Stack>
    );
  return (
    <SubTabs current={subTab} onChange={onSubTab} tabs={{ sendNotifications: 'Send to customers', receiveNotification: 'Receive' }}>
      <Tabs.Panel value="sendNotifications">
        <Stack gap="lg">
          <SendForm info={info} />
          <ApproachForm info={info} />
        </Stack>
      </Tabs.Panel>
      <Tabs.Panel value="receiveNotification">{receive}</Tabs.Panel>
    </SubTabs>
  );
}
