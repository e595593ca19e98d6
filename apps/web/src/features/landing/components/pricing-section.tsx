import { Box, Button, Container, Group, List, Paper, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { Link } from 'react-router';
import { money } from '../../../lib/format';
import type { Pricing } from '../api/get-pricing';

export function PricingSection({ pricing }: { pricing: Pricing }) {
  const cents = (d: number) => `${Math.round(d * 100)}¢`;
  const items: { label: string; value: string; note?: string }[] = [
    { label: 'per tracking number', value: cents(pricing.perTracking) },
    {
      label: 'per shipment you deliver',
      value: cents(pricing.perShipment),
      note: 'delivery companies: label, courier app and customer page',
    },
    { label: 'per SMS alert', value: cents(pricing.perSms) },
    { label: 'free credit at sign-up', value: money(pricing.signupBonus) },
  ];
  return (
    <Box component="section" id="pricing" aria-labelledby="pricing-title" bg="var(--mantine-color-gray-0)" py={{ base: 56, md: 96 }}>
      <Container size="lg">
        <Stack align="center" gap="xs" mb={40} ta="center">
          <Text tt="uppercase" fw={700} c="var(--mantine-primary-color-filled)" size="sm" style={{ letterSpacing: '0.08em' }}>
            Pricing
          </Text>
          <Title id="pricing-title" order={2} fz={{ base: 28, sm: 36 }}>
            Pay as you go. No plans, no surprises.
          </Title>
          <Text c="dimmed" maw={560}>
            Top up a prepaid balance and pay only for what you track. Emails and webhooks are always included.
          </Text>
        </Stack>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="lg" mb="xl">
          {items.map((i) => (
            <Paper key={i.label} p="xl" ta="center" shadow="xs">
              <Text fz={44} fw={800} lh={1} style={{ letterSpacing: '-0.03em' }} data-testid={`price-${i.label.split(' ')[1]}`}>
                {i.value}
              </Text>
              <Text c="dimmed" mt={8}>
                {i.label}
              </Text>
              {i.note ? (
                <Text c="dimmed" size="xs" mt={4}>
                  {i.note}
                </Text>
              ) : null}
            </Paper>
          ))}
        </SimpleGrid>
        <Paper p="xl" shadow="xs" maw={760} mx="auto">
          <Group justify="space-between" align="flex-start" gap="xl">
            <List
              spacing="sm"
              icon={
                <ThemeIcon size={20} radius="xl" variant="light">
                  <IconCheck size={13} />
                </ThemeIcon>
              }
            >
              <List.Item>No credit card needed to start</List.Item>
              <List.Item>Email alerts and webhooks at no extra cost</List.Item>
              <List.Item>Automatic top-up under {money(pricing.autoRecharge.defaultMinimum)} so tracking never stops</List.Item>
              <List.Item>Invite a friend, get {money(pricing.referralReward)} on their first payment</List.Item>
            </List>
            <Stack gap="xs" miw={200}>
              <Button size="md" component={Link} to="/#tab-register">
                Create free account
              </Button>
              <Text size="xs" c="dimmed" ta="center">
                Prices in {pricing.currency}
              </Text>
            </Stack>
          </Group>
        </Paper>
      </Container>
    </Box>
  );
}
