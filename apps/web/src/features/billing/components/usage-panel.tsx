import { useState } from 'react';
import { Group, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core';
import { BarChart } from '@mantine/charts';
import '@mantine/charts/styles.css';
import { useUsage } from '../api/billing';
import { formatDay } from '../../../lib/format';
import { TableHead } from '../../../components/table-head';

/** A datetime-local value (local time, minutes) for a Date. */
const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
/** Round up to a quarter hour (the picker steps by 15 minutes), so "now" includes what was just spent. */
const quarter = (d: Date) => new Date(Math.ceil(d.getTime() / 900_000) * 900_000);

export function UsagePanel() {
  const now = quarter(new Date());
  // The default range is the last 30 days up to now.
  const [starts, setStarts] = useState(local(new Date(now.getTime() - 30 * 86_400_000)));
  const [ends, setEnds] = useState(local(now));
  const s = new Date(starts);
  const e = new Date(ends);
  const valid = !Number.isNaN(s.getTime()) && !Number.isNaN(e.getTime()) && s <= e;
  const { data, error } = useUsage(valid ? s.toISOString() : '', valid ? e.toISOString() : '');
  const rows = data ?? [];
  const total = rows.reduce((t, r) => ({ tracking: t.tracking + r.tracking, sms: t.sms + r.sms, cost: t.cost + r.total }), {
    tracking: 0,
    sms: 0,
    cost: 0,
  });
  return (
    <Stack>
      <Group>
        <TextInput type="datetime-local" label="From" value={starts} onChange={(ev) => setStarts(ev.currentTarget.value)} step={900} />
        <TextInput
          type="datetime-local"
          label="To"
          value={ends}
          onChange={(ev) => setEnds(ev.currentTarget.value)}
          step={900}
          error={valid ? null : 'The start date must be before the end date'}
        />
      </Group>
      {error ? <Text c="red">{(error as Error).message}</Text> : null}
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Table striped data-testid="usage-table">
          <TableHead columns={['Date', 'Trackings', 'SMS', 'Cost']} />
          <Table.Tbody>
            {rows
              .filter((r) => r.total > 0)
              .map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>{formatDay(r.dt)}</Table.Td>
                  <Table.Td>{r.tracking}</Table.Td>
                  <Table.Td>{r.sms}</Table.Td>
                  <Table.Td>${r.total.toFixed(2)}</Table.Td>
                </Table.Tr>
              ))}
            <Table.Tr fw={700}>
              <Table.Td>Total</Table.Td>
              <Table.Td>{total.tracking}</Table.Td>
              <Table.Td>{total.sms}</Table.Td>
              <Table.Td>${total.cost.toFixed(2)}</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
        <BarChart
          h={260}
          data={rows.map((r) => ({ day: formatDay(r.dt, undefined, false), Trackings: r.costTracking, SMS: r.costSms }))}
          dataKey="day"
          type="stacked"
          valueFormatter={(v) => `$${v.toFixed(2)}`}
          series={[
            { name: 'Trackings', color: 'blue.6' },
            { name: 'SMS', color: 'teal.6' },
          ]}
        />
      </SimpleGrid>
    </Stack>
  );
}
