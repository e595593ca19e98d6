import { Button, Group, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { MSG, cardExpiry, sandboxNonceFor } from '@shiptrail/contract';
import { applyServerErrors } from '../../../lib/notify';
import { useAddCard } from '../api/billing';

/**
 * The sandbox gateway's card form. The card number is turned into Braintree's matching test nonce here, in the
 * browser, and only the nonce is sent: our server never sees a card number.
 */
const EMPTY_CARD = { number: '', expirationDate: '', cvv: '', postalCode: '' };
const expiry = cardExpiry();

export function SandboxCardForm({ defaultName, onSaved }: { defaultName: { firstName: string; lastName: string }; onSaved?: () => void }) {
  const add = useAddCard();
  const form = useForm({
    mode: 'controlled',
    initialValues: { firstName: defaultName.firstName, lastName: defaultName.lastName, ...EMPTY_CARD },
    validate: {
      firstName: (v) => (v.trim() ? null : MSG.firstNameRequired),
      lastName: (v) => (v.trim() ? null : MSG.lastNameRequired),
      number: (v) => (v.replace(/[\s-]/g, '').length >= 12 ? null : 'Card number is required'),
      // The contract's check, the server's words: MM/YY, and not a month that has passed.
      expirationDate: (v) => {
        const r = expiry.safeParse(v);
        return r.success ? null : (r.error.issues[0]?.message ?? MSG.cardExpiryFormat);
      },
      cvv: (v) => (/^\d{3,4}$/.test(v.trim()) ? null : 'CVV is 3 or 4 digits'),
      postalCode: (v) => (v.trim().length >= 5 ? null : 'Postal code has at least 5 characters'),
    },
    validateInputOnBlur: true,
  });
  return (
    <form
      noValidate
      aria-label="Card"
      onSubmit={form.onSubmit((v) => {
        const nonce = sandboxNonceFor(v.number);
        add.mutate(
          { paymentMethodToken: nonce, expirationDate: v.expirationDate },
          {
            onSuccess: () => {
              // Emptied for a next card, with no error shown for the fields just emptied.
              form.setValues(EMPTY_CARD);
              form.resetTouched();
              form.clearErrors();
              onSaved?.();
            },
            onError: (e) => applyServerErrors(form, e),
          },
        );
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
          <TextInput label="Expiry" placeholder="MM/YY" autoComplete="cc-exp" {...form.getInputProps('expirationDate')} />
          <TextInput label="CVV" placeholder="123" autoComplete="cc-csc" {...form.getInputProps('cvv')} />
          <TextInput label="Postal code" placeholder="94107" autoComplete="postal-code" {...form.getInputProps('postalCode')} />
        </SimpleGrid>
        <Text size="xs" c="dimmed">
          Sandbox test cards: 4111 1111 1111 1111 (approved), 4000 1111 1111 1115 (declined when saved).
        </Text>
        <Group>
          <Button type="submit" loading={add.isPending} disabled={!form.isValid() || add.isPending}>
            Save card
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
