import { Button, Card, Group, Text, ThemeIcon } from '@mantine/core';
import type { Profile } from '@shiptrail/contract';
import { IconArrowRight, IconTruckDelivery } from '@tabler/icons-react';
import { Link } from 'react-router';

/**
 * The company's own shipments (the product's SHM System) on the dashboard: how many, and the way to them. A courier sees
 * the same box for the shipments assigned to them; person accounts have no own shipments.
 */
export function ShipmentsBox({ profile, count }: { profile: Pick<Profile, 'role' | 'userType'>; count: number }) {
  const courier = profile.role === 'courier';
  if (!courier && profile.userType !== 'company') return null;
  return (
    <Card p="md" mb="lg" data-testid="shipments-box">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="sm" wrap="nowrap">
          <ThemeIcon variant="light" radius="md" size="lg">
            <IconTruckDelivery size={20} />
          </ThemeIcon>
          <div>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              {courier ? 'Shipments assigned to you' : 'Your own shipments'}
            </Text>
            <Text fz={26} fw={800} lh={1.1} data-testid="shm-shipments">
              {count}
            </Text>
          </div>
        </Group>
        <Button component={Link} to="/account/shipments" variant="light" rightSection={<IconArrowRight size={16} />}>
          {courier ? 'My shipments' : 'See your shipments'}
        </Button>
      </Group>
    </Card>
  );
}
