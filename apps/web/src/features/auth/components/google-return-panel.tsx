import { Alert, Button, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { IconBrandGoogle } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { googleLogin, type GoogleCodeBody } from '../api/google-login';
import { startSession } from '../../../lib/start-session';
import { recaptchaToken } from '../../../lib/recaptcha';
import { ApiError } from '../../../lib/api-client';
import { MSG } from '@shiptrail/contract/messages';

/**
 * What went wrong, for a person. A reply with field errors means the address Google sent the browser back to
 * was incomplete (no code or state): the field names mean nothing to the user, so say sign-in failed instead.
 */
function failureMessage(error: Error | null) {
  if (error instanceof ApiError && Object.keys(error.errors).length) return MSG.googleFailed;
  return error?.message || MSG.googleFailed;
}

/**
 * The return from Google (product rules §2): the code is used to log in when the address has login=1, otherwise to
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
          <Alert
            w="100%"
            role={mutation.isSuccess ? 'status' : 'alert'}
            color={mutation.isSuccess ? 'teal' : 'red'}
            title={
              mutation.isSuccess
                ? isLogin
                  ? 'Signed in'
                  : 'Account created'
                : isLogin
                  ? 'Could not sign in with Google'
                  : 'Could not sign up with Google'
            }
          >
            {mutation.isSuccess ? mutation.data.message : failureMessage(mutation.error)}
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
