import { Center, RingProgress, Stack, Text } from '@mantine/core';
import { DASHBOARD_STATUS_ORDER, STATUS_LABELS, type Dashboard } from '@shiptrail/contract';
import { STATUS_COLORS } from '../../../config/status';

/** Doughnut of shipments by status with the total in the centre (product rules §2). */
export function StatusDoughnut({ dashboard, size = 220 }: { dashboard: Dashboard; size?: number }) {
  const total = dashboard.Shipments;
  const sections = total
    ? DASHBOARD_STATUS_ORDER.filter((s) => dashboard[s] > 0).map((s) => ({
        value: (dashboard[s] / total) * 100,
        color: STATUS_COLORS[s],
        tooltip: `${STATUS_LABELS[s]}: ${dashboard[s]}`,
      }))
    : [{ value: 100, color: 'gray.2', tooltip: 'No shipments yet' }];
  return (
    <Center>
      <RingProgress
        size={size}
        thickness={size / 9}
        roundCaps={false}
        sections={sections}
        aria-label={`${total} shipments by status`}
        label={
          <Stack gap={0} align="center">
            <Text fz={size / 6} fw={800} lh={1} data-testid="dashboard-total">
              {total}
            </Text>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              Shipments
            </Text>
          </Stack>
        }
      />
    </Center>
  );
}
