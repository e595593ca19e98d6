import { queryOptions, useQuery } from '@tanstack/react-query';
import { requestPayload } from '../../../lib/api-client';
import type { Brand, PublicShipment, PublicTracking } from '@shiptrail/contract';

/** How a company presents itself on the public page of its parcels and shipments. */
export type PublicBrand = Brand;

/** A carrier tracking, or a company's own shipment (kind 'shipment', which may name who signed for it). */
export type PublicParcel = (PublicTracking & { kind?: undefined; signedBy?: undefined }) | PublicShipment;

/** The payload is a list; the first item is the shipment (product rules §2). No token is sent (product rules §6). */
export async function getPublicTracking(uid: string, tid: string): Promise<PublicParcel | null> {
  const list = await requestPayload<PublicParcel[] | PublicParcel>(`/v1/track/${encodeURIComponent(uid)}_${encodeURIComponent(tid)}`, {
    auth: false,
  });
  return (Array.isArray(list) ? list[0] : list) ?? null;
}

export const publicTrackingQueryOptions = (uid: string, tid: string) =>
  // Visitors have no session and so no live stream: the page asks again while it is open (carriers move a
  // parcel every few minutes at most, and the server answers from the database, not the carrier).
  queryOptions({ queryKey: ['public-tracking', uid, tid], queryFn: () => getPublicTracking(uid, tid), retry: false, refetchInterval: 30_000 });

export const usePublicTracking = (uid: string, tid: string) => useQuery(publicTrackingQueryOptions(uid, tid));
