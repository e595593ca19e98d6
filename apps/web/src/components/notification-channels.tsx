import { Checkbox, SimpleGrid, Table, Text, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import {
  MSG,
  TRIGGER_LABELS,
  TRIGGER_EVENTS,
  receiveNotificationSchema,
  sendNotificationSchema,
  type TriggerEvent,
} from '@shiptrail/contract';
import { zodResolver } from '../lib/zod-resolver';

export type ChannelKey = 'email' | 'phone' | 'webhook';
export interface ChannelValue {
  triggers: Record<TriggerEvent, boolean>;
  endpoint: string;
}
export type ChannelValues = Partial<Record<ChannelKey, ChannelValue>>;

const CHANNEL_LABELS: Record<ChannelKey, string> = { email: 'Email', phone: 'SMS', webhook: 'Webhook' };
const ENDPOINT_LABELS: Record<ChannelKey, string> = { email: 'Email address', phone: 'Phone number (US)', webhook: 'Webhook URL' };
const ENDPOINT_PLACEHOLDERS: Record<ChannelKey, string> = {
  email: 'alerts@example.com',
  phone: '(212) 555-0142',
  webhook: 'https://example.com/hooks/shiptrail',
};

const emptyTriggers = () => Object.fromEntries(TRIGGER_EVENTS.map((t) => [t, false])) as Record<TriggerEvent, boolean>;

/** Server settings → form values; email and phone endpoints default to the profile's (product rules §4). */
export function toChannelValues(
  source: Partial<Record<ChannelKey, { triggers: Record<string, boolean>; endpoint: string }>> | undefined,
  channels: ChannelKey[],
  defaults: { email?: string; phone?: string } = {},
): ChannelValues {
  const out: ChannelValues = {};
  for (const c of channels) {
    const s = source?.[c];
    const endpoint =
      s?.endpoint && s.endpoint !== 'false'
        ? s.endpoint
        : c === 'email'
          ? (defaults.email ?? '')
          : c === 'phone'
            ? (defaults.phone ?? '')
            : '';
    out[c] = { triggers: { ...emptyTriggers(), ...(s?.triggers ?? {}) } as Record<TriggerEvent, boolean>, endpoint };
  }
  return out;
}

const anyOn = (v: ChannelValue | undefined) => !!v && Object.values(v.triggers).some(Boolean);

/**
 * Validation of product rules §5 for receive settings: the contract's rules, and in the form an endpoint is asked for
 * every channel with a ticked trigger ('Email is required', 'Phone Number is required', 'Url is required').
 */
export function validateReceive(values: ChannelValues): Record<string, string> {
  const errors = zodResolver(receiveNotificationSchema)(values);
  if (anyOn(values.email) && !values.email?.endpoint.trim()) errors['email.endpoint'] ??= MSG.emailRequired;
  if (anyOn(values.phone) && !values.phone?.endpoint.trim()) errors['phone.endpoint'] ??= MSG.phoneNumberRequired;
  if (anyOn(values.webhook) && !values.webhook?.endpoint.trim()) errors['webhook.endpoint'] ??= MSG.urlRequired;
  return errors;
}
export const validateSend = (values: ChannelValues) => zodResolver(sendNotificationSchema)(values);

/** A trigger × channel grid of checkboxes, with an endpoint field per channel when `withEndpoints`. */
export function NotificationChannels<T extends ChannelValues>({
  form,
  channels,
  withEndpoints,
  caption,
}: {
  form: UseFormReturnType<T>;
  channels: ChannelKey[];
  withEndpoints: boolean;
  caption?: string;
}) {
  return (
    <>
      <Table.ScrollContainer minWidth={300}>
        <Table verticalSpacing={8} withRowBorders aria-label={caption ?? 'Alert triggers'}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Event</Table.Th>
              {channels.map((c) => (
                <Table.Th key={c} ta="center" w={84} px={4}>
                  {CHANNEL_LABELS[c]}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {TRIGGER_EVENTS.map((t) => (
              <Table.Tr key={t}>
                <Table.Td>
                  <Text size="sm">{TRIGGER_LABELS[t]}</Text>
                </Table.Td>
                {channels.map((c) => (
                  <Table.Td key={c} ta="center" px={4}>
                    <Checkbox
                      aria-label={`${CHANNEL_LABELS[c]} on ${TRIGGER_LABELS[t]}`}
                      style={{ display: 'inline-block' }}
                      {...form.getInputProps(`${c}.triggers.${t}`, { type: 'checkbox' })}
                    />
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {withEndpoints && (
        <SimpleGrid cols={{ base: 1, sm: channels.length }} mt="md">
          {channels.map((c) => (
            <TextInput
              key={c}
              label={ENDPOINT_LABELS[c]}
              placeholder={ENDPOINT_PLACEHOLDERS[c]}
              type={c === 'email' ? 'email' : c === 'phone' ? 'tel' : 'url'}
              {...form.getInputProps(`${c}.endpoint`)}
            />
          ))}
        </SimpleGrid>
      )}
    </>
  );
}
