import { Alert, Button, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { IconBrandGoogle } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { googleLogin, type GoogleCodeBody } from '../api/google-login';
import { startSession } from '../../../lib/start-session';
import { recaptchaToken } from '../../../lib/recaptcha';

/**
 * The return from Google (spec §2): the code is used to log in when the address has login=1, otherwise to
 * register. Shows the server's status and message.
 */
export function GoogleReturnPanel({ body, isLogin, onDone }: { body: GoogleCodeBody; isLogin: boolean; onDone: () => void }) {
  const navigate = useNavigate();
  const started = useRef(false);
  const mutation = useMutation({
    mutationFn: async (b: GoogleCodeBody) => googleLogin({ ...b, recaptcha: await recaptchaToken() }),
    onSuccess: (env) => {
      const to = startSession(env.payload);
      setTimeout(() => navigate(to), 900);
    },
  });
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    mutation.mutate(body);
  }, [body, mutation]);

  return (
    <Paper p="xl" shadow="md" maw={480} mx="auto" aria-live="polite" data-testid="google-return">
      <Stack gap="md" align="center" ta="center">
        <IconBrandGoogle size={36} />
        <Title order={3}>{isLogin ? 'Logging in with Google' : 'Signing up with Google'}</Title>
        {mutation.isPending || mutation.isIdle ? (
          <Group gap="sm">
            <Loader size="sm" />
            <Text c="dimmed">Verifying your Google account…</Text>
          </Group>
        ) : (
          <Alert w="100%" color={mutation.isSuccess ? 'teal' : 'red'} title={mutation.isSuccess ? 'success' : 'fail'}>
            {mutation.isSuccess ? mutation.data.message : mutation.error?.message}
          </Alert>
        )}
        {mutation.isError && (
          <Button variant="default" onClick={onDone}>
            Back to the log in form
          </Button>
        )}
      </Stack>
    </Paper>
  );
}
