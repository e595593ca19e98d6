import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { IconClockHour4 } from '@tabler/icons-react';

/** "1 update has" / "3 updates have": how many of the courier's actions the phone still holds. */
export const notSentYet = (n: number) => `${n} ${n === 1 ? 'update has' : 'updates have'} not been sent yet.`;
export const KEPT_UNTIL_SIGN_IN = (email: string) =>
  `They stay on this phone and are sent by themselves the next time you sign in here as ${email}, once there is signal. Nobody else signing in on this phone sends them.`;

/**
 * Asked before a courier signs out while the phone still holds actions not sent (decision 138): they are not
 * lost (the outbox is kept and goes with the next sign-in of the same account), but the courier must know, and
 * may rather stay signed in until the signal returns.
 */
export function SignOutWaiting({
  count,
  email,
  onStay,
  onSignOut,
}: {
  count: number;
  email: string;
  onStay: () => void;
  onSignOut: () => void;
}) {
  return (
    <Modal opened onClose={onStay} title="Sign out?" centered>
      <Stack gap="sm" data-testid="sign-out-waiting">
        <Alert color="blue" icon={<IconClockHour4 size={20} />} title={notSentYet(count)}>
          {/* An address is one long word: it wraps anywhere rather than run out of a phone's dialog. */}
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {KEPT_UNTIL_SIGN_IN(email)}
          </Text>
        </Alert>
        <Text size="sm" c="dimmed">
          Staying signed in sends them as soon as the signal returns.
        </Text>
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onSignOut}>
            Sign out, keep them on this phone
          </Button>
          <Button onClick={onStay} data-autofocus>
            Stay signed in
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
