import { SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';
import { CustomerMessagesHeld } from '../../../components/customer-messages-held';
import { UsPhoneInput } from '../../../components/us-phone-input';

type DetailsPath = 'title' | 'orderId' | 'customer' | 'notify.email' | 'notify.phone' | 'note';

/** The optional details of a tracking (title, order, customer, notify contacts, note), shared by the add and edit forms. */
export function TrackingDetailsFields({ form }: { form: { getInputProps: (path: DetailsPath) => GetInputPropsReturnType } }) {
  return (
    <Stack gap="md">
      <TextInput label="Title" placeholder="Blue running shoes" {...form.getInputProps('title')} />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label="Order ID" {...form.getInputProps('orderId')} />
        <TextInput label="Customer" {...form.getInputProps('customer')} />
        <TextInput label="Notify email" type="email" placeholder="customer@example.com" {...form.getInputProps('notify.email')} />
        <UsPhoneInput label="Notify phone" {...form.getInputProps('notify.phone')} />
      </SimpleGrid>
      <CustomerMessagesHeld />
      <Textarea label="Note" autosize minRows={2} {...form.getInputProps('note')} />
    </Stack>
  );
}
