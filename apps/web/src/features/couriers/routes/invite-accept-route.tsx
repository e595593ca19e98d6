import { Alert, Button, Center, Loader, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { useMutation, useQuery } from '@tanstack/react-query';
import { acceptInvitationForm } from '@shiptrail/contract';
import { Link, useNavigate, useParams } from 'react-router';
import { formatDateTime } from '../../../lib/format';
import { logout } from '../../../lib/logout';
import { applyServerErrors } from '../../../lib/notify';
import { getSession } from '../../../lib/session';
import { endSession, startSession } from '../../../lib/start-session';
import { zodResolver } from '../../../lib/zod-resolver';
import { acceptInvitation, declineInvitation, getInvitation } from '../api/invitations';
import { NewPasswordInput } from '../../../components/new-password-input';

type Invitation = NonNullable<Awaited<ReturnType<typeof getInvitation>>['payload']>;

/** A link that cannot be opened: the server's words. */
function BrokenLink({ message }: { message: string | undefined }) {
  return (
    <Stack>
      <Title order={1} fz={24}>
        This link does not work
      </Title>
      <Alert color="red" data-testid="invite-result">
        {message ?? 'This invitation link is not valid.'}
      </Alert>
      <Button component={Link} to="/" variant="default">
        Go to Shiptrail
      </Button>
    </Stack>
  );
}

/** "This is not me": the address is free for a sign-up of its own. */
function AddressReleased({ message, email }: { message: string; email: string }) {
  return (
    <Stack>
      <Title order={1} fz={24}>
        Address released
      </Title>
      <Alert color="teal" data-testid="invite-result">
        {message}. You can sign up with {email} now.
      </Alert>
      <Button component={Link} to="/#tab-signup">
        Sign up
      </Button>
    </Stack>
  );
}

/** An invitation that can no longer be accepted, and why. */
function InvitationClosed({ inv, reason }: { inv: Invitation; reason: string }) {
  return (
    <Stack>
      <Title order={1} fz={24}>
        {
          {
            accepted: 'Already accepted',
            expired: 'Invitation expired',
            revoked: 'Invitation withdrawn',
            declined: 'Invitation declined',
            pending: '',
          }[inv.state]
        }
      </Title>
      <Alert color={inv.state === 'accepted' ? 'blue' : 'orange'} data-testid="invite-result">
        {reason.replace('the company', inv.company || 'the company')}
      </Alert>
      {inv.state === 'accepted' && (
        <Button component={Link} to="/#tab-login">
          Log in
        </Button>
      )}
    </Stack>
  );
}

/** Accepting: the courier's password; another session in this browser gives way to the courier's. */
function useAccept(token: string, form: UseFormReturnType<{ password: string; repassword: string }>) {
  const navigate = useNavigate();
  return useMutation({
    mutationFn: (v: { password: string; repassword: string }) => acceptInvitation({ token, ...v }),
    onSuccess: async (env) => {
      // Someone else's session in this browser (the owner testing the link) gives way to the courier's.
      if (getSession()) {
        await logout().catch(() => undefined);
        endSession();
      }
      startSession(env.payload);
      navigate('/account', { replace: true });
    },
    onError: (e) => applyServerErrors(form, e),
  });
}

/**
 * The link of a courier invitation (/invite/:token, public): the company's name, the address, and a password
 * with sign-up's rules; accepting signs the courier in. A link that cannot be used says why in words.
 */
export default function InviteAcceptRoute() {
  const { token = '' } = useParams();
  const invitation = useQuery({ queryKey: ['invitation', token], queryFn: () => getInvitation(token), retry: false, staleTime: Infinity });
  const form = useForm({
    mode: 'controlled',
    initialValues: { password: '', repassword: '' },
    validate: zodResolver(acceptInvitationForm),
    validateInputOnBlur: true,
  });
  const accept = useAccept(token, form);
  const decline = useMutation({ mutationFn: () => declineInvitation(token) });

  const inv = invitation.data?.payload;
  return (
    <Center mih="70vh" p="md">
      <Paper p="xl" shadow="md" radius="xl" maw={460} w="100%" aria-live="polite">
        {invitation.isLoading ? (
          <Stack align="center" py="lg">
            <Loader aria-label="Opening the invitation" />
          </Stack>
        ) : invitation.isError || !inv ? (
          <BrokenLink message={(invitation.error as Error | null)?.message} />
        ) : decline.isSuccess ? (
          <AddressReleased message={decline.data.message} email={inv.email} />
        ) : inv.reason ? (
          <InvitationClosed inv={inv} reason={inv.reason} />
        ) : (
          <form onSubmit={form.onSubmit((v) => accept.mutate(v))} noValidate aria-label="Accept the invitation">
            <Stack gap="md">
              <div>
                <Text size="sm" c="dimmed" tt="uppercase" fw={600}>
                  Courier invitation
                </Text>
                <Title order={1} fz={26}>
                  Join {inv.company} on Shiptrail
                </Title>
              </div>
              <Text size="sm">
                {inv.existingAccount
                  ? `${inv.company} made a courier account with this address. Choose your own password to use it; the one they chose stops working.`
                  : `${inv.firstName ? `Hi ${inv.firstName}, c` : 'C'}hoose a password. You will see the shipments ${inv.company} assigns to you and update them from your phone.`}
              </Text>
              {accept.isError && !Object.keys(form.errors).length && (
                <Alert color="red" data-testid="invite-result">
                  {accept.error.message}
                </Alert>
              )}
              <TextInput label="Email" value={inv.email} readOnly autoComplete="username" />
              <NewPasswordInput label="Password" data-autofocus {...form.getInputProps('password')} />
              <PasswordInput label="Repeat password" autoComplete="new-password" required {...form.getInputProps('repassword')} />
              <Button type="submit" loading={accept.isPending} disabled={!form.isValid() || accept.isPending}>
                Set password and sign in
              </Button>
              {inv.existingAccount && (
                <Button variant="subtle" color="red" loading={decline.isPending} onClick={() => decline.mutate()}>
                  This is not me: release my address
                </Button>
              )}
              <Text size="xs" c="dimmed">
                This link works until {formatDateTime(inv.expiresAt)}, once.
              </Text>
            </Stack>
          </form>
        )}
      </Paper>
    </Center>
  );
}
