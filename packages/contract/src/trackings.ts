import { z } from 'zod';
import { MSG } from './messages.ts';
import { COURIER_SLUGS, LIMITS, TRACKING_NUMBER_MAX, TRACKING_STATUSES } from './constants.ts';
import { afterNumberField, listOf, optionalEmailField, optionalString, optionalUsPhone, pageSizeField } from './common.ts';
import { brandSchema } from './shipments.ts';
import { checkpointSchema } from './checkpoints.ts';

// Trackings (product rules §3 Tracking, §7 calls): requests the server validates and the web forms reuse, and
// the views the server returns.

/** A courier slug; '' or null means "detect it from the number". Names ('UPS', 'Canada Post') are accepted too. */
export const courierInput = z
  .union([z.string(), z.null()])
  .optional()
  .transform((v) =>
    v == null
      ? null
      : v
          .trim()
          .toLowerCase()
          .replace(/[\s_-]/g, ''),
  )
  .transform((v) => (v === '' ? null : v))
  .pipe(z.enum(COURIER_SLUGS, { error: 'Unknown courier: use ups, usps, fedex or canadapost' }).nullable());

const TRACKING_NUMBER_SEPARATORS = /[\s\-\u2010-\u2015_.]+/g;

/** Upper case, without spaces, dashes, dots and underscores: how a tracking number is stored and compared. */
export function normalizeTrackingNumber(raw: string): string {
  return String(raw ?? '')
    .replace(TRACKING_NUMBER_SEPARATORS, '')
    .toUpperCase();
}

/** Required; at most TRACKING_NUMBER_MAX letters and digits once spaces and dashes are left out. */
const tidField = z
  .string({ error: MSG.trackingNumberRequired })
  .trim()
  .min(1, MSG.trackingNumberRequired)
  .max(TRACKING_NUMBER_MAX * 3, MSG.trackingNumberTooLong)
  .refine((v) => normalizeTrackingNumber(v).length <= TRACKING_NUMBER_MAX, MSG.trackingNumberTooLong);

export const notifyInput = z.object({ email: optionalEmailField(MSG.emailInvalid), phone: optionalUsPhone(MSG.phoneInvalid) });

export const addTrackingRequest = z.object({
  tid: tidField,
  courier: courierInput,
  title: optionalString(200),
  orderId: optionalString(100),
  customer: optionalString(200),
  notify: notifyInput.optional().nullable(),
  note: optionalString(2000),
});
export type AddTrackingRequest = z.input<typeof addTrackingRequest>;

/** Update: the tid picks the tracking; fields left out are kept (same fields as add). */
export const updateTrackingRequest = addTrackingRequest;
export type UpdateTrackingRequest = z.input<typeof updateTrackingRequest>;

/** "a,b" or repeated query values of one of `values` → a list; empty means no filter. */
const csvList = <T extends readonly [string, ...string[]]>(values: T, message: string) => listOf(z.enum(values, { error: message }));

export const listTrackingsQuery = z.object({
  numRecords: pageSizeField(LIMITS.maxTrackingsPerPage, LIMITS.trackingsPerPage),
  lastTid: afterNumberField(),
  status: csvList(TRACKING_STATUSES, `Unknown status: use ${TRACKING_STATUSES.join(', ')}`),
  courier: csvList(COURIER_SLUGS, `Unknown courier: use ${COURIER_SLUGS.join(', ')}`),
  /** The version token of product rules §7; ignored (the web app sends it to bust caches). */
  v: z.string().optional(),
});
export type ListTrackingsQuery = z.input<typeof listTrackingsQuery>;

export const detectRequest = z.object({ tid: tidField });

export { checkpointSchema, type Checkpoint } from './checkpoints.ts';

/**
 * When a parcel should arrive (issue 32, decision 122). `date`: the day, YYYY-MM-DD, at the destination. `from`/`to`:
 * the window's bounds: ISO-8601 date-times with the carrier's local offset (`2026-12-01T10:00:00-05:00`: the wall
 * clock the carrier promised, and an instant) when the carrier gives times; calendar days YYYY-MM-DD for a
 * predicted window of days; null when there is no bound. `source`: 'carrier' (the carrier's own estimate) or
 * 'predicted' (Shiptrail's prediction from its delivered parcels, when the carrier gives none). `updatedAt`:
 * ISO-8601 UTC, when this estimate was first seen. Null when there is neither, and once delivered.
 */
