import { ActionIcon, Badge, Box, Group, Select, Text, Tooltip } from '@mantine/core';
import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import type { PlanRoute as Route, PlanStop, PlanView } from '@shiptrail/contract';
import { IconArrowDown, IconArrowUp, IconGripVertical, IconLock, IconLockOpen } from '@tabler/icons-react';

/** A change to a planned stop: lock or unlock it, give it to another courier, move it to another place. */
export type StopChange = { locked?: boolean; courierEmail?: string; position?: number };

/** The stop's times, its state badges, its address and number. */
function StopSummary({ stop, clock }: { stop: PlanStop; clock: (iso: string) => string }) {
  return (
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
          <Badge color="orange" size="xs" title="Nobody could take it: done for today, not visited again unless given to a courier again">
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
  );
}

/** The plain way to change a stop: lock, up, down and "Move to" another courier. */
function StopActions({
  stop,
  route,
  plan,
  index,
  fixed,
  onChange,
}: {
  stop: PlanStop;
  route: Route;
  plan: PlanView;
  index: number;
  fixed: boolean;
  onChange: (change: StopChange) => void;
}) {
  const others = plan.routes.filter((r) => r.courierEmail !== route.courierEmail);
  return (
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
  );
}

/** The handle a stop is dragged by (or picked up with Space, then moved with the arrows). */
function StopHandle({
  stop,
  fixed,
  sortable: { attributes, listeners, setActivatorNodeRef },
}: {
  stop: PlanStop;
  fixed: boolean;
  sortable: Pick<ReturnType<typeof useSortable>, 'attributes' | 'listeners' | 'setActivatorNodeRef'>;
}) {
  return (
    <Tooltip
      label={stop.done ? 'Done for today: it stays here' : 'Drag to another place or courier (or focus and press Space, then the arrows)'}
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
  );
}

/** The stop's number on its route, in the route's colour. */
function StopNumber({ position, color }: { position: number; color: string }) {
  return (
    <Box
      w={24}
      h={24}
      style={{ borderRadius: '50%', background: color, color: '#fff', flexShrink: 0, display: 'grid', placeItems: 'center' }}
      fz={12}
      fw={700}
    >
      {position}
    </Box>
  );
}

/** A planned stop in its route's list: dragged by its handle, or changed with its buttons. */
export function StopRow({
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
  onChange: (change: StopChange) => void;
}) {
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
        <StopHandle stop={stop} fixed={fixed} sortable={{ attributes, listeners, setActivatorNodeRef }} />
        <StopNumber position={stop.position} color={color} />
        <StopSummary stop={stop} clock={clock} />
        <StopActions stop={stop} route={route} plan={plan} index={index} fixed={fixed} onChange={onChange} />
      </Group>
    </Box>
  );
}
