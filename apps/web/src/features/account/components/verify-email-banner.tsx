import { Alert, Button, Group, Text } from '@mantine/core';
import { IconMailExclamation } from '@tabler/icons-react';
import { useResendVerification } from '../../../lib/resend-verification';

export function VerifyEmailBanner({ email }: { email: string }) {
  const resend = useResendVerification();
  return (
    <Alert
      color="yellow"
      variant="light"
      icon={<IconMailExclamation size={20} />}
      title="Please verify your email address"
      mb="lg"
      data-testid="verify-banner"
    >
      <Group justify="space-between" gap="sm">
        <Text size="sm">
          We sent an activation link to <b>{email}</b>. Verify it to keep alerts and receipts flowing.
        </Text>
        <Button
          size="xs"
          variant="white"
          color="dark"
          onClick={() => resend.mutate(undefined)}
          loading={resend.isPending}
          disabled={resend.isPending}
        >
          Resend activation email
        </Button>
      </Group>
    </Alert>
  );
}
