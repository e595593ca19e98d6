import type { ShipmentStatus, ShipmentView, UpdateShipmentRequest } from '@shiptrail/contract';
import { ApiError } from '../../../lib/api-client';
import { isOnline } from '../../../lib/connection';
import { drain, enqueue } from './outbox';

// Confirming a pickup by scan (decision 138). Shiptrail has no "picked up" status: a new shipment is Info Received
// (product spec: "A new shipment defaults to InfoReceived"), and the carriers' statuses put a parcel on its way
// as In Transit. So a shipment still Info Received or Pending has not been picked up, and confirming the pickup
// records an In Transit checkpoint at the shipment's origin, through the phone's outbox like every courier action.

const NOT_PICKED_UP: readonly ShipmentStatus[] = ['InfoReceived', 'Pending'];

/** Whether a stop still waits to be picked up: its status, or the last action waiting on the phone for it. */
export const awaitingPickup = (s: Pick<ShipmentView, 'status'>, waitingStatus?: string) =>
  NOT_PICKED_UP.includes((waitingStatus ?? s.status) as ShipmentStatus);

export const PICKED_UP_MESSAGE = 'Picked up by the courier';

const originLine = (s: ShipmentView) =>
  [s.origin.name, s.origin.address1, s.origin.city]
    .map((x) => x?.trim())
    .filter(Boolean)
    .join(', ') || 'Pickup address';

/** The checkpoint a pickup records: In Transit at the origin, with the origin's position when it has one. */
export function pickupBody(s: ShipmentView): UpdateShipmentRequest {
  return {
    tid: s.tid,
    status: 'InTransit',
    location: originLine(s).slice(0, 300),
    message: PICKED_UP_MESSAGE,
    ...(s.origin.lat != null && s.origin.long != null ? { lat: s.origin.lat, long: s.origin.long } : {}),
  };
}

/**
 * Keeps the pickup on the phone with the time it happened, then sends it when there is signal. Resolves 'sent'
 * or 'kept' (it waits on the phone); a refusal by the server is thrown (an ApiError, in its words).
 */
export async function confirmPickup(account: string, s: ShipmentView): Promise<'sent' | 'kept'> {
  const item = await enqueue(account, pickupBody(s));
  if (!isOnline()) return 'kept';
  const outcome = (await drain(account, item.key)).get(item.key);
  if (outcome instanceof ApiError) throw outcome;
  return outcome === 'sent' ? 'sent' : 'kept';
}
