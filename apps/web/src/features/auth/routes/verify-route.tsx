import { Button, Center, Loader, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleCheck, IconCircleX } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { verifyEmail } from '../api/verify-email';
import { logout } from '../../../lib/logout';
import { endSession, startSession } from '../../../lib/start-session';
import { getSession } from '../../../lib/session';

type State = { step: 'waiting' } | { step: 'success'; message: string } | { step: 'fail'; message: string };

/** Email verification (spec §2, §4): log out, verify, then log in with the returned session. */
export default function VerifyRoute() {
  const { key = '' } = useParams();
  const navigate = useNavigate();
  const [state, setState] = useState<State>({ step: 'waiting' });
  const ran = useRef(false);
  useEffect(() => {
    if (ran.current) return;
    ran.current = true;
    void (async () => {
      if (getSession()) {
        await logout();
        endSession();
      }
      try {
        const env = await verifyEmail(key);
        setState({ step: 'success', message: env.message });
        startSession(env.payload);
        setTimeout(() => navigate('/account/dashboard', { replace: true }), 1200);
      } catch (e) {
        setState({ step: 'fail', message: (e as Error).message || 'Verification Error' });
      }
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
              <Button component={Link} to="/#tab-login">
                Go to log in
              </Button>
            </>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
