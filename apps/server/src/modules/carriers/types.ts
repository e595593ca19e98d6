// Shared types of the carrier layer. The rest of the server (tracking refresh engine, add-tracking service)
// depends only on these names; keep them stable.

import { COURIER_NAMES, COURIER_SLUGS, type CourierSlug, type TrackingStatus } from '@shiptrail/contract/constants';

// Slugs, names and the eight normalized statuses come from the contract (one definition for server and
// web). `Expired` is computed by the platform and never produced by an adapter (carrier notes §5.1).
export { COURIER_SLUGS, type CourierSlug, type TrackingStatus };

export const COURIERS = Object.fromEntries(COURIER_SLUGS.map((c) => [c, { name: COURIER_NAMES[c] }])) as Record<
  CourierSlug,
  { name: string }
>;

export function isCourierSlug(value: unknown): value is CourierSlug {
  return typeof value === 'string' && (COURIER_SLUGS as readonly string[]).includes(value);
}

export type NormalizedCheckpoint = {
  status: TrackingStatus;
  location: string | null;
  message: string;
  /** ISO-8601 UTC instant. */
  time: string;
};

/**
 * A delivery estimate, normalised (decision 122): `date` is the calendar day YYYY-MM-DD as the carrier (or the
 * predictor) names it, at the destination; `from`/`to` bound the window: ISO-8601 date-times with the carrier's
 * local offset (the wall clock the carrier promised, and an instant) when it gives times, calendar days YYYY-MM-DD
 * for a predicted window of days, null when there is no bound. `updatedAt`: when this estimate was first seen.
 */
export type EstimatedDelivery = {
  date: string;
  from: string | null;
  to: string | null;
  source: 'carrier' | 'predicted';
  updatedAt: string;
};

export type CarrierErrorKind = 'not-found' | 'auth' | 'rate-limited' | 'carrier-down' | 'malformed';

export type TrackResult =
  | {
      ok: true;
      tid: string;
      courier: CourierSlug;
      status: TrackingStatus;
      /** Newest first. */
      checkpoints: NormalizedCheckpoint[];
      /** ISO-8601: a calendar date `YYYY-MM-DD` when the carrier gives only a day, else a UTC instant. Null once delivered. */
      expected: string | null;
      /** The carrier's estimate with its window (source 'carrier'); null or absent when it gives none, null once delivered. */
      estimatedDelivery?: EstimatedDelivery | null;
      origin: string | null;
      destination: string | null;
      /** The carrier's name of the service the parcel travels by ("UPS Ground", "Priority Mail"); null when it gives none (decision 158). */
      service?: string | null;
      /** One pushed event rather than the carrier's whole picture (UPS Track Alert): merged, never a regression. */
      partial?: boolean;
      /** The pushed event carries no status of its own (a UPS informational scan): the tracking keeps its status. */
      keepStatus?: boolean;
    }
  | {
      ok: false;
      tid: string;
      courier: CourierSlug;
      error: { kind: CarrierErrorKind; message: string; retryAfterMs?: number };
    };

export type TrackSuccess = Extract<TrackResult, { ok: true }>;
export type TrackFailure = Extract<TrackResult, { ok: false }>;
