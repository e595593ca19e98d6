import { ActionIcon, Alert as MAlert, Badge, Group, Paper, Stack, Tabs, Text, Tooltip } from '@mantine/core';
import type { Alert } from '@shiptrail/contract';
import { IconCircleCheck, IconX } from '@tabler/icons-react';
import { useUserInfo } from '../../../lib/user-info';
import { useDismissAlert } from '../api/dismiss-alert';
import { PageHeader } from '../../../components/page-header';
import { formatDateTime } from '../../../lib/format';

const LEVEL_COLOR = { info: 'blue', warning: 'yellow', danger: 'red' } as const;

function AlertList({ alerts }: { alerts: Alert[] }) {
  const dismiss = useDismissAlert();
  if (!alerts.length) {
    return (
      <Paper p="xl" ta="center">
        <Stack align="center" gap={6}>
          <IconCircleCheck size={36} color="var(--mantine-color-teal-6)" />
          <Text fw={600}>All clear</Text>
          <Text size="sm" c="dimmed">
            Nothing needs your attention here.
          </Text>
        </Stack>
      </Paper>
    );
  }
  return (
    <Stack gap="sm">
      {alerts.map((a) => (
        <MAlert key={a.id} color={LEVEL_COLOR[a.level]} variant="light" title={a.name} data-testid="alert-item">
          <Group justify="space-between" wrap="nowrap" align="flex-start">
            <div>
              <Text size="sm">{a.message}</Text>
              <Text size="xs" c="dimmed" mt={4}>
                {formatDateTime(a.date)}
              </Text>
            </div>
            <Tooltip label="Dismiss">
              <ActionIcon
                variant="subtle"
                color="gray"
                aria-label={`Dismiss ${a.name}`}
                onClick={() => dismiss.mutate(a.id)}
                loading={dismiss.isPending && dismiss.variables === a.id}
              >
                <IconX size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
        </MAlert>
      ))}
    </Stack>
  );
}

/** A tab with the number of alerts it holds beside its name. */
function CountTab({ value, label, count }: { value: string; label: string; count: number }) {
  return (
    <Tabs.Tab
      value={value}
      rightSection={
        <Badge size="sm" variant="light" circle>
          {count}
        </Badge>
      }
    >
      {label}
    </Tabs.Tab>
  );
}

export default function AlertsRoute() {
  const { data } = useUserInfo();
  const general = data?.alerts.general ?? [];
  const payment = data?.alerts.payment ?? [];
  return (
    <>
      <PageHeader title="Alerts" description="Account and payment messages that need your attention." />
      <Tabs defaultValue="general" keepMounted={false}>
        <Tabs.List mb="md">
          <CountTab value="general" label="General" count={general.length} />
          <CountTab value="payment" label="Payment" count={payment.length} />
        </Tabs.List>
        <Tabs.Panel value="general">
          <AlertList alerts={general} />
        </Tabs.Panel>
        <Tabs.Panel value="payment">
          <AlertList alerts={payment} />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
