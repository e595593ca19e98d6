import { Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { recoverParams } from '@shiptrail/contract';
import { useState } from 'react';
import { recoverPassword } from '../api/recover';
import { StatusBox, type FormStatus } from '../../../components/status-box';
import { zodResolver } from '../../../lib/zod-resolver';

export function RecoverForm({ onBack }: { onBack: () => void }) {
  const [status, setStatus] = useState<FormStatus | null>(null);
  const form = useForm({
    mode: 'controlled',
    initialValues: { email: '' },
    validate: zodResolver(recoverParams),
    validateInputOnBlur: true,
  });
  const mutation = useMutation({
    mutationFn: (v: { email: string }) => recoverPassword(v.email.trim()),
    onSuccess: (env) => setStatus({ status: 'success', message: env.message }),
    onError: (e) => setStatus({ status: 'fail', message: e.message || 'Error' }),
  });
  return (
    <form onSubmit={form.onSubmit((v) => mutation.mutate(v))} noValidate aria-label="Recover password">
      <Stack gap="md">
        <Text size="sm" c="dimmed">
          Enter the email you signed up with and we will send you a link to choose a new password.
        </Text>
        <StatusBox value={status} titles={{ success: 'Check your email', fail: 'Could not send the link' }} />
        <TextInput label="Email" type="email" autoComplete="email" required {...form.getInputProps('email')} />
        <Button type="submit" size="md" loading={mutation.isPending} disabled={!form.isValid() || mutation.isPending}>
          Send reset link
        </Button>
        <Anchor component="button" type="button" size="sm" onClick={onBack} ta="center">
          Back to log in
        </Anchor>
      </Stack>
    </form>
  );
}
