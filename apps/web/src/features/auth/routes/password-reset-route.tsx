import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { LIMITS, passwordResetForm } from '@shiptrail/contract';
import { Link, useParams } from 'react-router';
import { resetPassword } from '../api/password-reset';
import { zodResolver } from '../../../lib/zod-resolver';

export default function PasswordResetRoute() {
  const { key = '' } = useParams();
  const form = useForm({
    mode: 'controlled',
    initialValues: { password: '', repassword: '' },
    validate: zodResolver(passwordResetForm),
    validateInputOnBlur: true,
  });
  const mutation = useMutation({ mutationFn: (v: { password: string }) => resetPassword({ password: v.password, verifycode: key }) });
  return (
    <Center mih="70vh" p="md">
      <Paper p="xl" shadow="md" radius="xl" maw={440} w="100%">
        <Title order={1} fz={26} mb={4}>
          Choose a new password
        </Title>
        <Text c="dimmed" size="sm" mb="lg">
          Use at least {LIMITS.signupPasswordMin} characters. You will log in with it from now on.
        </Text>
        {mutation.isSuccess ? (
          <Stack>
            <Alert color="teal" title="Password changed" data-testid="reset-result">
              {mutation.data.message}
            </Alert>
            <Button component={Link} to="/#tab-login">
              Log in
            </Button>
          </Stack>
        ) : (
          <form onSubmit={form.onSubmit((v) => mutation.mutate(v))} noValidate aria-label="Reset password">
            <Stack gap="md">
              {mutation.isError && (
                <Alert color="red" title="Could not change the password" data-testid="reset-result">
                  {mutation.error.message}
                </Alert>
              )}
              <PasswordInput label="New password" autoComplete="new-password" required {...form.getInputProps('password')} />
              <PasswordInput label="Confirm password" autoComplete="new-password" required {...form.getInputProps('repassword')} />
              <Button type="submit" loading={mutation.isPending} disabled={!form.isValid() || mutation.isPending}>
                Reset password
              </Button>
            </Stack>
          </form>
        )}
      </Paper>
    </Center>
  );
}
