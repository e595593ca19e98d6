import { Container, SimpleGrid, Stack, Text, ThemeIcon, Title, Paper } from '@mantine/core';
import { IconApi, IconBell, IconBuildingWarehouse, IconChartDonut, IconFileImport, IconWebhook } from '@tabler/icons-react';

const FEATURES = [
  {
    icon: IconChartDonut,
    title: 'One view of every shipment',
    text: 'Status, checkpoints and expected delivery for UPS, USPS, FedEx and Canada Post, refreshed for you around the clock.',
  },
  {
    icon: IconBell,
    title: 'Alerts that arrive first',
    text: 'Pick the events that matter (in transit, out for delivery, delivered, exceptions) and get them by email or SMS.',
  },
  {
    icon: IconWebhook,
    title: 'Signed webhooks',
    text: 'Standard Webhooks signatures, retries with backoff for three days and a delivery log you can replay.',
  },
  {
    icon: IconApi,
    title: 'A REST API developers like',
    text: 'Add, list and delete trackings with one header. An OpenAPI document describes every call.',
  },
  {
    icon: IconFileImport,
    title: 'Bulk import',
    text: 'Drop a CSV of tracking numbers and we detect the carrier for each one automatically.',
  },
  {
    icon: IconBuildingWarehouse,
    title: 'Built for teams',
    text: 'Company accounts notify their own customers and get a shipment system with couriers and maps.',
  },
];

export function FeaturesSection() {
  return (
    <Container component="section" id="features" aria-labelledby="features-title" size="lg" py={{ base: 56, md: 96 }}>
      <Stack align="center" gap="xs" mb={48} ta="center">
        <Text tt="uppercase" fw={700} c="var(--mantine-primary-color-filled)" size="sm" style={{ letterSpacing: '0.08em' }}>
          Features
        </Text>
        <Title id="features-title" order={2} fz={{ base: 28, sm: 36 }}>
          Everything you need after the label is printed
        </Title>
        <Text c="dimmed" maw={620}>
          Stop refreshing four carrier websites. Shiptrail watches every parcel and speaks up only when something changes.
        </Text>
      </Stack>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="lg">
        {FEATURES.map((f) => (
          <Paper key={f.title} p="xl" shadow="xs">
            <ThemeIcon size={44} radius="md" variant="light" mb="md">
              <f.icon size={24} stroke={1.6} />
            </ThemeIcon>
            <Title order={3} fz="lg" mb={6}>
              {f.title}
            </Title>
            <Text size="sm" c="dimmed" lh={1.6}>
              {f.text}
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
    </Container>
  );
}
