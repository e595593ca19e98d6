import { Button, Group, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { MSG, sandboxNonceFor } from '@shiptrail/contract';
import { useAddCard } from '../api/billing';

/**
 * The sandbox gateway's card form. The card number is turned into Braintree's matching test nonce here, in the
 * browser, and only the nonce is sent: our server never sees a card number.
 */
export function SandboxCardForm({ defaultName, onSaved }: { defaultName: { firstName: string; lastName: string }; onSaved?: () => void }) {
  const add = useAddCard();
  const form = useForm({
    initialValues: { firstName: defaultName.firstName, lastName: defaultName.lastName, number: '', expiry: '', cvv: '', postalCode: '' },
    validate: {
      firstName: (v) => (v.trim() ? null : MSG.firstNameRequired),
      lastName: (v) => (v.trim() ? null : MSG.lastNameRequired),
      number: (v) => (v.replace(/[\s-]/g, '').length >= 12 ? null : 'Card number is required'),
      expiry: (v) => (/^(0[1-9]|1[0-2])\s*\/\s*\d{2}$/.test(v.trim()) ? null : 'Expiry as MM/YY'),
      cvv: (v) => (/^\d{3,4}$/.test(v.trim()) ? null : 'CVV is 3 or 4 digits'),
      postalCode: (v) => (v.trim().length >= 5 ? null : 'Postal code has at least 5 characters'),
    },
  });
  return (
    <form
      onSubmit={form.onSubmit((v) => {
        const nonce = sandboxNonceFor(v.number);
        add.mutate(nonce, {
          onSuccess: () => {
            form.setFieldValue('number', '');
            form.setFieldValue('cvv', '');
            onSaved?.();
          },
        });
      })}
    >
      <Stack maw={520}>
        <SimpleGrid cols={2}>
          <TextInput label="First name" {...form.getInputProps('firstName')} />
          <TextInput label="Last name" {...form.getInputProps('lastName')} />
        </SimpleGrid>
        <TextInput
          label="Card number"
          placeholder="4111 1111 1111 1111"
          autoComplete="cc-number"
          inputMode="numeric"
          {...form.getInputProps('number')}
        />
        <SimpleGrid cols={3}>
          <TextInput label="Expiry" placeholder="MM/YY" autoComplete="cc-exp" {...form.getInputProps('expiry')} />
          <TextInput label="CVV" placeholder="123" autoComplete="cc-csc" {...form.getInputProps('cvv')} />
          <TextInput label="Postal code" placeholder="94107" autoComplete="postal-code" {...form.getInputProps('postalCode')} />
        </SimpleGrid>
        <Text size="xs" c="dimmed">
          Sandbox test cards: 4111 1111 1111 1111 (approved), 4000 1111 1111 1115 (declined).
        </Text>
        <Group>
          <Button type="submit" loading={add.isPending}>
            Save card
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
