import { Alert, Paper, SegmentedControl, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { usePerformance } from '../api/get-performance';
import { PageHeader } from '../../../components/page-header';
import { PageLoader } from '../../../components/page-loader';
import { courierName } from '../../../lib/format';

const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 100)}%`);
const daysText = (d: number | null) => (d === null ? '—' : `${d} d`);

function Figure({ label, value, note }: { label: string; value: string; note: string }) {
  return (
    <Paper p="md" withBorder>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz={32} fw={700} data-testid={`figure-${label}`}>
        {value}
      </Text>
      <Text size="xs" c="dimmed">
        {note}
      </Text>
    </Paper>
  );
}

/** Delivery performance (issue 32): on time against the carrier's first promise, first attempts, transit by carrier. */
export default function PerformanceRoute() {
  const [days, setDays] = useState('90');
  const q = usePerformance(Number(days));
  const p = q.data;
  return (
    <>
      <PageHeader
        title="Delivery performance"
        description="Your parcels delivered in the period: on time against the carrier's first promise, delivered at the first attempt, and how long each carrier took."
        actions={
          <SegmentedControl
            aria-label="Period"
            value={days}
            onChange={setDays}
            data={[
              { value: '30', label: '30 days' },
              { value: '90', label: '90 days' },
              { value: '365', label: '1 year' },
            ]}
          />
        }
      />
      {q.isPending ? (
        <PageLoader />
      ) : q.isError || !p ? (
        <Alert color="red">{q.error instanceof Error ? q.error.message : 'Could not load the figures.'}</Alert>
      ) : (
        <Stack>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <Figure label="Delivered" value={String(p.delivered)} note={`in the last ${p.days} days`} />
            <Figure label="On time" value={percent(p.onTime.rate)} note={`${p.onTime.count} of ${p.onTime.of} with a carrier promise`} />
            <Figure
              label="First attempt"
              value={percent(p.firstAttempt.rate)}
              note={`${p.firstAttempt.count} of ${p.firstAttempt.of} with no failed attempt`}
            />
          </SimpleGrid>
          <Paper p="md" withBorder>
            {p.byCarrier.length === 0 ? (
              <Text c="dimmed">No parcels delivered in this period yet.</Text>
            ) : (
              <Table.ScrollContainer minWidth={520}>
                <Table aria-label="Transit time by carrier" verticalSpacing="sm">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Carrier</Table.Th>
                      <Table.Th ta="right">Delivered</Table.Th>
                      <Table.Th ta="right">Median transit</Table.Th>
                      <Table.Th ta="right">90% within</Table.Th>
                      <Table.Th ta="right">On time</Table.Th>
                      <Table.Th ta="right">First attempt</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {p.byCarrier.map((c) => (
                      <Table.Tr key={c.courier} data-courier={c.courier}>
                        <Table.Td>{courierName(c.courier)}</Table.Td>
                        <Table.Td ta="right">{c.delivered}</Table.Td>
                        <Table.Td ta="right">{daysText(c.medianDays)}</Table.Td>
                        <Table.Td ta="right">{daysText(c.p90Days)}</Table.Td>
                        <Table.Td ta="right">{percent(c.onTime.rate)}</Table.Td>
                        <Table.Td ta="right">{percent(c.firstAttempt.rate)}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
          </Paper>
        </Stack>
      )}
    </>
  );
}
