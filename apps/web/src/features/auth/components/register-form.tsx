import {
  Anchor,
  Button,
  Checkbox,
  Divider,
  Group,
  PasswordInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { signupRequest, type SignupRequest } from '@shiptrail/contract';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { signup } from '../api/signup';
import { GoogleButton } from './google-button';
import { StatusBox, type FormStatus } from '../../../components/status-box';
import { zodResolver } from '../../../lib/zod-resolver';
import { applyServerErrors } from '../../../lib/notify';
import { startSession } from '../../../lib/start-session';
import { timeZone } from '../../../lib/format';
import { recaptchaToken, usePreloadRecaptcha } from '../../../lib/recaptcha';
import { NewPasswordInput } from '../../../components/new-password-input';

interface Values {
  firstName: string;
  lastName: string;
  email: string;
  userType: 'person' | 'company';
  password: string;
  repassword: string;
  promocode: string;
  terms: boolean;
}

/**
 * The sign-up: the form's values with the browser's time zone, a reCAPTCHA token and the referrer; on success the
 * new session starts and the app goes where it says; on failure the server's words go to the status box and fields.
 */
function useSignup(form: UseFormReturnType<Values>, setStatus: (s: FormStatus) => void, referrer: string | undefined) {
  const navigate = useNavigate();
  return useMutation({
    mutationFn: async (v: Values) => {
      const body: SignupRequest = {
        ...v,
        terms: v.terms as true,
        timeZone: timeZone(),
        recaptcha: await recaptchaToken(),
        referrer: referrer || undefined,
        promocode: v.promocode || undefined,
      };
      return signup(body);
    },
    onSuccess: (env) => {
      setStatus({ status: 'success', message: env.message });
      navigate(startSession(env.payload));
    },
    onError: (e) => {
      setStatus({ status: 'fail', message: e.message || 'Error!' });
      applyServerErrors(form, e);
    },
  });
}

export function RegisterForm({ promocode, referrer, onShowTerms }: { promocode?: string; referrer?: string; onShowTerms: () => void }) {
  const [status, setStatus] = useState<FormStatus | null>(null);
  usePreloadRecaptcha();
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: {
      firstName: '',
      lastName: '',
      email: '',
      userType: 'person',
      password: '',
      repassword: '',
      promocode: promocode ?? '',
      terms: false,
    },
    validate: zodResolver(signupRequest),
    validateInputOnBlur: true,
  });
  const mutation = useSignup(form, setStatus, referrer);
  return (
    <form onSubmit={form.onSubmit((v) => mutation.mutate(v))} noValidate aria-label="Create an account">
      <Stack gap="md">
        <StatusBox value={status} titles={{ success: 'Account created', fail: 'Could not create the account' }} />
        <SegmentedControl
          fullWidth
          aria-label="Account type"
          data={[
            { value: 'person', label: 'Personal' },
            { value: 'company', label: 'Business' },
          ]}
          {...form.getInputProps('userType')}
        />
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
          <TextInput label="First name" autoComplete="given-name" {...form.getInputProps('firstName')} />
          <TextInput label="Last name" autoComplete="family-name" {...form.getInputProps('lastName')} />
        </SimpleGrid>
        <TextInput label="Email" type="email" autoComplete="email" required {...form.getInputProps('email')} />
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="md">
          <NewPasswordInput label="Password" {...form.getInputProps('password')} />
          <PasswordInput label="Repeat password" autoComplete="new-password" required {...form.getInputProps('repassword')} />
        </SimpleGrid>
        <TextInput
          label="Promo code"
          description={referrer ? 'You were invited by a friend' : undefined}
          {...form.getInputProps('promocode')}
        />
        <Checkbox
          label={
            <Text size="sm" span>
              I agree to the{' '}
              <Anchor component="button" type="button" size="sm" onClick={onShowTerms}>
                terms of service
              </Anchor>
            </Text>
          }
          {...form.getInputProps('terms', { type: 'checkbox' })}
        />
        <Button type="submit" size="md" loading={mutation.isPending} disabled={!form.isValid() || mutation.isPending}>
          Create free account
        </Button>
        <Divider label="or" labelPosition="center" />
        <Group grow>
          <GoogleButton mode="signup" onStatus={setStatus} />
        </Group>
      </Stack>
    </form>
  );
}
