import { queryOptions, useQuery } from '@tanstack/react-query';
import { requestPayload } from '../../../lib/api-client';
import type { Checkpoint } from '../../../components/checkpoint-timeline';

/** How a company presents itself on the public page of its parcels and shipments. */
export interface PublicBrand {
  name: string;
  logo: string;
  color: string;
  url: string;
}

export interface PublicTracking {
  /** 'shipment' for a company's own (SHM) shipment. */
  kind?: string;
  tid: string;
  courier?: string | null;
  courierName?: string;
  status?: string | null;
  origin?: string | null;
  destination?: string | null;
  expected?: string | null;
  notify?: { email?: string | null; phone?: string | null } | null;
  checkpoints?: Checkpoint[] | null;
  updatedAt?: string | null;
  /** Who signed for the delivery, when proof of delivery was captured. */
  signedBy?: string | null;
  /** Present when the parcel belongs to a company: its name, logo and colour replace Shiptrail's. */
  brand?: PublicBrand | null;
}

/** The payload is a list; the first item is the shipment (product rules §2). No token is sent (product rules §6). */
export async function getPublicTracking(uid: string, tid: string): Promise<PublicTracking | null> {
  const list = await requestPayload<PublicTracking[] | PublicTracking>(`/v1/track/${encodeURIComponent(uid)}_${encodeURIComponent(tid)}`, {
    auth: false,
  });
  return (Array.isArray(list) ? list[0] : list) ?? null;
}

export const publicTrackingQueryOptions = (uid: string, tid: string) =>
  queryOptions({ queryKey: ['public-tracking', uid, tid], queryFn: () => getPublicTracking(uid, tid), retry: false });

export const usePublicTracking = (uid: string, tid: string) => useQuery(publicTrackingQueryOptions(uid, tid));
