import { Anchor, Text } from '@mantine/core';
import { MAP_DEFAULTS, type ShipmentView } from '@shiptrail/contract';
import { Link } from 'react-router';
import type { MapLine, MapMarker } from '../../../components/map/lazy-map';
import { statusLabel } from '../../../lib/format';
import { shipmentRoute, type RoutePoint } from '../api/shipment-geo';
import type { ReactNode } from 'react';

const POINT_TITLES = { origin: 'Origin', checkpoint: 'Last checkpoint', destination: 'Destination' } as const;

/** The markers and the line of one shipment; the popup links to its side panel on the shipments page. */
export function shipmentLayers(s: ShipmentView, withLink: boolean): { markers: MapMarker[]; line: MapLine | null } {
  const points = shipmentRoute(s);
  const place = (a: ShipmentView['origin']) => [a.city, a.state].filter(Boolean).join(', ');
  const popup = (
    <div>
      <Text fw={700} ff="monospace" size="sm">
        {s.tid}
      </Text>
      <Text size="sm">{statusLabel(s.status)}</Text>
      <Text size="sm">
        {place(s.origin)} → {place(s.destination)}
      </Text>
      {s.courier && <Text size="sm">Courier: {s.courier}</Text>}
      {s.lastCheckPoint?.location && <Text size="sm">Last: {s.lastCheckPoint.location}</Text>}
      {withLink && (
        <Anchor component={Link} to={`/account/shipments?tid=${encodeURIComponent(s.tid)}`} size="sm">
          Open details
        </Anchor>
      )}
    </div>
  );
  return routeLayers(s.tid, points, popup);
}

/** The markers of a shipment's points, each titled with its kind and showing `popup`, and the line through them. */
export function routeLayers(tid: string, points: RoutePoint[], popup: ReactNode): { markers: MapMarker[]; line: MapLine | null } {
  const markers = points.map((p) => ({
    id: `${tid}-${p.kind}`,
    lat: p.lat,
    lng: p.lng,
    kind: p.kind,
    title: `${tid}: ${POINT_TITLES[p.kind]}`,
    popup,
  }));
  const line = points.length > 1 ? { id: tid, points: points.map((p) => [p.lat, p.lng] as [number, number]) } : null;
  return { markers, line };
}

/** Where a shipment's small map starts: its last known point, at the detail zoom. */
export function shipmentCenter(s: ShipmentView): [number, number] | null {
  const points = shipmentRoute(s);
  const p = points.find((x) => x.kind === 'checkpoint') ?? points[0];
  return p ? [p.lat, p.lng] : null;
}

export const DETAIL_ZOOM = MAP_DEFAULTS.detailZoom;
