import { Box, Button, Center, Container, Grid, Group, Paper, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { MSG } from '@shiptrail/contract';
import { IconMail, IconMapPin, IconPackageOff, IconPhone, IconTruck } from '@tabler/icons-react';
import { Link, useParams } from 'react-router';
import { usePublicTracking } from '../api/get-public-tracking';
import { StatusBadge } from '../../../components/status-badge';
import { CheckpointTimeline } from '../../../components/checkpoint-timeline';
import { PageLoader } from '../../../components/page-loader';
import { courierName, formatDate, maskEmail, maskPhone } from '../../../lib/format';

function Fact({ icon: Icon, label, value }: { icon: typeof IconMapPin; label: string; value: string }) {
  return (
    <Group gap="sm" wrap="nowrap" align="flex-start">
      <ThemeIcon variant="light" size={36} radius="md">
        <Icon size={18} />
      </ThemeIcon>
      <div style={{ minWidth: 0 }}>
        <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
          {label}
        </Text>
        <Text fw={500} style={{ wordBreak: 'break-word' }}>
          {value || '—'}
        </Text>
      </div>
    </Group>
  );
}

export default function TrackRoute() {
  const { uid = '', tid = '' } = useParams();
  const { data, isLoading } = usePublicTracking(uid, tid);
  if (isLoading) return <PageLoader />;
  if (!data) {
    return (
      <Center mih="60vh" p="xl">
        <Stack align="center" ta="center" gap="sm">
          <ThemeIcon size={64} radius="xl" variant="light" color="gray">
            <IconPackageOff size={34} />
          </ThemeIcon>
          <Title order={1} fz={28}>
            {MSG.shipmentNotFound}
          </Title>
          <Text c="dimmed" maw={420}>
            Check the link you received. If the shipment was just created, the carrier may not have reported it yet.
          </Text>
          <Button component={Link} to="/" variant="default">
            Go to Shiptrail
          </Button>
        </Stack>
      </Center>
    );
  }
  return (
    <Container size="md" py={{ base: 32, md: 64 }}>
      <Paper p={{ base: 'md', sm: 'xl' }} shadow="md" radius="xl">
        <Group justify="space-between" align="flex-start" mb="lg">
          <div>
            <Text size="sm" c="dimmed">
              Tracking number
            </Text>
            <Title order={1} fz={{ base: 22, sm: 28 }} style={{ wordBreak: 'break-all' }}>
              {data.tid}
            </Title>
            {data.expected && (
              <Text size="sm" c="dimmed">
                Expected {formatDate(data.expected)}
              </Text>
            )}
          </div>
          <StatusBadge status={data.status} size="xl" />
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg" mb="xl">
          <Fact icon={IconTruck} label="Courier" value={data.courierName ?? courierName(data.courier)} />
          <Fact icon={IconMapPin} label="Origin" value={data.origin ?? ''} />
          <Fact icon={IconMapPin} label="Destination" value={data.destination ?? ''} />
        </SimpleGrid>
        <Grid gap="xl">
          <Grid.Col span={{ base: 12, sm: 8 }}>
            <Title order={2} fz="lg" mb="md">
              Checkpoints
            </Title>
            <CheckpointTimeline checkpoints={data.checkpoints} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 4 }}>
            <Box p="md" bg="var(--mantine-color-gray-0)" style={{ borderRadius: 12 }}>
              <Title order={2} fz="sm" mb="sm">
                Notifications go to
              </Title>
              <Stack gap="xs">
                <Group gap={6} wrap="nowrap">
                  <IconMail size={16} aria-label="Email" />
                  <Text size="sm">{maskEmail(data.notify?.email) || 'No email'}</Text>
                </Group>
                <Group gap={6} wrap="nowrap">
                  <IconPhone size={16} aria-label="Phone" />
                  <Text size="sm">{maskPhone(data.notify?.phone) || 'No phone'}</Text>
                </Group>
              </Stack>
            </Box>
          </Grid.Col>
        </Grid>
      </Paper>
    </Container>
  );
}
