import { Button, Center, Loader, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleCheck, IconCircleX } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { verifyEmail } from '../api/verify-email';
import { logout } from '../../../lib/logout';
import { endSession, startSession } from '../../../lib/start-session';
import { getSession, useSession } from '../../../lib/session';
import { useResendVerification } from '../../../lib/resend-verification';

type State = { step: 'waiting' } | { step: 'success'; message: string } | { step: 'fail'; message: string };

/**
 * Email verification: verify, then replace any session with the one the server returns. A link that fails
 * leaves the session alone, so a signed-in user can ask for a new link right here; the resend call needs
 * the account's token, so a signed-out user is sent to log in first (the dashboard offers the resend).
 */
export default function VerifyRoute() {
  const { key = '' } = useParams();
  const navigate = useNavigate();
  const session = useSession();
  const resend = useResendVerification();
  const [state, setState] = useState<State>({ step: 'waiting' });
  const ran = useRef(false);
  useEffect(() => {
    if (ran.current) return;
    ran.current = true;
    void (async () => {
      let env: Awaited<ReturnType<typeof verifyEmail>>;
      try {
        env = await verifyEmail(key);
      } catch (e) {
        setState({ step: 'fail', message: (e as Error).message || 'Verification Error' });
        return;
      }
      if (getSession()) {
        await logout().catch(() => undefined);
        endSession();
      }
      setState({ step: 'success', message: env.message });
      startSession(env.payload);
      setTimeout(() => navigate('/account/dashboard', { replace: true }), 1200);
    })();
  }, [key, navigate]);

  return (
    <Center mih="70vh" p="md">
      <Paper p="xl" shadow="md" radius="xl" maw={460} w="100%" aria-live="polite">
        <Stack align="center" ta="center" gap="md">
          {state.step === 'waiting' && (
            <>
              <Loader />
              <Title order={1} fz={24}>
                Verifying your email…
              </Title>
              <Text c="dimmed">This takes a second.</Text>
            </>
          )}
          {state.step === 'success' && (
            <>
              <ThemeIcon size={64} radius="xl" color="teal" variant="light">
                <IconCircleCheck size={36} />
              </ThemeIcon>
              <Title order={1} fz={24}>
                Email verified
              </Title>
              <Text c="dimmed" data-testid="verify-message">
                {state.message}
              </Text>
              <Text size="sm" c="dimmed">
                Taking you to your dashboard…
              </Text>
            </>
          )}
          {state.step === 'fail' && (
            <>
              <ThemeIcon size={64} radius="xl" color="red" variant="light">
                <IconCircleX size={36} />
              </ThemeIcon>
              <Title order={1} fz={24}>
                We could not verify this link
              </Title>
              <Text c="dimmed" data-testid="verify-message">
                {state.message}
              </Text>
              {session ? (
                <>
                  <Button onClick={() => resend.mutate(undefined)} loading={resend.isPending} disabled={resend.isPending || resend.isSuccess}>
                    Resend activation email
                  </Button>
                  {(resend.isSuccess || resend.isError) && (
                    <Text size="sm" c={resend.isSuccess ? 'teal' : 'red'} data-testid="resend-result">
                      {resend.isSuccess ? resend.data.message : resend.error.message}
                    </Text>
                  )}
                </>
              ) : (
                <>
                  <Text size="sm" c="dimmed">
                    To get a new activation link, log in: your dashboard offers to resend it.
                  </Text>
                  <Button component={Link} to="/#tab-login">
                    Go to log in
                  </Button>
                </>
              )}
            </>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
