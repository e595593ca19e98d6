import {
  ActionIcon,
  Alert,
  Badge,
  Box,
  Button,
  Grid,
  Group,
  Loader,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import {
  DndContext,
  DragOverlay,
  KeyboardSensor,
  PointerSensor,
  closestCenter,
  pointerWithin,
  useDroppable,
  useSensor,
  useSensors,
  type CollisionDetection,
  type DragEndEvent,
  type DragOverEvent,
  type DragStartEvent,
} from '@dnd-kit/core';
import { SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import type { PlanRoute as Route, PlanStop, PlanView } from '@shiptrail/contract';
import {
  IconArrowDown,
  IconArrowUp,
  IconGripVertical,
  IconList,
  IconLock,
  IconLockOpen,
  IconRefresh,
  IconRoute,
} from '@tabler/icons-react';
import { useMemo, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { Link } from 'react-router';
import { LazyMap, type MapLine, type MapMarker } from '../../../components/map/lazy-map';
import { PageHeader } from '../../../components/page-header';
import { useUserInfo } from '../../../lib/user-info';
import { useChangeStop, useMakePlan, usePlan, useReplan } from '../api/plans';
import { ROUTE_ID, dropTarget } from './plan-drop';

/** One colour per courier, on the list and on the map. */
export const ROUTE_COLORS = ['#e8590c', '#1971c2', '#2f9e44', '#9c36b5', '#c2255c', '#0c8599', '#f08c00', '#5c940d', '#862e9c', '#364fc7'];

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

function StopRow({
  stop,
  route,
  plan,
  index,
  color,
  clock,
  busy,
  onChange,
}: {
  stop: PlanStop;
  route: Route;
  plan: PlanView;
  index: number;
  color: string;
  clock: (iso: string) => string;
  busy: boolean;
  onChange: (change: { locked?: boolean; courierEmail?: string; position?: number }) => void;
}) {
  const others = plan.routes.filter((r) => r.courierEmail !== route.courierEmail);
  // A stop done today (delivered, or an attempt failed: decision 137) stays at the head of its route as it was.
  const fixed = busy || stop.done;
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging, isOver, active } = useSortable({
    id: stop.tid,
    data: { courierEmail: route.courierEmail },
    disabled: fixed,
  });
  // Dragged in from another courier: it goes before this stop (or after it, below its middle).
  const incoming = isOver && active && (active.data.current as { courierEmail?: string } | undefined)?.courierEmail !== route.courierEmail;
  return (
    <Box
      component="li"
      ref={setNodeRef}
      py={6}
      data-testid="plan-stop"
      data-tid={stop.tid}
      data-locked={stop.locked ? 'true' : 'false'}
      data-done={stop.done ? 'true' : 'false'}
      style={{
        borderTop: incoming ? `3px solid ${color}` : index ? '1px solid var(--mantine-color-gray-2)' : undefined,
        transform: CSS.Translate.toString(transform),
        transition,
        opacity: isDragging ? 0.35 : undefined,
        background: 'var(--mantine-color-body)',
        position: 'relative',
        zIndex: isDragging ? 1 : undefined,
      }}
    >
      <Group gap="xs" wrap="wrap" align="flex-start">
        <Tooltip
          label={
            stop.done ? 'Done for today: it stays here' : 'Drag to another place or courier (or focus and press Space, then the arrows)'
          }
        >
          <ActionIcon
            ref={setActivatorNodeRef}
            variant="subtle"
            color="gray"
            aria-label={`Drag stop ${stop.tid}`}
            data-testid="plan-stop-handle"
            disabled={fixed}
            style={{ cursor: fixed ? undefined : 'grab', touchAction: 'none' }}
            {...attributes}
            {...listeners}
          >
            <IconGripVertical size={16} />
          </ActionIcon>
        </Tooltip>
        <Box
          w={24}
          h={24}
          style={{ borderRadius: '50%', background: color, color: '#fff', flexShrink: 0, display: 'grid', placeItems: 'center' }}
          fz={12}
          fw={700}
        >
          {stop.position}
        </Box>
        <Box style={{ flex: '1 1 230px', minWidth: 0 }}>
          <Group gap={6} wrap="wrap">
            <Text fw={700} size="sm" data-testid="plan-stop-eta" style={{ whiteSpace: 'nowrap' }}>
              {clock(stop.eta)}
            </Text>
            <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }} title="The window the customer is told">
              told {clock(stop.windowFrom)}–{clock(stop.windowTo)}
            </Text>
            {stop.late && (
              <Badge color="red" size="xs" title="After the move it misses its delivery window or the shift">
                late
              </Badge>
            )}
            {stop.status === 'Delivered' && (
              <Badge color="green" size="xs">
                delivered
              </Badge>
            )}
            {stop.status === 'FailAttempt' && (
              <Badge
                color="orange"
                size="xs"
                title="Nobody could take it: done for today, not visited again unless given to a courier again"
              >
                attempt failed
              </Badge>
            )}
          </Group>
          <Text size="sm" truncate="end" title={stop.address}>
            {stop.name ? `${stop.name}, ` : ''}
            {stop.address}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace">
            {stop.tid}
            {(stop.shipmentWindow.from || stop.shipmentWindow.to) &&
              ` · window ${stop.shipmentWindow.from ?? '…'}–${stop.shipmentWindow.to ?? '…'}`}
          </Text>
        </Box>
        <Group gap={2} wrap="nowrap" ml="auto">
          <Tooltip label={stop.locked ? 'Locked: kept here when planned again. Click to unlock' : 'Lock here (and the stops before it)'}>
            <ActionIcon
              variant={stop.locked ? 'filled' : 'subtle'}
              color={stop.locked ? 'dark' : 'gray'}
              aria-label={stop.locked ? `Unlock stop ${stop.tid}` : `Lock stop ${stop.tid}`}
              aria-pressed={stop.locked}
              disabled={fixed}
              onClick={() => onChange({ locked: !stop.locked })}
            >
              {stop.locked ? <IconLock size={16} /> : <IconLockOpen size={16} />}
            </ActionIcon>
          </Tooltip>
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label={`Move stop ${stop.tid} up`}
            disabled={fixed || index === 0 || route.stops[index - 1]!.done}
            onClick={() => onChange({ position: stop.position - 1 })}
          >
            <IconArrowUp size={16} />
          </ActionIcon>
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label={`Move stop ${stop.tid} down`}
            disabled={fixed || index === route.stops.length - 1}
            onClick={() => onChange({ position: stop.position + 1 })}
          >
            <IconArrowDown size={16} />
          </ActionIcon>
          <Select
            size="xs"
            w={120}
            placeholder="Move to…"
            aria-label={`Move stop ${stop.tid} to another courier`}
            data={others.map((r) => ({ value: r.courierEmail, label: r.courier }))}
            value={null}
            disabled={fixed || others.length === 0}
            onChange={(email) => email && onChange({ courierEmail: email })}
            comboboxProps={{ withinPortal: true }}
          />
        </Group>
      </Group>
    </Box>
  );
}

