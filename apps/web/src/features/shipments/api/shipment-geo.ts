import type { ShipmentView } from '@shiptrail/contract';

export interface RoutePoint {
  kind: 'origin' | 'checkpoint' | 'destination';
  lat: number;
  lng: number;
}

const at = (lat: number | null | undefined, long: number | null | undefined) =>
  lat != null && long != null && Number.isFinite(lat) && Number.isFinite(long) ? { lat, lng: long } : null;

/**
 * A shipment's points on the map, in travel order: its origin, its last checkpoint that carried a position,
 * and its destination, each when known. The line through them is the route drawn on the maps.
 */
export function shipmentRoute(s: Pick<ShipmentView, 'origin' | 'destination' | 'checkpoints'>): RoutePoint[] {
  const out: RoutePoint[] = [];
  const origin = at(s.origin.lat, s.origin.long);
  if (origin) out.push({ kind: 'origin', ...origin });
  // Checkpoints come newest first.
  const last = s.checkpoints.map((c) => at(c.lat, c.long)).find((p) => p !== null);
  if (last) out.push({ kind: 'checkpoint', ...last });
  const destination = at(s.destination.lat, s.destination.long);
  if (destination) out.push({ kind: 'destination', ...destination });
  return out;
}
