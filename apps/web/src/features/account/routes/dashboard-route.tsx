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
import { DASHBOARD_STATUS_ORDER, STATUS_LABELS } from '@shiptrail/contract';
import { IconArrowRight, IconChartBar, IconCoin, IconPlus, IconWallet } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useUserInfo } from '../../../lib/user-info';
import { StatusDoughnut } from '../components/status-doughnut';
import { VerifyEmailBanner } from '../components/verify-email-banner';
import { ShipmentsBox } from '../components/shipments-box';
import { PageHeader } from '../../../components/page-header';
import { STATUS_COLORS } from '../../../config/status';
import { money, percentOf } from '../../../lib/format';

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
  const total = dashboard.Shipments;
  const inFlight = dashboard.InTransit + dashboard.OutForDelivery + dashboard.InfoReceived;
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
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <Stack gap="lg" h="100%">
            <Card p="lg">
              <Group justify="space-between" mb="xs">
                <Title order={2} fz="lg">
                  Expenses
                </Title>
                <ThemeIcon variant="light" radius="md">
                  <IconWallet size={18} />
                </ThemeIcon>
              </Group>
              <SimpleGrid cols={2}>
                <div>
                  <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                    Cost
                  </Text>
                  <Text fz={26} fw={800} data-testid="dashboard-cost">
                    {money(dashboard.Cost)}
                  </Text>
                </div>
                <div>
                  <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                    Balance
                  </Text>
                  <Text fz={26} fw={800} c="teal.8" data-testid="dashboard-balance">
                    {money(profile.balance)}
                  </Text>
                </div>
              </SimpleGrid>
              <Anchor component={Link} to="/account/profile/settings/paymentHistory" size="sm" mt="md">
                <Group gap={4}>
                  Payment history <IconArrowRight size={14} />
                </Group>
              </Anchor>
            </Card>
            <Card p="lg">
              <Group justify="space-between" mb="xs">
                <Title order={2} fz="lg">
                  Statistics
                </Title>
                <ThemeIcon variant="light" radius="md">
                  <IconChartBar size={18} />
                </ThemeIcon>
              </Group>
              <SimpleGrid cols={2}>
                <div>
                  <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                    On the way
                  </Text>
                  <Text fz={26} fw={800}>
                    {inFlight}
                  </Text>
                </div>
                <div>
                  <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                    Need attention
                  </Text>
                  <Text fz={26} fw={800} c={dashboard.Exception + dashboard.FailAttempt > 0 ? 'red.8' : undefined}>
                    {dashboard.Exception + dashboard.FailAttempt}
                  </Text>
                </div>
              </SimpleGrid>
              <Anchor component={Link} to="/account/trackings" size="sm" mt="md">
                <Group gap={4}>
                  View all trackings <IconArrowRight size={14} />
                </Group>
              </Anchor>
            </Card>
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
        </Grid.Col>
      </Grid>
    </>
  );
}
