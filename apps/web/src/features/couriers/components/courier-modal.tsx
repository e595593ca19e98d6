import { Button, Group, Modal, PasswordInput, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { MemberView } from '@shiptrail/contract';
import { applyServerErrors } from '../../../lib/notify';
import { UsPhoneInput } from '../../../components/us-phone-input';
import { useAddMember, useUpdateMember } from '../api/members';
import {
  ADD_FIELDS,
  EDIT_FIELDS,
  courierValuesOf,
  emptyCourier,
  toAddBody,
  toEditBody,
  validateAdd,
  validateEdit,
  type CourierValues,
} from '../api/courier-form';

/** Add (with a password the courier signs in with) or edit a courier. Closes on success. */
export function CourierModal({ member, onClose }: { member?: MemberView | null; onClose: () => void }) {
  const editing = !!member;
  const form = useForm<CourierValues>({
    mode: 'controlled',
    initialValues: member ? courierValuesOf(member) : emptyCourier(),
    validate: member ? validateEdit(member.uid) : validateAdd,
    validateInputOnBlur: true,
  });
  const add = useAddMember(ADD_FIELDS);
  const update = useUpdateMember(EDIT_FIELDS);
  const pending = add.isPending || update.isPending;
  const submit = (v: CourierValues) => {
    const opts = { onSuccess: onClose, onError: (e: Error) => applyServerErrors(form, e) };
    if (member) update.mutate(toEditBody(member.uid, v), opts);
    else add.mutate(toAddBody(v), opts);
  };
  const title = editing ? 'Edit courier' : 'Add New Courier';
  return (
    <Modal opened onClose={onClose} title={title} size="lg">
      <form onSubmit={form.onSubmit(submit)} noValidate aria-label={title}>
        <Stack gap="sm">
          <TextInput label="Email" type="email" required autoComplete="off" data-autofocus {...form.getInputProps('email')} />
          <input type="hidden" name="role" value={form.values.role} />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput label="First name" required autoComplete="off" {...form.getInputProps('firstName')} />
            <TextInput label="Last name" required autoComplete="off" {...form.getInputProps('lastName')} />
          </SimpleGrid>
          <UsPhoneInput label="Phone" required autoComplete="off" {...form.getInputProps('phone')} />
          {!editing && (
            <PasswordInput
              label="Password"
              required
              description="The courier signs in with this email and password."
              autoComplete="new-password"
              {...form.getInputProps('password')}
            />
          )}
          <Group justify="flex-end" mt="md">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={pending} disabled={pending || !form.isValid()}>
              {editing ? 'Save' : 'Add courier'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
