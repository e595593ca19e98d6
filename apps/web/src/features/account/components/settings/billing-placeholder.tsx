import { Button, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCreditCard } from '@tabler/icons-react';
import { Link } from 'react-router';
import { money } from '../../../../lib/format';

/** Payment and billing arrive in a later release; links from the dashboard and wizard land here meanwhile. */
export function BillingPlaceholder({ title, balance }: { title: string; balance: number }) {
  return (
    <Paper p="xl" ta="center">
      <Stack align="center" gap="sm">
        <ThemeIcon size={56} radius="xl" variant="light">
          <IconCreditCard size={30} />
        </ThemeIcon>
        <Title order={2} fz="lg">
          {title}
        </Title>
        <Text c="dimmed" maw={440}>
          Cards, top-ups and receipts are coming to Shiptrail soon. Your current balance is <b>{money(balance)}</b>; every
          tracking and SMS is charged from it.
        </Text>
        <Button component={Link} to="/account/support" variant="default" mt="xs">
          Questions? Contact support
        </Button>
      </Stack>
    </Paper>
  );
}
