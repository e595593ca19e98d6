import { Badge, Box, Button, Container, Grid, Group, Paper, Stack, Text, ThemeIcon, Title, Timeline } from '@mantine/core';
import { IconCircleCheck, IconMapPin, IconPlayerPlay, IconTruckDelivery, IconPackage } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useMantineTheme } from '@mantine/core';

const COURIERS = ['UPS', 'USPS', 'FedEx', 'Canada Post'];

/** A parcel as the dashboard shows it, out for delivery: a picture, hidden from screen readers. */
function SampleParcel() {
  return (
    <Paper shadow="xl" p="lg" radius="xl" aria-hidden="true">
      <Group justify="space-between" mb="md">
        <Group gap="sm">
          <ThemeIcon size="lg" radius="md" variant="light">
            <IconPackage size={20} />
          </ThemeIcon>
          <div>
            <Text fw={700} size="sm">
              1Z5R89390350075608
            </Text>
            <Text size="xs" c="dimmed">
              UPS · Order #4021 · Jane Cooper
            </Text>
          </div>
        </Group>
        <Badge color="violet" variant="light">
          Out For Delivery
        </Badge>
      </Group>
      <Timeline active={2} bulletSize={26} lineWidth={2}>
        <Timeline.Item bullet={<IconPackage size={14} />} title="Info Received">
          <Text size="xs" c="dimmed">
            Louisville, KY · Mon 09:12
          </Text>
        </Timeline.Item>
        <Timeline.Item bullet={<IconTruckDelivery size={14} />} title="In Transit">
          <Text size="xs" c="dimmed">
            Chicago, IL · Tue 18:40
          </Text>
        </Timeline.Item>
        <Timeline.Item bullet={<IconMapPin size={14} />} title="Out For Delivery">
          <Text size="xs" c="dimmed">
            Brooklyn, NY · Wed 07:55 · SMS sent to customer
          </Text>
        </Timeline.Item>
        <Timeline.Item bullet={<IconCircleCheck size={14} />} title="Delivered" lineVariant="dashed">
          <Text size="xs" c="dimmed">
            Expected today by 6 pm
          </Text>
        </Timeline.Item>
      </Timeline>
    </Paper>
  );
}

export function HeroSection({ onWatchVideo, signupBonus }: { onWatchVideo: () => void; signupBonus: number }) {
  const theme = useMantineTheme();
  const accent = (theme.other.accent as string) ?? 'cyan';
  return (
    <Box
      component="section"
      id="home"
      aria-labelledby="hero-title"
      className="hero-bg"
      style={{ ['--hero-accent' as string]: `var(--mantine-color-${accent}-light)` }}
      py={{ base: 48, md: 96 }}
    >
      <Container size="lg">
        <Grid gap={{ base: 40, md: 64 }} align="center">
          <Grid.Col span={{ base: 12, md: 6 }}>
            <Stack gap="lg">
              <Badge variant="light" size="lg" radius="xl" w="fit-content">
                ${signupBonus} free credit · no card needed
              </Badge>
              <Title id="hero-title" order={1} fz={{ base: 36, sm: 48 }} lh={1.1} style={{ letterSpacing: '-0.03em' }}>
                Every parcel, every carrier,{' '}
                <Text span inherit variant="gradient" gradient={{ from: theme.primaryColor, to: accent, deg: 90 }}>
                  one calm dashboard
                </Text>
              </Title>
              <Text size="lg" c="dimmed" maw={520}>
                Shiptrail follows your UPS, USPS, FedEx and Canada Post shipments, tells you and your customers the moment something changes
                by email, SMS or webhook, and gives your developers a clean REST API.
              </Text>
              <Group gap="sm">
                <Button size="md" component={Link} to="/#tab-register">
                  Start free
                </Button>
                <Button size="md" variant="default" leftSection={<IconPlayerPlay size={18} />} onClick={onWatchVideo}>
                  Watch the 1-minute tour
                </Button>
              </Group>
              <Group gap="xs" mt="sm">
                <Text size="sm" c="dimmed">
                  Works with
                </Text>
                {COURIERS.map((c) => (
                  <Badge key={c} variant="outline" color="gray" radius="sm">
                    {c}
                  </Badge>
                ))}
              </Group>
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 6 }}>
            <SampleParcel />
          </Grid.Col>
        </Grid>
      </Container>
    </Box>
  );
}
