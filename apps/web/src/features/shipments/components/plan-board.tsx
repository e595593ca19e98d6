import { Box, Group, Paper, Stack, Text, Title } from '@mantine/core';
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
  type Announcements,
  type CollisionDetection,
  type DragEndEvent,
  type DragOverEvent,
  type DragStartEvent,
} from '@dnd-kit/core';
import { SortableContext, sortableKeyboardCoordinates, verticalListSortingStrategy } from '@dnd-kit/sortable';
import type { PlanRoute as Route, PlanStop, PlanView } from '@shiptrail/contract';
import { IconGripVertical } from '@tabler/icons-react';
import { useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { ROUTE_ID, dropTarget } from '../routes/plan-drop';
import { StopRow, type StopChange } from './plan-stop-row';

/** One colour per courier, on the list and on the map. */
export const ROUTE_COLORS = ['#e8590c', '#1971c2', '#2f9e44', '#9c36b5', '#c2255c', '#0c8599', '#f08c00', '#5c940d', '#862e9c', '#364fc7'];

/** A change to the stop `tid`, as the plan page sends it. */
type ChangeOf = (tid: string) => (change: StopChange) => void;

/**
 * Dragging a stop by its handle: the mouse or a finger (the handle does not scroll the page), or the keyboard
 * (Space to pick up, the arrows, Space to drop). The up/down buttons and "Move to" stay as the plain way.
 */
function usePlanDrag(p: PlanView, onChange: ChangeOf, onPickUp: () => void) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const [dragging, setDragging] = useState<string | null>(null);
  const [overRoute, setOverRoute] = useState<string | null>(null);
  const routeOfId = (id: string) =>
    id.startsWith(ROUTE_ID) ? id.slice(ROUTE_ID.length) : (p.routes.find((r) => r.stops.some((s) => s.tid === id))?.courierEmail ?? null);
  // The stop under the pointer wins over its route; an empty route is a target of its own.
  const collide: CollisionDetection = (args) => {
    const stopsFirst = <T extends { id: string | number }>(list: T[]) => {
      const onStops = list.filter((c) => !String(c.id).startsWith(ROUTE_ID));
      const empty = list.filter(
        (c) => String(c.id).startsWith(ROUTE_ID) && !p.routes.find((r) => `${ROUTE_ID}${r.courierEmail}` === c.id)?.stops.length,
      );
      return onStops.length ? onStops : empty.length ? empty : list;
    };
    const within = pointerWithin(args);
    return within.length ? stopsFirst(within) : stopsFirst(closestCenter(args));
  };
  const onDragStart = (e: DragStartEvent) => {
    onPickUp();
    setDragging(String(e.active.id));
  };
  const onDragOver = (e: DragOverEvent) => setOverRoute(e.over ? routeOfId(String(e.over.id)) : null);
  const onDragEnd = (e: DragEndEvent) => {
    setDragging(null);
    setOverRoute(null);
    if (!e.over) return;
    const moved = e.active.rect.current.translated;
    const below = !!moved && moved.top + moved.height / 2 > e.over.rect.top + e.over.rect.height / 2;
    const tid = String(e.active.id);
    const target = dropTarget(p, tid, String(e.over.id), below);
    if (!target) return;
    onChange(tid)(target.sameRoute ? { position: target.position } : { courierEmail: target.courierEmail, position: target.position });
  };
  const onDragCancel = () => {
    setDragging(null);
    setOverRoute(null);
  };
  const announce = (id: string | number, over?: string | number | null) => {
    const who = over == null ? null : routeOfId(String(over));
    const name = p.routes.find((r) => r.courierEmail === who)?.courier;
    return `Stop ${String(id)}${name ? ` over ${name}'s route${String(over).startsWith(ROUTE_ID) ? '' : `, at stop ${String(over)}`}` : ''}`;
  };
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up stop ${String(active.id)}`,
    onDragOver: ({ active, over }) => announce(active.id, over?.id),
    onDragEnd: ({ active, over }) => (over ? `${announce(active.id, over.id)}: dropped` : `Stop ${String(active.id)} dropped`),
    onDragCancel: ({ active }) => `Moving stop ${String(active.id)} was cancelled`,
  };
  const draggedStop = dragging ? p.routes.flatMap((r) => r.stops).find((s) => s.tid === dragging) : undefined;
  return {
    dragging,
    overRoute,
    draggedStop,
    context: { sensors, collisionDetection: collide, onDragStart, onDragOver, onDragEnd, onDragCancel, announcements },
  };
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

/** A courier's route with its heading and its stops in order. */
function PlannedRoute({
  route: r,
  plan,
  color,
  highlight,
  clock,
  busy,
  onChange,
}: {
  route: Route;
  plan: PlanView;
  color: string;
  highlight: boolean;
  clock: (iso: string) => string;
  busy: boolean;
  onChange: ChangeOf;
}) {
  return (
    <RouteCard route={r} color={color} highlight={highlight}>
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
              plan={plan}
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
}

/** The shipments the plan could not place, each with the reason. */
function Unplanned({ plan: p }: { plan: PlanView }) {
  return (
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
  );
}

/** The stop under the pointer while it is dragged. */
function DraggedStop({ stop, clock }: { stop: PlanStop; clock: (iso: string) => string }) {
  return (
    <Paper shadow="md" p="xs" withBorder data-testid="plan-drag-overlay" style={{ cursor: 'grabbing', maxWidth: 'min(480px, 92vw)' }}>
      <Group gap="xs" wrap="nowrap">
        <IconGripVertical size={16} />
        <Text size="sm" fw={700}>
          {clock(stop.eta)}
        </Text>
        <Text size="sm" truncate="end">
          {stop.address}
        </Text>
        <Text size="xs" c="dimmed" ff="monospace">
          {stop.tid}
        </Text>
      </Group>
    </Paper>
  );
}

/** The day's routes, one card a courier, whose stops are dragged within a route or to another one. */
export function PlanBoard({
  plan: p,
  clock,
  busy,
  onChange,
  onPickUp,
}: {
  plan: PlanView;
  clock: (iso: string) => string;
  busy: boolean;
  onChange: ChangeOf;
  onPickUp: () => void;
}) {
  const { dragging, overRoute, draggedStop, context } = usePlanDrag(p, onChange, onPickUp);
  const { announcements, ...handlers } = context;
  return (
    <DndContext
      {...handlers}
      accessibility={{
        screenReaderInstructions: {
          draggable:
            'To move a stop, press Space. Use the arrow keys to move it within its route or to another courier, Space again to drop it there, Escape to cancel.',
        },
        announcements,
      }}
    >
      <Stack gap="sm" data-testid="plan-routes">
        {p.routes.map((r, i) => (
          <PlannedRoute
            key={r.courierUid}
            route={r}
            plan={p}
            color={ROUTE_COLORS[i % ROUTE_COLORS.length]!}
            highlight={!!dragging && overRoute === r.courierEmail}
            clock={clock}
            busy={busy}
            onChange={onChange}
          />
        ))}
        {p.unplanned.length > 0 && <Unplanned plan={p} />}
      </Stack>
      {/* In a portal: the overlay is position: fixed, which a transformed ancestor would pin to itself. */}
      {createPortal(<DragOverlay>{draggedStop && <DraggedStop stop={draggedStop} clock={clock} />}</DragOverlay>, document.body)}
    </DndContext>
  );
}
