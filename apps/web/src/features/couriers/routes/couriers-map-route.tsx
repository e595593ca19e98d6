import { Group, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { PageMap, type MapMarker } from '../../../components/map/lazy-map';
import { ListLink, PageHeader } from '../../../components/page-header';
import { formatDateTime } from '../../../lib/format';
import { couriersOf, memberName, membersQueryOptions } from '../../../lib/members';

// Couriers move: until pushed updates exist the list is asked for again on this interval while the map is open.
const REFRESH_MS = 15_000;

const initials = (name: string) =>
  name
    .split(/\s+/)
    .map((w) => w[0] ?? '')
    .join('')
    .slice(0, 2)
    .toUpperCase();

/** The fix's time, short: the clock time today, else the date and time. */
function fixTime(iso: string) {
  const d = new Date(iso);
  const sameDay = d.toDateString() === new Date().toDateString();
  return sameDay ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : formatDateTime(iso);
}

export default function CouriersMapRoute() {
  const members = useQuery({ ...membersQueryOptions(), refetchInterval: REFRESH_MS });
  const couriers = couriersOf(members.data ?? []);
  const placed = couriers.filter((c) => c.geo);
  const markers: MapMarker[] = placed.map((c) => {
    const name = memberName(c);
    return {
      id: `courier-${c.uid}`,
      lat: c.geo!.lat,
      lng: c.geo!.lng,
      kind: 'courier',
      text: initials(name),
      title: `${name}, ${c.geoAt ? formatDateTime(c.geoAt) : 'time unknown'}`,
      label: c.geoAt ? `${name} · ${fixTime(c.geoAt)}` : name,
      popup: (
        <div>
          <strong>{name}</strong>
          <br />
          {c.geoAt ? `Position at ${formatDateTime(c.geoAt)}` : 'Position time unknown'}
          <br />
          {c.openShipments} open {c.openShipments === 1 ? 'shipment' : 'shipments'}
        </div>
      ),
    };
  });
  const unplaced = couriers.length - placed.length;

  return (
    <>
      <PageHeader
        title="Couriers map"
        description="Where each courier last reported their position."
        actions={<ListLink to="/account/couriers">Couriers</ListLink>}
      />
      <PageMap label="Couriers map" markers={markers} />
      <Group mt="xs" gap="xs">
        <Text size="sm" c="dimmed" data-testid="couriers-map-summary">
          {members.isLoading
            ? 'Loading couriers…'
            : `${placed.length} of ${couriers.length} ${couriers.length === 1 ? 'courier' : 'couriers'} on the map` +
              (unplaced > 0 ? `; ${unplaced} ${unplaced === 1 ? 'has' : 'have'} not shared a position yet.` : '.')}
        </Text>
      </Group>
    </>
  );
}
