import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  Group,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { useState } from 'react';
import { TRANSIT_BUCKETS, type Performance } from '@shiptrail/contract';
import { downloadPerformanceCsv, usePerformance, type PerformancePeriod } from '../api/get-performance';
import { PageHeader } from '../../../components/page-header';
import { PageLoader } from '../../../components/page-loader';
import { courierName, formatDateTime, statusLabel } from '../../../lib/format';
import { useUserInfo } from '../../../lib/user-info';

const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 100)}%`);
const daysText = (d: number | null) => (d === null ? '—' : `${d} d`);
const DAY = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const isDay = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s);

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

function Section({ title, children, testId }: { title: string; children: React.ReactNode; testId: string }) {
  return (
    <Paper p="md" withBorder data-testid={testId}>
      <Title order={2} fz="lg" mb="sm">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

/** Parcels per whole day of transit as bars (days 0..9 and 10+), the median and 90% marks under it. */
function Histogram({ name, counts, median, p90 }: { name: string; counts: number[]; median: number | null; p90: number | null }) {
  const top = Math.max(1, ...counts);
  const total = counts.reduce((a, b) => a + b, 0);
  return (
    <Box data-testid={`histogram-${name}`}>
      <Group justify="space-between" mb={4} wrap="nowrap">
        <Text fw={600}>{name}</Text>
        <Text size="sm" c="dimmed">
          median {daysText(median)} · 90% within {daysText(p90)}
        </Text>
      </Group>
      <Box
        role="img"
        aria-label={`${name}: parcels by days in transit, ${TRANSIT_BUCKETS.map((b, i) => `${b} days ${counts[i]}`).join(', ')}`}
        style={{ display: 'flex', alignItems: 'flex-end', gap: 3, height: 96, borderBottom: '1px solid var(--mantine-color-gray-4)' }}
      >
        {counts.map((n, i) => (
          <Box
            key={TRANSIT_BUCKETS[i]}
            title={`${TRANSIT_BUCKETS[i]} days: ${n} (${total ? Math.round((n / total) * 100) : 0}%)`}
            style={{
              flex: 1,
              height: `${(n / top) * 100}%`,
              minHeight: n > 0 ? 2 : 0,
              background: 'var(--mantine-color-blue-6)',
              borderRadius: '3px 3px 0 0',
            }}
          />
        ))}
      </Box>
      <Box style={{ display: 'flex', gap: 3 }} aria-hidden>
        {TRANSIT_BUCKETS.map((b) => (
          <Text key={b} size="xs" c="dimmed" ta="center" style={{ flex: 1, minWidth: 0 }}>
            {b}
          </Text>
        ))}
      </Box>
      <Text size="xs" c="dimmed" ta="center">
        days in transit · {total} parcels
      </Text>
    </Box>
  );
}

/** A labelled bar per row, its length the share of the largest. */
function BarList({ rows, label }: { rows: Array<{ name: string; count: number }>; label: string }) {
  const top = Math.max(1, ...rows.map((r) => r.count));
  return (
    <Stack gap={6} role="list" aria-label={label}>
      {rows.map((r) => (
        <Box key={r.name} role="listitem" data-testid="bar-row">
          <Group justify="space-between" gap="xs" wrap="nowrap">
            <Text size="sm" lineClamp={2}>
              {r.name}
            </Text>
            <Text size="sm" fw={600}>
              {r.count}
            </Text>
          </Group>
          <Box style={{ height: 8, borderRadius: 4, background: 'var(--mantine-color-gray-2)' }}>
            <Box
              style={{ width: `${(r.count / top) * 100}%`, height: '100%', borderRadius: 4, background: 'var(--mantine-color-orange-6)' }}
            />
          </Box>
        </Box>
      ))}
    </Stack>
  );
}

/** The period's headline figures. */
function HeadlineFigures({ p }: { p: Performance }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }}>
      <Figure label="Delivered" value={String(p.delivered)} note={`${p.from} to ${p.to}`} />
      <Figure label="On time" value={percent(p.onTime.rate)} note={`${p.onTime.count} of ${p.onTime.of} with a carrier promise`} />
      <Figure
        label="First attempt"
        value={percent(p.firstAttempt.rate)}
        note={`${p.firstAttempt.count} of ${p.firstAttempt.of} with no failed attempt`}
      />
      <Figure label="Exceptions" value={String(p.exceptions.count)} note={`on ${p.exceptions.parcels} parcels`} />
      <Figure label="Stalled" value={String(p.stalled.count)} note={`open, no scan for ${p.stalled.days} days`} />
    </SimpleGrid>
  );
}

/** Days in transit by carrier: a histogram each, and the table of their figures. */
function TransitByCarrier({ p }: { p: Performance }) {
  return (
    <Section title="Transit time by carrier" testId="transit">
      {p.byCarrier.length === 0 ? (
        <Text c="dimmed">No parcels delivered in this period yet.</Text>
      ) : (
        <Stack gap="lg">
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="xl">
            {p.byCarrier.map((c) => (
              <Histogram key={c.courier} name={courierName(c.courier)} counts={c.histogram} median={c.medianDays} p90={c.p90Days} />
            ))}
          </SimpleGrid>
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
        </Stack>
      )}
    </Section>
  );
}

/** One service's transit as a bar on a shared scale of days: dark up to the median, light on to the 90th percentile. */
function ServiceBar({ s, scale }: { s: Performance['byService'][number]; scale: number }) {
  const name = s.service ?? 'Service not known';
  const at = (d: number | null) => `${Math.min(100, ((d ?? 0) / scale) * 100)}%`;
  return (
    <Box role="listitem" data-testid="service-row" data-courier={s.courier}>
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="sm" lineClamp={1}>
          <Text span fw={600}>
            {name}
          </Text>{' '}
          <Text span size="xs" c="dimmed">
            {courierName(s.courier)}
          </Text>
        </Text>
        <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          {s.delivered} {s.delivered === 1 ? 'parcel' : 'parcels'}
          {s.onTime.of > 0 ? ` · ${percent(s.onTime.rate)} on time` : ''}
        </Text>
      </Group>
      <Box
        role="img"
        aria-label={`${name}: median ${daysText(s.medianDays)}, 90% within ${daysText(s.p90Days)}`}
        style={{ position: 'relative', height: 14, borderRadius: 4, background: 'var(--mantine-color-gray-2)' }}
      >
        <Box style={{ position: 'absolute', inset: 0, width: at(s.p90Days), borderRadius: 4, background: 'var(--mantine-color-blue-2)' }} />
        <Box
          style={{ position: 'absolute', inset: 0, width: at(s.medianDays), borderRadius: 4, background: 'var(--mantine-color-blue-6)' }}
        />
      </Box>
      <Text size="xs" c="dimmed">
        median {daysText(s.medianDays)} · 90% within {daysText(s.p90Days)}
      </Text>
    </Box>
  );
}

/** Days in transit by carrier service (decision 158): one bar each on a common scale, so the faster service shows at a glance. */
function TransitByService({ p }: { p: Performance }) {
  const scale = Math.max(1, ...p.byService.map((s) => s.p90Days ?? s.medianDays ?? 0));
  return (
    <Section title="Transit time by service" testId="services">
      {p.byService.length === 0 ? (
        <Text c="dimmed">No parcels delivered in this period yet.</Text>
      ) : (
        <Stack gap="sm">
          <Group gap="md">
            <Group gap={6}>
              <Box w={14} h={10} style={{ borderRadius: 2, background: 'var(--mantine-color-blue-6)' }} />
              <Text size="xs" c="dimmed">
                half the parcels within (median)
              </Text>
            </Group>
            <Group gap={6}>
              <Box w={14} h={10} style={{ borderRadius: 2, background: 'var(--mantine-color-blue-2)' }} />
              <Text size="xs" c="dimmed">
                90% within
              </Text>
            </Group>
            <Text size="xs" c="dimmed">
              scale 0 to {Math.ceil(scale)} days
            </Text>
          </Group>
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" verticalSpacing="md" role="list" aria-label="Transit time by service">
            {p.byService.map((s) => (
              <ServiceBar key={`${s.courier}-${s.service ?? ''}`} s={s} scale={Math.ceil(scale)} />
            ))}
          </SimpleGrid>
        </Stack>
      )}
    </Section>
  );
}

/** Days in transit on the busiest lanes (origin to destination region). */
function BusiestLanes({ p }: { p: Performance }) {
  return (
    <Section title="Busiest lanes" testId="lanes">
      {p.lanes.length === 0 ? (
        <Text c="dimmed">No lanes yet: the carriers named no origin and destination regions.</Text>
      ) : (
        <Table.ScrollContainer minWidth={320}>
          <Table aria-label="Transit time by lane" verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Lane</Table.Th>
                <Table.Th ta="right">Parcels</Table.Th>
                <Table.Th ta="right">Median</Table.Th>
                <Table.Th ta="right">90%</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {p.lanes.map((l) => (
                <Table.Tr key={`${l.courier}-${l.origin}-${l.destination}`}>
                  <Table.Td>
                    {courierName(l.courier)} {l.origin} → {l.destination}
                  </Table.Td>
                  <Table.Td ta="right">{l.delivered}</Table.Td>
                  <Table.Td ta="right">{daysText(l.medianDays)}</Table.Td>
                  <Table.Td ta="right">{daysText(l.p90Days)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Section>
  );
}

/** The exceptions by cause, as bars. */
function ExceptionCauses({ p }: { p: Performance }) {
  return (
    <Section title="Exceptions and their causes" testId="exceptions">
      {p.exceptions.causes.length === 0 ? (
        <Text c="dimmed">No exceptions in this period.</Text>
      ) : (
        <BarList label="Exceptions by cause" rows={p.exceptions.causes.map((c) => ({ name: c.cause, count: c.count }))} />
      )}
    </Section>
  );
}

/** The open parcels with no scan for some days (the days chosen here), the longest silent first. */
function StalledParcels({
  p,
  uid,
  stalledDays,
  onStalledDays,
}: {
  p: Performance;
  uid: string | undefined;
  stalledDays: string;
  onStalledDays: (v: string) => void;
}) {
  return (
    <Section title="Stalled parcels" testId="stalled">
      <Group justify="space-between" mb="sm" align="flex-end">
        <Text size="sm" c="dimmed">
          {p.stalled.count === 0
            ? `No open parcel has gone ${p.stalled.days} days without a scan.`
            : `${p.stalled.count} open parcels with no scan for ${p.stalled.days} days${p.stalled.count > p.stalled.parcels.length ? `; the ${p.stalled.parcels.length} longest silent:` : ':'}`}
        </Text>
        <Select
          label="No scan for"
          aria-label="No scan for"
          w={140}
          value={stalledDays}
          onChange={(v) => v && onStalledDays(v)}
          allowDeselect={false}
          data={['2', '3', '5', '7', '14'].map((d) => ({ value: d, label: `${d} days` }))}
        />
      </Group>
      {p.stalled.parcels.length > 0 && (
        <Table.ScrollContainer minWidth={480}>
          <Table aria-label="Stalled parcels" verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Tracking number</Table.Th>
                <Table.Th>Carrier</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Last scan</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {p.stalled.parcels.map((s) => (
                <Table.Tr key={s.tid}>
                  <Table.Td>
                    {uid ? (
                      <Anchor href={`/track/${uid}/${encodeURIComponent(s.tid)}`} target="_blank" rel="noopener">
                        {s.tid}
                      </Anchor>
                    ) : (
                      s.tid
                    )}
                    {s.title && (
                      <Text size="xs" c="dimmed">
                        {s.title}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{courierName(s.courier)}</Table.Td>
                  <Table.Td>
                    <Badge variant="light" color="gray">
                      {statusLabel(s.status)}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{s.lastScanAt ? formatDateTime(s.lastScanAt) : `none (added ${formatDateTime(s.addedAt)})`}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Section>
  );
}

/** The company's own couriers: stops a day, same-day deliveries and failed attempts. */
function OwnCouriers({ p }: { p: Performance }) {
  return (
    <Section title="Your couriers" testId="couriers">
      <Table.ScrollContainer minWidth={480}>
        <Table aria-label="Your couriers" verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Courier</Table.Th>
              <Table.Th ta="right">Stops a day</Table.Th>
              <Table.Th>Same-day deliveries</Table.Th>
              <Table.Th ta="right">Failed attempts</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {p.couriers.map((c) => (
              <Table.Tr key={c.courierId}>
                <Table.Td>
                  {c.name}
                  <Text size="xs" c="dimmed">
                    {c.daysWorked} days worked
                  </Text>
                </Table.Td>
                <Table.Td ta="right">{c.stopsPerDay ?? '—'}</Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Box style={{ width: 64, height: 8, borderRadius: 4, background: 'var(--mantine-color-gray-2)', flex: 'none' }}>
                      <Box
                        style={{
                          width: `${(c.onTime.rate ?? 0) * 100}%`,
                          height: '100%',
                          borderRadius: 4,
                          background: 'var(--mantine-color-teal-6)',
                        }}
                      />
                    </Box>
                    <Text size="sm">
                      {percent(c.onTime.rate)} ({c.onTime.count}/{c.onTime.of})
                    </Text>
                  </Group>
                </Table.Td>
                <Table.Td ta="right">{c.failedAttempts}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Section>
  );
}

function Figures({
  p,
  uid,
  stalledDays,
  onStalledDays,
}: {
  p: Performance;
  uid: string | undefined;
  stalledDays: string;
  onStalledDays: (v: string) => void;
}) {
  return (
    <Stack>
      <HeadlineFigures p={p} />
      <TransitByCarrier p={p} />
      <TransitByService p={p} />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <BusiestLanes p={p} />
        <ExceptionCauses p={p} />
      </SimpleGrid>
      <StalledParcels p={p} uid={uid} stalledDays={stalledDays} onStalledDays={onStalledDays} />
      {p.couriers.length > 0 && <OwnCouriers p={p} />}
    </Stack>
  );
}

/**
 * Delivery performance (issue 32, decisions 122, 123, 133, 134): on time against the carrier's first promise, first
 * attempts, transit-time distributions by carrier, service and lane, exceptions by cause, stalled parcels and the company's
 * own couriers, over a period; the same figures as CSV.
 */
export default function PerformanceRoute() {
  const { data: info } = useUserInfo();
  const [preset, setPreset] = useState('30');
  const [from, setFrom] = useState(() => isoDay(Date.now() - 29 * DAY));
  const [to, setTo] = useState(() => isoDay(Date.now()));
  const [stalledDays, setStalledDays] = useState('3');
  const [exportError, setExportError] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  const custom = preset === 'custom';
  const period: PerformancePeriod = custom && isDay(from) && isDay(to) ? { from, to } : { days: Number(custom ? 30 : preset) };
  const withStalled = { ...period, stalledDays: Number(stalledDays) };
  const q = usePerformance(withStalled);
  const p = q.data;
  const onExport = async () => {
    setExportError(null);
    setExporting(true);
    try {
      await downloadPerformanceCsv(withStalled);
    } catch (e) {
      setExportError(e instanceof Error ? e.message : 'Could not export the figures.');
    } finally {
      setExporting(false);
    }
  };
  return (
    <>
      <PageHeader
        title="Delivery performance"
        description="Your parcels in the period: on time against the carrier's first promise, delivered at the first attempt, how long each carrier took, what went wrong and what is stuck."
        actions={
          <Group gap="sm">
            <SegmentedControl
              aria-label="Period"
              value={preset}
              onChange={setPreset}
              data={[
                { value: '7', label: '7 days' },
                { value: '30', label: '30 days' },
                { value: '90', label: '90 days' },
                { value: 'custom', label: 'Dates' },
              ]}
            />
            <Button variant="default" leftSection={<IconDownload size={16} />} onClick={onExport} loading={exporting}>
              Export CSV
            </Button>
          </Group>
        }
      />
      {custom && (
        <Group mb="md" align="flex-end">
          <TextInput type="date" label="From" value={from} onChange={(e) => setFrom(e.currentTarget.value)} w={170} />
          <TextInput type="date" label="To" value={to} onChange={(e) => setTo(e.currentTarget.value)} w={170} />
        </Group>
      )}
      {exportError && (
        <Alert color="red" mb="md" withCloseButton onClose={() => setExportError(null)}>
          {exportError}
        </Alert>
      )}
      {q.isPending ? (
        <PageLoader />
      ) : q.isError || !p ? (
        <Alert color="red">{q.error instanceof Error ? q.error.message : 'Could not load the figures.'}</Alert>
      ) : (
        <Figures p={p} uid={info?.profile.uid} stalledDays={stalledDays} onStalledDays={setStalledDays} />
      )}
    </>
  );
}
