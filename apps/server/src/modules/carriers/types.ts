// Shared types of the carrier layer. The rest of the server (tracking refresh engine, add-tracking service)
// depends only on these names; keep them stable.

export type CourierSlug = 'ups' | 'usps' | 'fedex' | 'canadapost';

export const COURIER_SLUGS: readonly CourierSlug[] = ['ups', 'usps', 'fedex', 'canadapost'];

export const COURIERS: Record<CourierSlug, { name: string }> = {
  ups: { name: 'UPS' },
  usps: { name: 'USPS' },
  fedex: { name: 'FedEx' },
  canadapost: { name: 'Canada Post' },
};

export function isCourierSlug(value: unknown): value is CourierSlug {
  return typeof value === 'string' && (COURIER_SLUGS as readonly string[]).includes(value);
}

// The eight normalized statuses (product spec "Statuses for trackings and shipments"; carriers/apis.md §5.1).
// packages/contract will own TRACKING_STATUSES; until it exists this union is the source of truth here.
// `Expired` is computed by the platform and never produced by an adapter (apis.md §5.1).
export type TrackingStatus =
  | 'InfoReceived'
  | 'InTransit'
  | 'OutForDelivery'
  | 'FailAttempt'
  | 'Delivered'
  | 'Exception'
  | 'Expired'
  | 'Pending';

export const TRACKING_STATUS_LIST: readonly TrackingStatus[] = [
  'InfoReceived',
  'InTransit',
  'OutForDelivery',
  'FailAttempt',
  'Delivered',
  'Exception',
  'Expired',
  'Pending',
];

export type NormalizedCheckpoint = {
  status: TrackingStatus;
  location: string | null;
  message: string;
  /** ISO-8601 UTC instant. */
  time: string;
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
      origin: string | null;
      destination: string | null;
    }
  | {
      ok: false;
      tid: string;
      courier: CourierSlug;
      error: { kind: CarrierErrorKind; message: string; retryAfterMs?: number };
    };

export type TrackSuccess = Extract<TrackResult, { ok: true }>;
export type TrackFailure = Extract<TrackResult, { ok: false }>;