export const estimatedDeliverySchema = z.object({
  date: z.string(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  source: z.enum(['carrier', 'predicted']),
  updatedAt: z.string(),
});
export type EstimatedDeliveryView = z.infer<typeof estimatedDeliverySchema>;

/** A stored estimate (the server keeps it as jsonb, which has its own key order) in the contract's shape and key order. */
export function estimateView(v: unknown): EstimatedDeliveryView | null {
  if (!v || typeof v !== 'object') return null;
  const e = v as Record<string, unknown>;
  const text = (x: unknown) => (typeof x === 'string' ? x : null);
  return {
    date: String(e.date ?? ''),
    from: text(e.from),
    to: text(e.to),
    source: e.source === 'predicted' ? 'predicted' : 'carrier',
    updatedAt: String(e.updatedAt ?? ''),
  };
}

/**
 * "Likely late" as a tracking shows it (decision 151): `source` 'carrier' (the carrier revised its promise past its
 * first one, or its window passed while the parcel was not out for delivery) or 'history' (our delivered parcels
 * like this one usually take longer than the carrier's date); `usualDays`: for 'history', the calendar days from
 * shipping that they usually take, else null. Null when the parcel is not likely late (and once delivered).
 */
export const likelyLateSchema = z.object({
  source: z.enum(['carrier', 'history']),
  usualDays: z.number().int().nullable(),
});
export type LikelyLateView = z.infer<typeof likelyLateSchema>;

/**
 * Likely late from what the server stores (its `lateFor`: the estimate found late, `date|to`, with `|history|N` when
 * our history found it) and the estimate shown: only while the carrier's estimate is shown.
 */
export function likelyLateOf(lateFor: string | null, estimate: Pick<EstimatedDeliveryView, 'source'> | null): LikelyLateView | null {
  if (!lateFor || !estimate || estimate.source !== 'carrier') return null;
  const [, , source, days] = lateFor.split('|');
  if (source !== 'history') return { source: 'carrier', usualDays: null };
  return { source: 'history', usualDays: days && /^\d+$/.test(days) ? Number(days) : null };
}

/** The reason a "likely late" message gives (decision 151), or null when the carrier's own dates say it. */
export function likelyLateReason(late: LikelyLateView | null): string | null {
  if (late?.source !== 'history') return null;
  const days = late.usualDays === null ? 'longer' : `${late.usualDays} ${late.usualDays === 1 ? 'day' : 'days'}`;
  return `Our delivery history on this lane says it usually takes ${days}.`;
}

/**
 * "Likely late" as the public tracking page says it to the recipient (decision 152): a headline and why, in the
 * recipient's words (no "first promise", no "lane"); null when the parcel is not likely late.
 */
export function likelyLateForRecipient(late: LikelyLateView | null): { title: string; detail: string } | null {
  if (!late) return null;
  if (late.source === 'carrier') {
    return {
      title: 'Running late',
      detail: 'The carrier has moved its delivery date or missed it, so this parcel may arrive later than first promised.',
    };
  }
  const usual = late.usualDays === null ? 'longer' : `${late.usualDays} ${late.usualDays === 1 ? 'day' : 'days'}`;
  return {
    title: 'Likely to arrive late',
    detail: `Parcels like this one usually take ${usual} to arrive, so it may come after the carrier's date.`,
  };
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A calendar day YYYY-MM-DD (or the day of an ISO date-time as written) as "Tue 1 Dec"; '' when unreadable. */
export function estimateDay(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (!m) return '';
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (Number.isNaN(d.getTime())) return '';
  return `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
}

/** The wall-clock time HH:MM of a bound written with its offset; null for a day or no bound. */
export function estimateTime(bound: string | null): string | null {
  const m = bound ? /^\d{4}-\d{2}-\d{2}T(\d{2}):(\d{2})/.exec(bound) : null;
  return m ? `${m[1]}:${m[2]}` : null;
}

/** The UTC offset a bound is written with, in minutes east of UTC ("-05:00" is -300); null for a day or no offset. */
export function estimateOffsetMinutes(bound: string | null): number | null {
  const m = bound ? /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|([+-])(\d{2}):?(\d{2}))$/.exec(bound) : null;
  if (!m) return null;
  if (m[1] === 'Z') return 0;
  return (m[2] === '-' ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4]));
}

/**
 * The clock an estimate's hours are written in, "UTC−5": the carrier writes its window in the destination's local
 * time (decision 163); null when the estimate has no time of day or is predicted (whole days).
 */
export function estimateClock(e: Pick<EstimatedDeliveryView, 'from' | 'to' | 'source'>): string | null {
  if (e.source === 'predicted') return null;
  const offset = estimateOffsetMinutes(e.from ?? e.to);
  if (offset === null) return null;
  const hours = Math.floor(Math.abs(offset) / 60);
  const minutes = Math.abs(offset) % 60;
  return offset === 0 ? 'UTC' : `UTC${offset < 0 ? '\u2212' : '+'}${hours}${minutes ? `:${String(minutes).padStart(2, '0')}` : ''}`;
}

/**
 * Whose clock the estimate's times are in, when it is not the reader's: the carrier writes its window in the
 * destination's local time, the page shows checkpoints in the reader's (decision 163). `readerOffsetAt` gives the
 * reader's offset in minutes east of UTC at an instant (in a browser `(d) => -d.getTimezoneOffset()`).
 * "local time at the destination (UTC−5)"; null when the estimate has no time of day or the clocks agree.
 */
export function estimateZoneNote(
  e: Pick<EstimatedDeliveryView, 'from' | 'to' | 'source'>,
  readerOffsetAt: (instant: Date) => number,
): string | null {
  const clock = estimateClock(e);
  const bound = e.from ?? e.to;
  if (clock === null || bound === null) return null;
  if (readerOffsetAt(new Date(bound)) === estimateOffsetMinutes(bound)) return null;
  return `local time at the destination (${clock})`;
}

/**
 * The estimate in words, one text for the web app, the public page and the messages (decision 122):
 * "Expected Tue 1 Dec, between 10:00 and 14:00" (the carrier's window, in the carrier's local time),
 * "Expected Tue 1 Dec" (a day), "Expected by Tue 1 Dec (predicted)" (the predicted window's last day).
 */
export function describeEstimate(e: Pick<EstimatedDeliveryView, 'date' | 'from' | 'to' | 'source'>): string {
  if (e.source === 'predicted') return `Expected by ${estimateDay(e.to ?? e.date)} (predicted)`;
  const day = estimateDay(e.date);
  const from = estimateTime(e.from);
  const to = estimateTime(e.to);
  if (from && to) return from === to ? `Expected ${day}, around ${from}` : `Expected ${day}, between ${from} and ${to}`;
  if (to) return `Expected ${day}, by ${to}`;
  if (from) return `Expected ${day}, from ${from}`;
  return `Expected ${day}`;
}

export const trackingViewSchema = z.object({
  tid: z.string(),
  title: z.string(),
  courier: z.enum(COURIER_SLUGS),
  orderId: z.string(),
  customer: z.string(),
  notify: z.object({ email: z.string(), phone: z.string() }),
  note: z.string(),
  origin: z.string(),
  destination: z.string(),
  /**
   * The carrier's name of the service ("UPS Ground", "Priority Mail"), from its answers, else from the number when it
   * names one; null while unknown. Not in the original API: an added field (decision 158).
   */
  service: z.string().nullable(),
  status: z.enum(TRACKING_STATUSES),
  /** ISO-8601 UTC; null when the carrier gave no estimate (or once delivered). */
  expected: z.string().nullable(),
  /** The estimate with its window and where it comes from (decision 122); `expected` stays as the original had it. */
  estimatedDelivery: estimatedDeliverySchema.nullable(),
  /** Whether the parcel will likely miss the carrier's date, and who says so (decision 151). */
  likelyLate: likelyLateSchema.nullable(),
  lastCheckPoint: checkpointSchema.nullable(),
  /** Newest first. */
  checkpoints: z.array(checkpointSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The account's public id: the public page is /track/{uid}_{tid}. */
  uid: z.string(),
  /** True when the courier is served by the built-in carrier sandbox (no credentials configured). */
  sandbox: z.boolean(),
  /** True once the carrier pushes this parcel's scans to us (UPS, FedEx, USPS); false while it is only polled. */
  pushed: z.boolean(),
  /** ISO-8601 UTC: when the carrier last answered a poll or pushed a scan for it; null before the first. */
  lastHeardAt: z.string().nullable(),
});
export type TrackingView = z.infer<typeof trackingViewSchema>;

export const addTrackingResponse = trackingViewSchema.extend({ warning: z.string().optional() });
export type AddTrackingResponse = z.infer<typeof addTrackingResponse>;
export const trackingListSchema = z.array(trackingViewSchema);

/** The public page (no auth): no notes or customer data; notify contacts masked. */
export const publicTrackingSchema = z.object({
  tid: z.string(),
  courier: z.enum(COURIER_SLUGS),
  courierName: z.string(),
  status: z.enum(TRACKING_STATUSES),
  origin: z.string(),
  destination: z.string(),
  expected: z.string().nullable(),
  estimatedDelivery: estimatedDeliverySchema.nullable(),
  /** As the tracking view's (decision 151): the public page tells the recipient (likelyLateForRecipient). */
  likelyLate: likelyLateSchema.nullable(),
  lastCheckPoint: checkpointSchema.nullable(),
  checkpoints: z.array(checkpointSchema),
  notify: z.object({ email: z.string(), phone: z.string() }),
  updatedAt: z.string(),
  sandbox: z.boolean(),
  /** A company's parcels show the company (name, logo, colour) instead of Shiptrail's navigation; null for a person. */
  brand: brandSchema.nullable().optional(),
});
export type PublicTracking = z.infer<typeof publicTrackingSchema>;

/** 'shm' is Shiptrail's own (a company's shipment with an SHM number). */
export const detectResponse = z.array(
  z.object({ courier: z.enum([...COURIER_SLUGS, 'shm']), name: z.string(), checkDigitValid: z.boolean() }),
);
export const couriersResponse = z.array(z.object({ courier: z.enum(COURIER_SLUGS), name: z.string(), sandbox: z.boolean() }));

/** CSV import: one line per row of the file (row = line number in the file, the header being line 1). */
export const importReportSchema = z.object({
  created: z.number().int(),
  failed: z.number().int(),
  rows: z.array(
    z.object({
      row: z.number().int(),
      tid: z.string(),
      status: z.enum(['created', 'error']),
      message: z.string(),
    }),
  ),
});
export type ImportReport = z.infer<typeof importReportSchema>;
export const IMPORT_COLUMNS = ['tid', 'courier', 'title', 'orderId', 'customer', 'email', 'phone', 'note'] as const;
export const MAX_IMPORT_ROWS = 5000;

/** A calendar day, YYYY-MM-DD, that exists. */
const performanceDay = z
  .string({ message: MSG.performanceDate })
  .regex(/^\d{4}-\d{2}-\d{2}$/, MSG.performanceDate)
  .refine(
    (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    MSG.performanceDate,
  );

/** The longest period the performance figures cover, in days. */
export const PERFORMANCE_MAX_DAYS = 366;

/**
 * GET /v1/trackings/performance (issue 32, decisions 133, 134). The period: `from`/`to`, days YYYY-MM-DD in the
 * account's time zone, both included; without them, the last `days` days up to today (`to` alone: the `days` days
 * ending there; `from` alone: from there to today). `stalledDays`: an open parcel with no scan for that many days is
 * stalled. `format=csv`: the same figures as a CSV file.
 */
export const performanceQuery = z
  .object({
    days: z.coerce
      .number({ message: MSG.performanceDays })
      .int(MSG.performanceDays)
      .min(1, MSG.performanceDays)
      .max(365, MSG.performanceDays)
      .default(90),
    from: performanceDay.optional(),
    to: performanceDay.optional(),
    stalledDays: z.coerce
      .number({ message: MSG.performanceStalledDays })
      .int(MSG.performanceStalledDays)
      .min(1, MSG.performanceStalledDays)
      .max(90, MSG.performanceStalledDays)
      .default(3),
    format: z.enum(['json', 'csv'], { message: MSG.performanceFormat }).default('json'),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: MSG.performanceRange, path: ['from'] })
  .refine((q) => !q.from || !q.to || (Date.parse(q.to) - Date.parse(q.from)) / 86_400_000 + 1 <= PERFORMANCE_MAX_DAYS, {
    message: MSG.performanceSpan,
    path: ['to'],
  });
export type PerformanceQuery = z.output<typeof performanceQuery>;

const share = z.object({ count: z.number().int(), of: z.number().int(), rate: z.number().nullable() });
/** The transit-time histogram's buckets: whole days 0..9, then "10 days or more". */
export const TRANSIT_BUCKETS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10+'] as const;
const transit = {
  delivered: z.number().int(),
  medianDays: z.number().nullable(),
  p90Days: z.number().nullable(),
  /** Parcels per whole day of transit (first scan to delivery, rounded down): TRANSIT_BUCKETS. */
  histogram: z.array(z.number().int()).length(TRANSIT_BUCKETS.length),
};
/**
 * Delivery performance over the period (a parcel counts in the period of its delivery scan). `onTime`: of the
 * parcels whose carrier promised a date or window, how many were delivered by the end of the first promise.
 * `firstAttempt`: of the delivered, how many without a failed attempt. `byCarrier`: transit time from the first scan
 * to delivery, in days (median and 90th percentile, one decimal) and its histogram. `lanes`: the same by carrier and
 * region to region (decision 133), the 10 busiest. `byService`: the same by carrier and service as the carrier names
 * it (decision 158), with the share on time; `service` null for the parcels whose service is not known. `exceptions`: exception scans in the period by the carrier's
 * words, the 10 most frequent. `stalled`: open parcels with no scan for `stalledDays` days now, oldest first (the
 * first 50). `couriers`: the company's own couriers in the period (decision 134). Rates are 0–1, null when there is
 * nothing to count.
 */
export const performanceSchema = z.object({
  days: z.number().int(),
  from: z.string(),
  to: z.string(),
  delivered: z.number().int(),
  onTime: share,
  firstAttempt: share,
  byCarrier: z.array(
    z.object({
      courier: z.enum(COURIER_SLUGS),
      ...transit,
      onTime: share,
      firstAttempt: share,
    }),
  ),
  lanes: z.array(z.object({ courier: z.enum(COURIER_SLUGS), origin: z.string(), destination: z.string(), ...transit })),
  byService: z.array(z.object({ courier: z.enum(COURIER_SLUGS), service: z.string().nullable(), ...transit, onTime: share })),
  exceptions: z.object({
    count: z.number().int(),
    parcels: z.number().int(),
    causes: z.array(z.object({ cause: z.string(), count: z.number().int() })),
  }),
  stalled: z.object({
    days: z.number().int(),
    count: z.number().int(),
    parcels: z.array(
      z.object({
        tid: z.string(),
        courier: z.string(),
        title: z.string(),
        status: z.enum(TRACKING_STATUSES),
        /** The newest scan, null when the carrier has none yet (then `addedAt` counts). */
        lastScanAt: z.string().nullable(),
        addedAt: z.string(),
      }),
    ),
  }),
  couriers: z.array(
    z.object({
      courierId: z.string(),
      name: z.string(),
      daysWorked: z.number().int(),
      stops: z.number().int(),
      stopsPerDay: z.number().nullable(),
      delivered: z.number().int(),
      onTime: share,
      failedAttempts: z.number().int(),
    }),
  ),
});
export type Performance = z.infer<typeof performanceSchema>;
