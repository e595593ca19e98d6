import {
  Anchor,
  Button,
  Card,
  ColorSwatch,
  Grid,
  Group,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { DASHBOARD_STATUS_ORDER, STATUS_LABELS, type UserInfo } from '@shiptrail/contract';
import { IconArrowRight, IconChartBar, IconCoin, IconPlus, IconWallet } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useUserInfo } from '../../../lib/user-info';
import { StatusDoughnut } from '../components/status-doughnut';
import { VerifyEmailBanner } from '../components/verify-email-banner';
import { ShipmentsBox } from '../components/shipments-box';
import { PageHeader } from '../../../components/page-header';
import { STATUS_COLORS } from '../../../config/status';
import { money, percentOf } from '../../../lib/format';

type Dashboard = UserInfo['dashboard'];

/** The shipments by status: the doughnut, and the table of counts and shares. */
function ByStatus({ dashboard }: { dashboard: Dashboard }) {
  const total = dashboard.Shipments;
  return (
    <Paper p="lg" h="100%">
      <Title order={2} fz="lg" mb="md">
        Shipments by status
      </Title>
      <Grid gap="lg" align="center">
        <Grid.Col span={{ base: 12, sm: 5 }}>
          <StatusDoughnut dashboard={dashboard} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, sm: 7 }}>
          <Table verticalSpacing={6} aria-label="Shipments by status" data-testid="status-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Status</Table.Th>
                <Table.Th ta="right">Count</Table.Th>
                <Table.Th ta="right">Percent</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {DASHBOARD_STATUS_ORDER.map((s) => (
                <Table.Tr key={s} data-status={s}>
                  <Table.Td>
                    <Group gap={8} wrap="nowrap">
                      <ColorSwatch color={`var(--mantine-color-${STATUS_COLORS[s]}-6)`} size={12} withShadow={false} />
                      <Text size="sm">{STATUS_LABELS[s]}</Text>
                    </Group>
                  </Table.Td>
                  <Table.Td ta="right">{dashboard[s]}</Table.Td>
                  <Table.Td ta="right">{percentOf(dashboard[s], total)}%</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Grid.Col>
      </Grid>
    </Paper>
  );
}

interface Figure {
  label: string;
  value: ReactNode;
  color?: string;
  testId?: string;
}

/** A card of two figures under a title, with a link to more. */
function FigureCard({
  title,
  icon,
  figures,
  to,
  more,
}: {
  title: string;
  icon: ReactNode;
  figures: [Figure, Figure];
  to: string;
  more: string;
}) {
  return (
    <Card p="lg">
      <Group justify="space-between" mb="xs">
        <Title order={2} fz="lg">
          {title}
        </Title>
        <ThemeIcon variant="light" radius="md">
          {icon}
        </ThemeIcon>
      </Group>
      <SimpleGrid cols={2}>
        {figures.map((f) => (
          <div key={f.label}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              {f.label}
            </Text>
            <Text fz={26} fw={800} c={f.color} data-testid={f.testId}>
              {f.value}
            </Text>
          </div>
        ))}
      </SimpleGrid>
      <Anchor component={Link} to={to} size="sm" mt="md">
        <Group gap={4}>
          {more} <IconArrowRight size={14} />
        </Group>
      </Anchor>
    </Card>
  );
}

/** Expenses, statistics and the referral offer, beside the status chart. */
function SideCards({ dashboard, balance }: { dashboard: Dashboard; balance: number | undefined }) {
  const inFlight = dashboard.InTransit + dashboard.OutForDelivery + dashboard.InfoReceived;
  const attention = dashboard.Exception + dashboard.FailAttempt;
  return (
    <Stack gap="lg" h="100%">
      <FigureCard
        title="Expenses"
        icon={<IconWallet size={18} />}
        figures={[
          { label: 'Cost', value: money(dashboard.Cost), testId: 'dashboard-cost' },
          { label: 'Balance', value: money(balance), color: 'teal.8', testId: 'dashboard-balance' },
        ]}
        to="/account/profile/settings/paymentHistory"
        more="Payment history"
      />
      <FigureCard
        title="Statistics"
        icon={<IconChartBar size={18} />}
        figures={[
          { label: 'On the way', value: inFlight },
          { label: 'Need attention', value: attention, color: attention > 0 ? 'red.8' : undefined },
        ]}
        to="/account/trackings"
        more="View all trackings"
      />
      <Card p="lg" bg="var(--mantine-primary-color-light)">
        <Group gap="sm" wrap="nowrap">
          <ThemeIcon variant="filled" radius="md" size="lg">
            <IconCoin size={20} />
          </ThemeIcon>
          <Text size="sm">
            Invite a friend and get <b>$10</b> when they make their first payment.{' '}
            <Anchor component={Link} to="/account/invite" size="sm">
              Invite now
            </Anchor>
          </Text>
        </Group>
      </Card>
    </Stack>
  );
}

export default function DashboardRoute() {
  const { data, isLoading } = useUserInfo();
  if (isLoading || !data) {
    return (
      <Stack>
        <Skeleton h={40} w={240} />
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <Skeleton h={320} radius="lg" />
          <Skeleton h={320} radius="lg" />
        </SimpleGrid>
      </Stack>
    );
  }
  const { dashboard, profile } = data;
  return (
    <>
      <PageHeader
        title={`Welcome${profile.firstName ? `, ${profile.firstName}` : ''}`}
        description="Here is how your shipments are doing."
        actions={
          // Couriers have no trackings of their own.
          profile.role !== 'courier' && (
            <Button component={Link} to="/account/trackings?add=1" leftSection={<IconPlus size={16} />}>
              Add tracking
            </Button>
          )
        }
      />
      {!profile.emailVerified && <VerifyEmailBanner email={profile.email} />}
      <ShipmentsBox profile={profile} count={dashboard.shmShipments} />
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <ByStatus dashboard={dashboard} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <SideCards dashboard={dashboard} balance={profile.balance} />
        </Grid.Col>
      </Grid>
    </>
  );
}
