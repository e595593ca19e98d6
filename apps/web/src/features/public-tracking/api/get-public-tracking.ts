import { useEffect, useState } from 'react';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
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

/** How often the page asks again: rarely while its live stream is open, every 30 s when it cannot be. */
export const POLL_LIVE_MS = 5 * 60_000;
export const POLL_MS = 30_000;

export const publicTrackingQueryOptions = (uid: string, tid: string, live = false) =>
  queryOptions({
    queryKey: ['public-tracking', uid, tid],
    queryFn: () => getPublicTracking(uid, tid),
    retry: false,
    refetchInterval: live ? POLL_LIVE_MS : POLL_MS,
  });

/**
 * Follow the parcel's public stream (GET /v1/track/{uid}_{tid}/live, no token, so a plain EventSource, which
 * reconnects and resumes by itself): each event makes the page read the parcel again. True while connected.
 */
export function usePublicLive(uid: string, tid: string): boolean {
  const qc = useQueryClient();
  const [live, setLive] = useState(false);
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const es = new EventSource(`/v1/track/${encodeURIComponent(uid)}_${encodeURIComponent(tid)}/live`);
    es.onopen = () => setLive(true);
    es.onerror = () => setLive(false);
    es.onmessage = () => void qc.invalidateQueries({ queryKey: ['public-tracking', uid, tid] });
    return () => es.close();
  }, [qc, uid, tid]);
  return live;
}

export const usePublicTracking = (uid: string, tid: string) => {
  const live = usePublicLive(uid, tid);
  return useQuery(publicTrackingQueryOptions(uid, tid, live));
};
