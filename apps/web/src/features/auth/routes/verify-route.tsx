import { Button, Center, Loader, Paper, Stack, Text, TextInput, ThemeIcon, Title } from '@mantine/core';
import { resendActivationQuery } from '@shiptrail/contract';
import { IconCircleCheck, IconCircleX } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { verifyEmail } from '../api/verify-email';
import { logout } from '../../../lib/logout';
import { endSession, startSession } from '../../../lib/start-session';
import { getSession, useSession } from '../../../lib/session';
import { useResendVerification } from '../../../lib/resend-verification';

type State = { step: 'waiting' } | { step: 'success'; message: string } | { step: 'fail'; message: string };

/** What the server answered to a resend: its words, in green or red. */
function ResendResult({ resend }: { resend: ReturnType<typeof useResendVerification> }) {
  if (!resend.isSuccess && !resend.isError) return null;
  return (
    <Text size="sm" c={resend.isSuccess ? 'teal' : 'red'} data-testid="resend-result">
      {resend.isSuccess ? resend.data.message : resend.error.message}
    </Text>
  );
}

/** A new link after a failed one: one button when signed in; else the address to send it to. */
function ResendActivation({ signedIn }: { signedIn: boolean }) {
  const resend = useResendVerification();
  const [email, setEmail] = useState('');
  const emailError = (() => {
    const r = resendActivationQuery.safeParse({ email });
    return r.success ? null : (r.error.issues[0]?.message ?? null);
  })();
  if (signedIn)
    return (
      <>
        <Button onClick={() => resend.mutate(undefined)} loading={resend.isPending} disabled={resend.isPending || resend.isSuccess}>
          Resend activation email
        </Button>
        <ResendResult resend={resend} />
      </>
    );
  return (
    <form
      aria-label="Resend activation email"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (emailError || !email) return;
        resend.mutate(email.trim());
      }}
    >
      <Stack gap="sm">
        <TextInput
          label="Your email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          error={email && emailError ? emailError : null}
        />
        <Button type="submit" loading={resend.isPending} disabled={!email || !!emailError || resend.isPending || resend.isSuccess}>
          Send a new activation link
        </Button>
        <ResendResult resend={resend} />
        <Button component={Link} to="/#tab-login" variant="subtle">
          Go to log in
        </Button>
      </Stack>
    </form>
  );
}

/**
 * Email verification: verify, then replace any session with the one the server returns. A link that fails
 * leaves the session alone, so a signed-in user can ask for a new link right here; a signed-out one gives the
 * address (the resend then carries no token, product rules §6, and answers the same for any address).
 */
export default function VerifyRoute() {
  const { key = '' } = useParams();
  const navigate = useNavigate();
  const session = useSession();
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
              <ResendActivation signedIn={!!session} />
            </>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
