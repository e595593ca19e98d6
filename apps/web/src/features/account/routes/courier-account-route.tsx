import { Paper, Stack, Text } from '@mantine/core';
import { PageHeader } from '../../../components/page-header';
import { PageLoader } from '../../../components/page-loader';
import { useUserInfo } from '../../../lib/user-info';
import { PasswordForm } from '../components/settings/password-form';

/**
 * A courier's own account: who they are and their password. Their name and phone are kept by the company
 * (Couriers), and the account's billing, API key and notifications are the owner's.
 */
export default function CourierAccountRoute() {
  const { data } = useUserInfo();
  if (!data) return <PageLoader />;
  const p = data.profile;
  const name = [p.firstName, p.lastName].filter(Boolean).join(' ');
  return (
    <>
      <PageHeader title="My account" description="Your company keeps your name and phone; ask them to change those." />
      <Stack gap="md" maw={520}>
        <Paper p="lg" data-testid="courier-account">
          {name && <Text fw={700}>{name}</Text>}
          <Text size="sm">{p.email}</Text>
          {p.phone && <Text size="sm">{p.phone}</Text>}
          <Text size="sm" c="dimmed" mt={4}>
            Courier
          </Text>
        </Paper>
        <PasswordForm />
      </Stack>
    </>
  );
}
