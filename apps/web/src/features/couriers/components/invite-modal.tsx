import { Button, Group, Modal, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { INVITATION_TTL_DAYS, createInvitationRequest } from '@shiptrail/contract';
import { applyServerErrors } from '../../../lib/notify';
import { UsPhoneInput } from '../../../components/us-phone-input';
import { zodResolver } from '../../../lib/zod-resolver';
import { useCreateInvitation } from '../api/invitations';

interface InviteValues {
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
}
const FIELDS = ['email', 'firstName', 'lastName', 'phone'] as const;
const toBody = (v: InviteValues) => ({
  email: v.email.trim(),
  firstName: v.firstName.trim(),
  lastName: v.lastName.trim(),
  phone: v.phone.trim() || undefined,
});

/** Invite a courier by email (and SMS when a phone is given): they choose their own password. Closes on success. */
export function InviteModal({ onClose, onAddWithPassword }: { onClose: () => void; onAddWithPassword: () => void }) {
  const form = useForm<InviteValues>({
    mode: 'controlled',
    initialValues: { email: '', firstName: '', lastName: '', phone: '' },
    validate: (v) => zodResolver(createInvitationRequest)(toBody(v)),
    validateInputOnBlur: true,
  });
  const create = useCreateInvitation(FIELDS);
  const submit = (v: InviteValues) => create.mutate(toBody(v), { onSuccess: onClose, onError: (e: Error) => applyServerErrors(form, e) });
  return (
    <Modal opened onClose={onClose} title="Invite courier" size="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label="Invite courier">
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            We send the courier a link, valid for {INVITATION_TTL_DAYS} days, where they choose their own password. They appear under
            Couriers once they accept.
          </Text>
          <TextInput label="Email" type="email" required autoComplete="off" data-autofocus {...form.getInputProps('email')} />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput label="First name" required autoComplete="off" {...form.getInputProps('firstName')} />
            <TextInput label="Last name" required autoComplete="off" {...form.getInputProps('lastName')} />
          </SimpleGrid>
          <UsPhoneInput
            label="Phone (optional)"
            note="The link goes by SMS too ($0.04 from your balance)."
            autoComplete="off"
            {...form.getInputProps('phone')}
          />
          <Group justify="space-between" mt="md" gap="xs">
            <Button variant="subtle" size="compact-sm" onClick={onAddWithPassword}>
              Set a password for them instead
            </Button>
            <Group gap="xs">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending} disabled={create.isPending || !form.isValid()}>
                Send invitation
              </Button>
            </Group>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
