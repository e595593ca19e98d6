import { Alert } from '@mantine/core';
import { useUserInfo } from '../lib/user-info';

/**
 * Where a company sets its customers' contacts or the updates they get: until the account's email is verified,
 * messages to customers are held (and sent once it is), so the page says so (decision 109).
 */
export function CustomerMessagesHeld() {
  const info = useUserInfo().data;
  if (!info || info.profile.userType !== 'company' || info.profile.emailVerified) return null;
  return (
    <Alert color="yellow" variant="light" title="Verify your email to reach your customers" data-testid="customer-messages-held">
      Messages to your customers are held until you verify your email address with the link we sent you (you can resend it from the
      dashboard). They go out as soon as you do. Each customer gets at most one message per status of a parcel an hour.
    </Alert>
  );
}
