import { Alert, Button, Grid, Group, Loader, Paper, Text, TextInput } from '@mantine/core';
import type { PlanView } from '@shiptrail/contract';
import { IconRefresh, IconRoute } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { LazyMap, type MapLine, type MapMarker } from '../../../components/map/lazy-map';
import { ListLink, PageHeader } from '../../../components/page-header';
import { useUserInfo } from '../../../lib/user-info';
import { useChangeStop, useMakePlan, usePlan, useReplan } from '../api/plans';
import { PlanBoard, ROUTE_COLORS } from '../components/plan-board';
import type { StopChange } from '../components/plan-stop-row';

/** Today on the browser's calendar, YYYY-MM-DD. */
function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function useClock(timeZone: string | undefined) {
  return useMemo(() => {
    let f: Intl.DateTimeFormat;
    try {
      f = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', timeZone });
    } catch {
      f = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
    }
    return (iso: string) => f.format(new Date(iso));
  }, [timeZone]);
}

function layersOf(plan: PlanView): { markers: MapMarker[]; lines: MapLine[] } {
  const depot: [number, number] = [plan.depot.lat, plan.depot.long];
  const markers: MapMarker[] = [
    { id: 'depot', lat: depot[0], lng: depot[1], kind: 'origin', text: 'D', color: '#343a40', title: 'Depot: routes start and end here' },
  ];
  const lines: MapLine[] = [];
  plan.routes.forEach((r, i) => {
    const color = ROUTE_COLORS[i % ROUTE_COLORS.length]!;
    if (r.stops.length === 0) return;
    lines.push({
      id: `route-${r.courierUid}`,
      color,
      points: [depot, ...r.stops.map((s) => [s.at.lat, s.at.long] as [number, number]), depot],
    });
    for (const s of r.stops)
      markers.push({
        id: `stop-${s.tid}`,
        lat: s.at.lat,
        lng: s.at.long,
        kind: 'destination',
        color,
        text: String(s.position),
        title: `${r.courier}, stop ${s.position}: ${s.address} (${s.tid})`,
      });
  });
  for (const u of plan.unplanned)
    if (u.at)
      markers.push({
        id: `unplanned-${u.tid}`,
        lat: u.at.lat,
        lng: u.at.long,
        kind: 'checkpoint',
        text: '!',
        title: `Not planned: ${u.tid}`,
      });
  return { markers, lines };
}

/** The day to plan, the buttons that plan it, and what the plan holds. */
function PlanControls({
  date,
  setDate,
  plan: p,
  clock,
  busy,
  make,
  again,
}: {
  date: string;
  setDate: (date: string) => void;
  plan: PlanView | null;
  clock: (iso: string) => string;
  busy: boolean;
  make: ReturnType<typeof useMakePlan>;
  again: ReturnType<typeof useReplan>;
}) {
  const validDate = /^\d{4}-\d{2}-\d{2}$/.test(date);
  const stops = p?.routes.reduce((n, r) => n + r.stops.length, 0) ?? 0;
  return (
    <Group mb="md" align="flex-end">
      <TextInput
        type="date"
        label="Day"
        value={date}
        onChange={(e) => setDate(e.currentTarget.value)}
        w={180}
        data-testid="plan-date"
        error={date && !validDate ? 'Choose a day' : undefined}
      />
      <Button
        leftSection={<IconRoute size={16} />}
        loading={make.isPending}
        disabled={busy || !validDate}
        onClick={() => make.mutate({ date })}
        data-testid="plan-button"
      >
        {p ? 'Plan from scratch' : 'Plan'}
      </Button>
      {p && (
        <Button
          variant="default"
          leftSection={<IconRefresh size={16} />}
          loading={again.isPending}
          disabled={busy}
          onClick={() => again.mutate(date)}
          data-testid="replan-button"
        >
          Plan again
        </Button>
      )}
      {p && (
        <Text size="sm" c="dimmed" data-testid="plan-summary">
          {stops} {stops === 1 ? 'stop' : 'stops'}, {p.routes.filter((r) => r.stops.length).length} of {p.routes.length} couriers · shift{' '}
          {p.settings.shiftStart}–{p.settings.shiftEnd} · {p.settings.serviceMinutes} min a stop ·{' '}
          {p.settings.travel === 'roads' ? 'road times' : 'times estimated from distance'} · planned {clock(p.updatedAt)}
        </Text>
      )}
    </Group>
  );
}

/** The routes on the map, beside the list. */
function PlanMap({ plan: p }: { plan: PlanView }) {
  const layers = useMemo(() => layersOf(p), [p]);
  return (
    <Paper p={0} style={{ overflow: 'hidden', position: 'sticky', top: 16 }}>
      <LazyMap
        label="Planned routes"
        center={[p.depot.lat, p.depot.long]}
        zoom={12}
        fitToMarkers
        maxFitZoom={15}
        height={560}
        minHeight={400}
        markers={layers.markers}
        lines={layers.lines}
      />
    </Paper>
  );
}

/** Plan the day (issue 30; decision 118): the owner's view of the day's routes. */
export default function PlanRoute() {
  const { data: info } = useUserInfo();
  const [date, setDate] = useState(today);
  const plan = usePlan(date, !!info);
  const make = useMakePlan();
  const again = useReplan();
  const change = useChangeStop();
  const [changeError, setChangeError] = useState<string | null>(null);
  const p = plan.data ?? null;
  const clock = useClock(p?.timeZone);
  const busy = make.isPending || again.isPending || change.isPending;
  const onChange = (tid: string) => (c: StopChange) => {
    setChangeError(null);
    change.mutate({ date, tid, ...c }, { onError: (e) => setChangeError(e.message) });
  };

  return (
    <>
      <PageHeader
        title="Plan the day"
        description="Share a day's shipments among your couriers: each route in order, with the time the courier arrives and the hour the customer is told."
        actions={<ListLink to="/account/shipments">Shipments</ListLink>}
      />
      <PlanControls date={date} setDate={setDate} plan={p} clock={clock} busy={busy} make={make} again={again} />
      {changeError && (
        <Alert color="red" mb="sm" withCloseButton onClose={() => setChangeError(null)} title="Could not change the stop">
          {changeError}
        </Alert>
      )}
      {plan.isLoading ? (
        <Loader aria-label="Loading the plan" />
      ) : plan.isError ? (
        <Alert color="red" title="Could not load the plan">
          {plan.error.message}
        </Alert>
      ) : !p ? (
        <Paper p="xl" ta="center" data-testid="no-plan">
          <Text fw={600}>No plan for this day yet</Text>
          <Text size="sm" c="dimmed">
            Press Plan: the open shipments expected this day, and those with no date, are shared among your couriers (shift 08:00–18:00, 5
            minutes a stop).
          </Text>
        </Paper>
      ) : (
        <Grid gap="md">
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <PlanBoard plan={p} clock={clock} busy={busy} onChange={onChange} onPickUp={() => setChangeError(null)} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <PlanMap plan={p} />
          </Grid.Col>
        </Grid>
      )}
    </>
  );
}