/** A courier's route: a drop target as a whole (the end of the route; the only target of an empty one). */
function RouteCard({ route, color, highlight, children }: { route: Route; color: string; highlight: boolean; children: ReactNode }) {
  const { setNodeRef } = useDroppable({ id: `route:${route.courierEmail}`, data: { courierEmail: route.courierEmail } });
  return (
    <Paper
      ref={setNodeRef}
      p="sm"
      data-testid="plan-route"
      data-courier={route.courierEmail}
      data-drop-target={highlight ? 'true' : undefined}
      style={{
        borderLeft: `5px solid ${color}`,
        outline: highlight ? `2px dashed ${color}` : undefined,
        outlineOffset: 2,
      }}
    >
      {children}
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
  const layers = useMemo(() => (p ? layersOf(p) : { markers: [], lines: [] }), [p]);
  const busy = make.isPending || again.isPending || change.isPending;
  const validDate = /^\d{4}-\d{2}-\d{2}$/.test(date);
  const onChange = (tid: string) => (c: { locked?: boolean; courierEmail?: string; position?: number }) => {
    setChangeError(null);
    change.mutate({ date, tid, ...c }, { onError: (e) => setChangeError(e.message) });
  };
  const stops = p?.routes.reduce((n, r) => n + r.stops.length, 0) ?? 0;

  // Drag a stop by its handle: the mouse or a finger (the handle does not scroll the page), or the keyboard
  // (Space to pick up, the arrows, Space to drop). The up/down buttons and "Move to" stay as the plain way.
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const [dragging, setDragging] = useState<string | null>(null);
  const [overRoute, setOverRoute] = useState<string | null>(null);
  const routeOfId = (id: string) =>
    id.startsWith(ROUTE_ID) ? id.slice(ROUTE_ID.length) : (p?.routes.find((r) => r.stops.some((s) => s.tid === id))?.courierEmail ?? null);
  // The stop under the pointer wins over its route; an empty route is a target of its own.
  const collide: CollisionDetection = (args) => {
    const stopsFirst = <T extends { id: string | number }>(list: T[]) => {
      const onStops = list.filter((c) => !String(c.id).startsWith(ROUTE_ID));
      const empty = list.filter(
        (c) => String(c.id).startsWith(ROUTE_ID) && !p?.routes.find((r) => `${ROUTE_ID}${r.courierEmail}` === c.id)?.stops.length,
      );
      return onStops.length ? onStops : empty.length ? empty : list;
    };
    const within = pointerWithin(args);
    return within.length ? stopsFirst(within) : stopsFirst(closestCenter(args));
  };
  const onDragStart = (e: DragStartEvent) => {
    setChangeError(null);
    setDragging(String(e.active.id));
  };
  const onDragOver = (e: DragOverEvent) => setOverRoute(e.over ? routeOfId(String(e.over.id)) : null);
  const onDragEnd = (e: DragEndEvent) => {
    setDragging(null);
    setOverRoute(null);
    if (!p || !e.over) return;
    const moved = e.active.rect.current.translated;
    const below = !!moved && moved.top + moved.height / 2 > e.over.rect.top + e.over.rect.height / 2;
    const tid = String(e.active.id);
    const target = dropTarget(p, tid, String(e.over.id), below);
    if (!target) return;
    onChange(tid)(target.sameRoute ? { position: target.position } : { courierEmail: target.courierEmail, position: target.position });
  };
  const draggedStop = dragging ? p?.routes.flatMap((r) => r.stops).find((s) => s.tid === dragging) : undefined;
  const announce = (id: string | number, over?: string | number | null) => {
    const who = over == null ? null : routeOfId(String(over));
    const name = p?.routes.find((r) => r.courierEmail === who)?.courier;
    return `Stop ${String(id)}${name ? ` over ${name}'s route${String(over).startsWith(ROUTE_ID) ? '' : `, at stop ${String(over)}`}` : ''}`;
  };

  return (
    <>
      <PageHeader
        title="Plan the day"
        description="Share a day's shipments among your couriers: each route in order, with the time the courier arrives and the hour the customer is told."
        actions={
          <Button component={Link} to="/account/shipments" variant="default" leftSection={<IconList size={16} />}>
            Shipments
          </Button>
        }
      />
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
            <DndContext
              sensors={sensors}
              collisionDetection={collide}
              onDragStart={onDragStart}
              onDragOver={onDragOver}
              onDragEnd={onDragEnd}
              onDragCancel={() => {
                setDragging(null);
                setOverRoute(null);
              }}
              accessibility={{
                screenReaderInstructions: {
                  draggable:
                    'To move a stop, press Space. Use the arrow keys to move it within its route or to another courier, Space again to drop it there, Escape to cancel.',
                },
                announcements: {
                  onDragStart: ({ active }) => `Picked up stop ${String(active.id)}`,
                  onDragOver: ({ active, over }) => announce(active.id, over?.id),
                  onDragEnd: ({ active, over }) =>
                    over ? `${announce(active.id, over.id)}: dropped` : `Stop ${String(active.id)} dropped`,
                  onDragCancel: ({ active }) => `Moving stop ${String(active.id)} was cancelled`,
                },
              }}
            >
              <Stack gap="sm" data-testid="plan-routes">
                {p.routes.map((r, i) => {
                  const color = ROUTE_COLORS[i % ROUTE_COLORS.length]!;
                  return (
                    <RouteCard key={r.courierUid} route={r} color={color} highlight={!!dragging && overRoute === r.courierEmail}>
                      <Group justify="space-between" mb={4}>
                        <Title order={3} fz="md">
                          {r.courier}
                        </Title>
                        <Text size="xs" c="dimmed">
                          {r.stops.length
                            ? `${r.stops.length} ${r.stops.length === 1 ? 'stop' : 'stops'} · ${clock(r.start)}–${clock(r.end)} · ${r.distanceKm} km`
                            : 'No stops: drop a stop here'}
                        </Text>
                      </Group>
                      <SortableContext items={r.stops.map((s) => s.tid)} strategy={verticalListSortingStrategy}>
                        <Box
                          component="ol"
                          m={0}
                          p={0}
                          style={{ listStyle: 'none', minHeight: r.stops.length ? undefined : 32 }}
                          aria-label={`${r.courier}'s stops`}
                        >
                          {r.stops.map((s, k) => (
                            <StopRow
                              key={s.tid}
                              stop={s}
                              route={r}
                              plan={p}
                              index={k}
                              color={color}
                              clock={clock}
                              busy={busy}
                              onChange={onChange(s.tid)}
                            />
                          ))}
                        </Box>
                      </SortableContext>
                    </RouteCard>
                  );
                })}
                {p.unplanned.length > 0 && (
                  <Paper p="sm" data-testid="plan-unplanned" style={{ borderLeft: '5px solid var(--mantine-color-red-6)' }}>
                    <Title order={3} fz="md" mb={4}>
                      Not planned ({p.unplanned.length})
                    </Title>
                    <Stack component="ul" gap={6} m={0} p={0} style={{ listStyle: 'none' }}>
                      {p.unplanned.map((u) => (
                        <li key={u.tid} data-tid={u.tid} data-reason={u.reason}>
                          <Text size="sm" fw={600}>
                            {u.address}{' '}
                            <Text span size="xs" c="dimmed" ff="monospace">
                              {u.tid}
                            </Text>
                          </Text>
                          <Text size="sm" c="red.8">
                            {u.message}
                          </Text>
                        </li>
                      ))}
                    </Stack>
                  </Paper>
                )}
              </Stack>
              {/* In a portal: the overlay is position: fixed, which a transformed ancestor would pin to itself. */}
              {createPortal(
                <DragOverlay>
                  {draggedStop && (
                    <Paper
                      shadow="md"
                      p="xs"
                      withBorder
                      data-testid="plan-drag-overlay"
                      style={{ cursor: 'grabbing', maxWidth: 'min(480px, 92vw)' }}
                    >
                      <Group gap="xs" wrap="nowrap">
                        <IconGripVertical size={16} />
                        <Text size="sm" fw={700}>
                          {clock(draggedStop.eta)}
                        </Text>
                        <Text size="sm" truncate="end">
                          {draggedStop.address}
                        </Text>
                        <Text size="xs" c="dimmed" ff="monospace">
                          {draggedStop.tid}
                        </Text>
                      </Group>
                    </Paper>
                  )}
                </DragOverlay>,
                document.body,
              )}
            </DndContext>
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 6 }}>
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
          </Grid.Col>
        </Grid>
      )}
    </>
  );
}
