import { Button, Group, Paper, PasswordInput, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { passwordUpdateForm } from '@shiptrail/contract';
import { useUpdatePassword } from '../../api/update-password';
import { zodResolver } from '../../../../lib/zod-resolver';
import { applyServerErrors } from '../../../../lib/notify';
import { NewPasswordInput } from '../../../../components/new-password-input';

export function PasswordForm() {
  const update = useUpdatePassword();
  const form = useForm({
    mode: 'controlled',
    initialValues: { password: '', newpassword: '', repassword: '' },
    validate: zodResolver(passwordUpdateForm),
    validateInputOnBlur: true,
  });
  return (
    <Paper p="lg" maw={520}>
      <form
        noValidate
        aria-label="Change password"
        onSubmit={form.onSubmit((v) =>
          update.mutate(
            { password: v.password, newpassword: v.newpassword },
            { onSuccess: () => form.reset(), onError: (e) => applyServerErrors(form, e) },
          ),
        )}
      >
        <Stack>
          <PasswordInput label="Current password" autoComplete="current-password" required {...form.getInputProps('password')} />
          <NewPasswordInput label="New password" {...form.getInputProps('newpassword')} />
          <PasswordInput label="Confirm new password" autoComplete="new-password" required {...form.getInputProps('repassword')} />
          <Group justify="flex-end">
            <Button type="submit" loading={update.isPending} disabled={!form.isValid() || update.isPending}>
              Update password
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
