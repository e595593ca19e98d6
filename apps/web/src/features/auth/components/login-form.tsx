import { Anchor, Button, Divider, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { loginPasswordRequest } from '@shiptrail/contract';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { login } from '../api/login';
import { GoogleButton } from './google-button';
import { StatusBox, type FormStatus } from '../../../components/status-box';
import { zodResolver } from '../../../lib/zod-resolver';
import { applyServerErrors } from '../../../lib/notify';
import { startSession } from '../../../lib/start-session';
import { recaptchaToken, usePreloadRecaptcha } from '../../../lib/recaptcha';

export function LoginForm({ onRecover }: { onRecover: () => void }) {
  const navigate = useNavigate();
  const [status, setStatus] = useState<FormStatus | null>(null);
  usePreloadRecaptcha();
  const form = useForm({
    mode: 'controlled',
    initialValues: { email: '', password: '' },
    validate: zodResolver(loginPasswordRequest),
    validateInputOnBlur: true,
  });
  const mutation = useMutation({
    mutationFn: async (v: { email: string; password: string }) => login({ ...v, recaptcha: await recaptchaToken() }),
    onSuccess: (env) => {
      setStatus({ status: 'success', message: env.message });
      navigate(startSession(env.payload));
    },
    onError: (e) => {
      setStatus({ status: 'fail', message: e.message || 'Error' });
      applyServerErrors(form, e);
    },
  });
  return (
    <form onSubmit={form.onSubmit((v) => mutation.mutate(v))} noValidate aria-label="Log in">
      <Stack gap="md">
        <StatusBox value={status} titles={{ success: 'Signed in', fail: 'Could not sign in' }} />
        <TextInput label="Email" type="email" autoComplete="email" required {...form.getInputProps('email')} />
        <PasswordInput label="Password" autoComplete="current-password" required {...form.getInputProps('password')} />
        <Group justify="flex-end" mt={-8}>
          <Anchor component="button" type="button" size="sm" onClick={onRecover}>
            Forgot password?
          </Anchor>
        </Group>
        <Button type="submit" size="md" loading={mutation.isPending} disabled={!form.isValid() || mutation.isPending}>
          Log in
        </Button>
        <Divider label="or" labelPosition="center" />
        <GoogleButton mode="login" onStatus={setStatus} />
      </Stack>
    </form>
  );
}
