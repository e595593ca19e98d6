import { and, desc, eq, getTableColumns, inArray, min, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { rowsOf, StatementOnce, type Queryable } from '../../db/client.ts';
import {
  carrierSubscriptions,
  checkpoints,
  deliveryDays,
  exceptionScans,
  openHeardDays,
  trackingEvents,
  trackings,
  users,
} from '../../db/schema.ts';

export type TrackingRow = typeof trackings.$inferSelect;
export type NewTracking = typeof trackings.$inferInsert;
export type CheckpointRow = typeof checkpoints.$inferSelect;
export type NewCheckpoint = typeof checkpoints.$inferInsert;

// ------------------------------------------------------------------ single trackings
export async function findByTid(db: Queryable, userId: string, tid: string): Promise<TrackingRow | undefined> {
  const [t] = await db
    .select()
    .from(trackings)
    .where(and(eq(trackings.userId, userId), eq(trackings.tid, tid)))
    .limit(1);
  return t;
}

/** The row locked for the rest of the transaction: status changes are decided on the locked row. */
export async function lockById(db: Queryable, id: string): Promise<TrackingRow | undefined> {
  const [t] = await db.select().from(trackings).where(eq(trackings.id, id)).for('update').limit(1);
  return t;
}
/** lockById, and whether the carrier pushes this number now (a live subscription), in one statement. */
export async function lockForApply(db: Queryable, id: string, now: Date): Promise<{ t: TrackingRow; pushed: boolean } | undefined> {
  return (await lockManyForApply(db, [id], now)).get(id);
}

/** lockForApply for many trackings at once, locked in id order (two batches never wait on each other crosswise). */
export async function lockManyForApply(db: Queryable, ids: string[], now: Date): Promise<Map<string, { t: TrackingRow; pushed: boolean }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({
      t: trackings,
      pushed: sql<boolean>`exists (select 1 from ${carrierSubscriptions} s where s.courier = ${trackings.courier} and s.tid = ${trackings.tid} and s.state = 'active' and s.expires_at > ${now})`,
    })
    .from(trackings)
    .where(inArray(trackings.id, ids))
    .orderBy(trackings.id)
    .for('update', { of: trackings });
  return new Map(rows.map((r) => [r.t.id, r]));
}

/** The columns a carrier result may change, with the value each tracking gets (its own value when unchanged). */
const APPLIED_COLUMNS = [
  'id',
  'status',
  'origin',
  'destination',
  'service',
  'expected',
  'estimatedDelivery',
  'promisedBy',
  'lateFor',
  'lastCheckPoint',
  'nextCheckAt',
  'lastCheckedAt',
  'lastCarrierDataAt',
  'lastPushedAt',
  'failures',
  'lastError',
  'updatedAt',
] as const satisfies ReadonlyArray<keyof TrackingRow>;
export type AppliedColumns = Pick<TrackingRow, (typeof APPLIED_COLUMNS)[number]>;

/** The applied columns as the locked row has them. */
export const pickApplied = (t: TrackingRow): AppliedColumns => Object.fromEntries(APPLIED_COLUMNS.map((k) => [k, t[k]])) as AppliedColumns;

/** Write the applied columns of many trackings in one statement (the refresh engine's batch). */
export async function updateApplied(db: Queryable, rows: AppliedColumns[]): Promise<void> {
  if (rows.length === 0) return;
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  const values = rows.map(
    (r) =>
      sql`(${r.id}::uuid, ${r.status}, ${r.origin}, ${r.destination}, ${r.service}::text, ${iso(r.expected)}::timestamptz,
           ${r.estimatedDelivery ? JSON.stringify(r.estimatedDelivery) : null}::jsonb, ${iso(r.promisedBy)}::timestamptz, ${r.lateFor}::text,
           ${r.lastCheckPoint === null || r.lastCheckPoint === undefined ? null : JSON.stringify(r.lastCheckPoint)}::jsonb,
           ${iso(r.nextCheckAt)}::timestamptz, ${iso(r.lastCheckedAt)}::timestamptz, ${iso(r.lastCarrierDataAt)}::timestamptz, ${iso(r.lastPushedAt)}::timestamptz,
           ${r.failures}::int, ${r.lastError}::text, ${iso(r.updatedAt)}::timestamptz)`,
  );
  await db.execute(sql`
    update ${trackings} t set status = v.status, origin = v.origin, destination = v.destination, service = v.service, expected = v.expected,
      estimated_delivery = v.estimated_delivery, promised_by = v.promised_by, late_for = v.late_for, last_checkpoint = v.last_checkpoint,
      next_check_at = v.next_check_at, last_checked_at = v.last_checked_at, last_carrier_data_at = v.last_carrier_data_at, last_pushed_at = v.last_pushed_at,
      failures = v.failures, last_error = v.last_error, updated_at = v.updated_at
    from (values ${sql.join(values, sql`, `)}) as v(id, status, origin, destination, service, expected, estimated_delivery, promised_by, late_for, last_checkpoint, next_check_at, last_checked_at, last_carrier_data_at, last_pushed_at, failures, last_error, updated_at)
    where t.id = v.id`);
}
export async function lockByTid(db: Queryable, userId: string, tid: string): Promise<TrackingRow | undefined> {
  const [t] = await db
    .select()
    .from(trackings)
    .where(and(eq(trackings.userId, userId), eq(trackings.tid, tid)))
    .for('update')
    .limit(1);
  return t;
}

/** The columns an add sets; the others take their defaults. */
export type PaidTrackingValues = Required<
  Pick<
    NewTracking,
    | 'id'
    | 'userId'
    | 'tid'
    | 'courier'
    | 'title'
    | 'orderId'
    | 'customer'
    | 'notifyEmail'
    | 'notifyPhone'
    | 'note'
    | 'service'
    | 'status'
    | 'nextCheckAt'
    | 'createdAt'
    | 'updatedAt'
  >
>;

const trackingColumns = getTableColumns(trackings);

/** A trackings row read by a raw statement (`row_to_json(t)`: its columns by name), mapped as Drizzle maps its own selects. */
function trackingFromRaw(raw: Record<string, unknown>): TrackingRow {
  const out: Record<string, unknown> = {};
  for (const [key, col] of Object.entries(trackingColumns)) {
    const v = raw[col.name];
    out[key] = v === null || v === undefined ? null : col.mapFromDriverValue(v);
  }
  return out as TrackingRow;
}

/** Where each add binds a PaidTrackingValues field in the statement built once (paidTrackingStatement). */
const v = Object.fromEntries(
  (
    [
      'id',
      'userId',
      'tid',
      'courier',
      'title',
      'orderId',
      'customer',
      'notifyEmail',
      'notifyPhone',
      'note',
      'service',
      'status',
      'nextCheckAt',
      'createdAt',
      'updatedAt',
    ] as const
  ).map((k) => [k, sql.placeholder(k)]),
) as Record<keyof PaidTrackingValues, Placeholder>;

/**
 * The statement that inserts a tracking and pays for it, built once (decision 187; insertPaidTracking runs it):
 * `charge` is the WITH queries of billing's freshChargeCtesOnce, and the row is inserted only when its `charge_paid`
 * has a row; `live` (pg_notify calls) is sent with it. Both are written with placeholders where each add binds its
 * values (the tracking's by PaidTrackingValues' names, the parts' by theirs), so `parts` runs once per process.
 */
export function paidTrackingStatement<V extends PaidTrackingValues>(parts: () => { charge: SQL; live: SQL }): StatementOnce<V> {
  return new StatementOnce<V>(() => {
    const { charge, live } = parts();
    return sql`
    with ${charge}, t as (
      insert into ${trackings} (id, user_id, tid, courier, title, order_id, customer, notify_email, notify_phone, note, service, status, next_check_at, created_at, updated_at)
      select ${v.id}, ${v.userId}, ${v.tid}, ${v.courier}, ${v.title}, ${v.orderId}, ${v.customer}, ${v.notifyEmail}, ${v.notifyPhone}, ${v.note}, ${v.service}::text, ${v.status},
        ${v.nextCheckAt}::timestamptz, ${v.createdAt}::timestamptz, ${v.updatedAt}::timestamptz
      from charge_paid
      returning *
    ), t_live as (
      select ${live} from t
    )
    -- The row as one JSON text (null when nothing was paid): one field to parse instead of forty, and on the embedded
    -- database one string to pass from its thread (decision 184).
    select row_to_json(t)::text as row,
      -- Read so that the announcements are sent (a SELECT in WITH runs only when read).
      (select count(*) from charge_live)::int + (select count(*) from t_live)::int as charge_notified
    from (select 1) one left join t on true`;
  });
}

/**
 * Insert a tracking in the statement that pays for it (paidTrackingStatement's), with `values` bound. One statement,
 * so in autocommit the account is locked for this statement alone. The new row, or null when the balance was short
 * and nothing was written.
 */
export async function insertPaidTracking<V extends PaidTrackingValues>(
  db: Queryable,
  statement: StatementOnce<V>,
  values: V,
): Promise<TrackingRow | null> {
  const r = await statement.execute(db, values);
  const row = rowsOf<{ row: string | null }>(r)[0]!.row;
  return row ? trackingFromRaw(JSON.parse(row) as Record<string, unknown>) : null;
}

/** Set-based insert for imports: rows whose (user, tid) already exists are skipped, not an error. */
export async function insertTrackingsIgnoringDuplicates(db: Queryable, values: NewTracking[]): Promise<Array<{ id: string; tid: string }>> {
  if (values.length === 0) return [];
  return db
    .insert(trackings)
    .values(values)
    .onConflictDoNothing({ target: [trackings.userId, trackings.tid] })
    .returning({ id: trackings.id, tid: trackings.tid });
}

/** Which of `tids` the account already tracks (one query). */
export async function existingTids(db: Queryable, userId: string, tids: string[]): Promise<string[]> {
  if (tids.length === 0) return [];
  const rows = await db
    .select({ tid: trackings.tid })
    .from(trackings)
    .where(and(eq(trackings.userId, userId), inArray(trackings.tid, tids)));
  return rows.map((r) => r.tid);
}

export async function updateTracking(db: Queryable, id: string, values: Partial<NewTracking>): Promise<TrackingRow> {
  const [t] = await db.update(trackings).set(values).where(eq(trackings.id, id)).returning();
  return t!;
}

export async function deleteTracking(db: Queryable, userId: string, tid: string): Promise<boolean> {
  const r = await db
    .delete(trackings)
    .where(and(eq(trackings.userId, userId), eq(trackings.tid, tid)))
    .returning({ id: trackings.id });
  return r.length > 0;
}

/**
 * Claim a manual refresh: succeeds at most once per `minGapMs` per tracking, atomically across
 * processes (the condition and the write are one statement). Returns the row when claimed.
 */
export async function claimManualRefresh(
  db: Queryable,
  id: string,
  now: Date,
  minGapMs: number,
  leaseUntil: Date,
): Promise<TrackingRow | undefined> {
  const [t] = await db
    .update(trackings)
    .set({ lastCheckedAt: now, nextCheckAt: leaseUntil })
    .where(
      and(
        eq(trackings.id, id),
        sql`(${trackings.lastCheckedAt} is null or ${trackings.lastCheckedAt} <= ${new Date(now.getTime() - minGapMs)})`,
      ),
    )
    .returning();
  return t;
}

// ------------------------------------------------------------------ lists
/** ISO-8601 UTC with milliseconds, as Date.toISOString writes it (to_char truncates to ms, as the drivers do). */
const iso = (col: ReturnType<typeof sql>) => sql`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A tracking's checkpoints as a JSON array, newest first (the list page and the public page both send it). */
const checkpointsJsonOf = (trackingId: ReturnType<typeof sql> | typeof trackings.id) =>
  sql`coalesce((select json_agg(json_build_object('status', c.status, 'location', c.location, 'message', c.message, 'time', ${iso(sql`c.time`)}) order by c.time desc, c.id desc)
    from ${checkpoints} c where c.tracking_id = ${trackingId}), '[]'::json)`;

export interface ListPageInput {
  userId: string;
  uid: string;
  limit: number;
  statuses: string[];
  couriers: string[];
  /** Keyset cursor: the previous page's last tracking number. */
  lastTid?: string;
  /** Couriers served by the carrier sandbox (each view says so). */
  sandboxCouriers: string[];
}

/**
 * A page of the list as the JSON text of its TrackingView array, newest first with ties broken by id (pages never
 * repeat or skip a row; index trackings_user_created_idx), in one statement: the cursor, the page,
 * every tracking's checkpoints and the view itself are built in the database (issue 15: one statement per
 * page; no dates or JSON rebuilt in JS). Null when `lastTid` is not one of the account's trackings.
 * Same shape, order and formats as views.ts trackingView (test/trackings/list-json.test.ts compares them).
 */
export async function listPageJson(db: Queryable, f: ListPageInput): Promise<string | null> {
  const t = sql.raw('t');
  // Lists travel as one JSON parameter (drizzle would spread a JS array into separate parameters).
  const anyOf = (values: string[]) => sql`any(array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb)))`;
  const lcp = sql`${t}.last_checkpoint`;
  const r = await db.execute<{ j: string | null }>(sql`
    with cursor as (
      select created_at, id from ${trackings} where user_id = ${f.userId}::uuid and tid = ${f.lastTid ?? null}::text
    ), page as (
      select ${t}.* from ${trackings} ${t}
      where ${t}.user_id = ${f.userId}::uuid
        ${f.statuses.length ? sql`and ${t}.status = ${anyOf(f.statuses)}` : sql``}
        ${f.couriers.length ? sql`and ${t}.courier = ${anyOf(f.couriers)}` : sql``}
        and (${f.lastTid ?? null}::text is null or (${t}.created_at, ${t}.id) < (select created_at, id from cursor))
      order by ${t}.created_at desc, ${t}.id desc
      limit ${f.limit}
    )
    select case when ${f.lastTid ?? null}::text is not null and not exists (select 1 from cursor) then null else coalesce((
      select json_agg(json_build_object(
        'tid', ${t}.tid, 'title', ${t}.title, 'courier', ${t}.courier, 'orderId', ${t}.order_id, 'customer', ${t}.customer,
        'notify', json_build_object('email', ${t}.notify_email, 'phone', ${t}.notify_phone),
        'note', ${t}.note, 'origin', ${t}.origin, 'destination', ${t}.destination, 'service', ${t}.service, 'status', ${t}.status,
        'expected', ${iso(sql`${t}.expected`)},
        'estimatedDelivery', case when jsonb_typeof(${t}.estimated_delivery) = 'object' then json_build_object(
          'date', coalesce(${t}.estimated_delivery ->> 'date', ''), 'from', ${t}.estimated_delivery ->> 'from', 'to', ${t}.estimated_delivery ->> 'to',
          'source', case when ${t}.estimated_delivery ->> 'source' = 'predicted' then 'predicted' else 'carrier' end,
          'updatedAt', coalesce(${t}.estimated_delivery ->> 'updatedAt', '')) end,
        'likelyLate', case when ${t}.late_for is not null and jsonb_typeof(${t}.estimated_delivery) = 'object'
            and coalesce(${t}.estimated_delivery ->> 'source', 'carrier') <> 'predicted' then json_build_object(
          'source', case when split_part(${t}.late_for, '|', 3) = 'history' then 'history' else 'carrier' end,
          'usualDays', case when split_part(${t}.late_for, '|', 3) = 'history' and split_part(${t}.late_for, '|', 4) ~ '^[0-9]+$'
            then split_part(${t}.late_for, '|', 4)::int end) end,
        'lastCheckPoint', case when jsonb_typeof(${lcp}) = 'object' then json_build_object(
          'status', ${lcp} ->> 'status', 'location', ${lcp} ->> 'location', 'message', coalesce(${lcp} ->> 'message', ''), 'time', coalesce(${lcp} ->> 'time', '')) end,
        'checkpoints', ${checkpointsJsonOf(sql`${t}.id`)},
        'createdAt', ${iso(sql`${t}.created_at`)}, 'updatedAt', ${iso(sql`${t}.updated_at`)},
        'uid', ${f.uid}::text, 'sandbox', ${t}.courier = ${anyOf(f.sandboxCouriers)},
        'pushed', ${t}.last_pushed_at is not null, 'lastHeardAt', ${iso(sql`greatest(${t}.last_pushed_at, ${t}.last_checked_at)`)}
      ) order by ${t}.created_at desc, ${t}.id desc)
      from page ${t}), '[]'::json)::text end as j`);
  return rowsOf<{ j: string | null }>(r)[0]?.j ?? null;
}

export async function checkpointsFor(db: Queryable, trackingIds: string[]): Promise<CheckpointRow[]> {
  if (trackingIds.length === 0) return [];
  return db
    .select()
    .from(checkpoints)
    .where(inArray(checkpoints.trackingId, trackingIds))
    .orderBy(desc(checkpoints.time), desc(checkpoints.id));
}

/** Insert checkpoints of one tracking; returns how many were new (a fingerprint already stored is skipped). */
export async function insertCheckpoints(db: Queryable, rows: NewCheckpoint[]): Promise<number> {
  return (await insertCheckpointsCounted(db, rows)).get(rows[0]?.trackingId ?? '') ?? 0;
}

/** Insert checkpoints of many trackings (in the order given, so ids follow it); the new ones counted per tracking. */
export async function insertCheckpointsCounted(db: Queryable, rows: NewCheckpoint[]): Promise<Map<string, number>> {
  const added = new Map<string, number>();
  if (rows.length === 0) return added;
  const r = await db.insert(checkpoints).values(rows).onConflictDoNothing().returning({ trackingId: checkpoints.trackingId });
  for (const { trackingId } of r) added.set(trackingId, (added.get(trackingId) ?? 0) + 1);
  return added;
}
export async function deleteCheckpoints(db: Queryable, trackingId: string): Promise<void> {
  await db.delete(checkpoints).where(eq(checkpoints.trackingId, trackingId));
}

export type TransitRow = {
  courier: string;
  /** null for a carrier's own row and its service rows; the lane's regions otherwise (decision 133). */
  origin: string | null;
  destination: string | null;
  /** null for a carrier's own row and its lanes; the service of a service row, '' for the parcels of no known service (decision 158). */
  service: string | null;
  delivered: number;
  p50Seconds: number | null;
  p90Seconds: number | null;
  /** Parcels per whole day of transit, 0..9 and 10 or more. */
  histogram: number[];
  promised: number;
  onTime: number;
  firstAttempt: number;
};

const HISTOGRAM = sql.join(
  Array.from({ length: 11 }, (_, day) =>
    day < 10 ? sql`(count(*) filter (where transit_days = ${day}))::int` : sql`(count(*) filter (where transit_days >= 10))::int`,
  ),
  sql`, `,
);

/**
 * An account's trackings delivered in [from, to) (by their delivery scan), per carrier, per carrier and lane, and per carrier and service (decision 158)
 * (one pass, grouping sets): how many, transit (first scan to the delivery scan) median and 90th percentile in
 * seconds, the whole days of transit counted 0..9 and 10+, how many had a carrier promise and how many arrived by its
 * end, how many without a failed attempt. First counts the period's parcels per carrier, lane and hour of transit
 * (transitBuckets: the delivery_days rollup for whole days, decision 142); up to `exactLimit` parcels, the figures
 * are then computed from the parcels themselves (exact), beyond it from those counts (median and 90th percentile
 * within the hour, everything else exact).
 */
export async function performanceByCarrier(
  db: Queryable,
  userId: string,
  from: Date,
  to: Date,
  exactLimit = EXACT_TRANSIT_LIMIT,
): Promise<TransitRow[]> {
  const buckets = await transitBuckets(db, userId, from, to);
  if (buckets.reduce((n, b) => n + b.delivered, 0) <= exactLimit) return exactPerformanceByCarrier(db, userId, from, to);
  return transitFromBuckets(buckets);
}

/**
 * Up to this many delivered parcels in the period, the transit figures are computed from the parcels themselves
 * (exact percentiles, about 100 ms); beyond it, from the whole hours of transit of the delivery_days
 * rollup (decision 142): every count exact, the median and 90th percentile within the hour.
 */
export const EXACT_TRANSIT_LIMIT = 5_000;
const DAY_MS = 86_400_000;

type TransitBucket = {
  courier: string;
  origin: string;
  destination: string;
  service: string;
  /** floor(transit / 1 hour); -1: no first scan. */
  hour: number;
  delivered: number;
  promised: number;
  onTime: number;
  firstAttempt: number;
};

/**
 * The account's parcels delivered in [from, to) per carrier, lane and whole hour of transit: the whole UTC days of
 * the period from the delivery_days rollup (decision 142), the parts of a day at either end from the parcels
 * (trackings_user_delivered_idx), so that every count is the exact one whatever the period's bounds and time zone.
 */
async function transitBuckets(db: Queryable, userId: string, from: Date, to: Date): Promise<TransitBucket[]> {
  const firstDay = Math.ceil(from.getTime() / DAY_MS) * DAY_MS;
  const endDay = Math.floor(to.getTime() / DAY_MS) * DAY_MS;
  const whole = firstDay < endDay;
  // Without a whole day, the parcels of [from, to) are all read; with one, those of [from, firstDay) and [endDay, to).
  const headEnd = new Date(whole ? firstDay : to.getTime()).toISOString();
  const tailStart = new Date(whole ? endDay : to.getTime()).toISOString();
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  // Each part day is a range of its own (not one OR of two): each is then an index-only range of
  // trackings_user_delivered_idx, which holds every column read; an OR made a bitmap of both and a heap page per parcel
  // (1,844 pages at 1M trackings). The whole days are an index-only range of delivery_days_read_idx (decision 157).
  const partDay = (a: string, b: string) => sql`
      select t.courier, t.origin_region, t.destination_region, coalesce(t.service, ''),
        coalesce(floor(date_part('epoch', t.delivered_at - t.first_scan_at) / 3600)::int, -1), 1,
        (t.promised_by is not null)::int, coalesce(t.delivered_at <= t.promised_by, false)::int, (not t.failed_attempt)::int
      from ${trackings} t
      where t.user_id = ${userId}::uuid and t.status = 'Delivered'
        and t.delivered_at >= ${a}::timestamptz and t.delivered_at < ${b}::timestamptz`;
  const r = await db.execute<Record<string, unknown>>(sql`
    with b as (
      select d.courier, d.origin_region as o, d.destination_region as dst, d.service as svc, d.transit_hour as h, d.delivered as n,
        d.promised, d.on_time, d.first_attempt
      from ${deliveryDays} d
      where d.user_id = ${userId}::uuid and d.day >= ${day(firstDay)}::date and d.day < ${day(whole ? endDay : firstDay)}::date
      union all ${partDay(from.toISOString(), headEnd)}
      union all ${partDay(tailStart, to.toISOString())}
    )
    select courier, o, dst, svc, h, sum(n)::int as n, sum(promised)::int as promised, sum(on_time)::int as on_time,
      sum(first_attempt)::int as first_attempt
    from b group by courier, o, dst, svc, h`);
  return rowsOf<Record<string, unknown>>(r).map((x) => ({
    courier: String(x.courier),
    origin: String(x.o),
    destination: String(x.dst),
    service: String(x.svc),
    hour: Number(x.h),
    delivered: Number(x.n),
    promised: Number(x.promised),
    onTime: Number(x.on_time),
    firstAttempt: Number(x.first_attempt),
  }));
}

/**
 * percentile_cont(p) over the transit times counted per whole hour: the k-th time is placed evenly inside its hour
 * ((k + 0.5) / count of the hour), then interpolated between ranks as percentile_cont does. Within one hour of the
 * exact value; null with no transit time.
 */
export function percentileOfHours(hours: Map<number, number>, p: number): number | null {
  const sorted = [...hours.entries()].filter(([h, n]) => h >= 0 && n > 0).sort((a, b) => a[0] - b[0]);
  const n = sorted.reduce((sum, [, c]) => sum + c, 0);
  if (n === 0) return null;
  const at = (k: number) => {
    let before = 0;
    for (const [h, c] of sorted) {
      if (k < before + c) return (h + (k - before + 0.5) / c) * 3600;
      before += c;
    }
    return (sorted[sorted.length - 1]![0] + 1) * 3600;
  };
  const pos = p * (n - 1);
  const lo = Math.floor(pos);
  const low = at(lo);
  return lo === pos ? low : low + (pos - lo) * (at(lo + 1) - low);
}

/** The rows of performanceByCarrier from the hour buckets: per carrier, then its lanes and services, busiest first. */
function transitFromBuckets(buckets: TransitBucket[]): TransitRow[] {
  type Acc = { row: TransitRow; hours: Map<number, number> };
  const groups = new Map<string, Acc>();
  const add = (
    key: string,
    courier: string,
    origin: string | null,
    destination: string | null,
    service: string | null,
    b: TransitBucket,
  ) => {
    let g = groups.get(key);
    if (!g) {
      g = {
        row: {
          courier,
          origin,
          destination,
          service,
          delivered: 0,
          p50Seconds: null,
          p90Seconds: null,
          histogram: Array(11).fill(0),
          promised: 0,
          onTime: 0,
          firstAttempt: 0,
        },
        hours: new Map(),
      };
      groups.set(key, g);
    }
    g.row.delivered += b.delivered;
    g.row.promised += b.promised;
    g.row.onTime += b.onTime;
    g.row.firstAttempt += b.firstAttempt;
    if (b.hour >= 0) {
      const day = Math.min(10, Math.floor(b.hour / 24));
      g.row.histogram[day] = (g.row.histogram[day] ?? 0) + b.delivered;
      g.hours.set(b.hour, (g.hours.get(b.hour) ?? 0) + b.delivered);
    }
  };
  for (const b of buckets) {
    add(JSON.stringify([b.courier]), b.courier, null, null, null, b);
    add(JSON.stringify([b.courier, b.origin, b.destination]), b.courier, b.origin, b.destination, null, b);
    add(JSON.stringify([b.courier, null, b.service]), b.courier, null, null, b.service, b);
  }
  const rows = [...groups.values()].map(({ row, hours }) => ({
    ...row,
    p50Seconds: percentileOfHours(hours, 0.5),
    p90Seconds: percentileOfHours(hours, 0.9),
  }));
  // As the exact statement orders them: by carrier, busiest first; of equal counts the carrier's own row (no lane, no
  // service) first, then its services, then its lanes.
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return rows.sort(
    (a, b) =>
      cmp(a.courier, b.courier) ||
      b.delivered - a.delivered ||
      (a.origin === null ? -1 : 0) - (b.origin === null ? -1 : 0) ||
      cmp(a.origin ?? '', b.origin ?? '') ||
      (a.service === null ? -1 : 0) - (b.service === null ? -1 : 0) ||
      cmp(a.service ?? '', b.service ?? '') ||
      cmp(a.destination ?? '', b.destination ?? ''),
  );
}

/**
 * performanceByCarrier from the period's parcels themselves (exact percentiles): the delivery summary of the account's
 * own delivered parcels of the period (trackings_user_delivered_idx, decision 136), one row per parcel, no scan read.
 */
export async function exactPerformanceByCarrier(db: Queryable, userId: string, from: Date, to: Date): Promise<TransitRow[]> {
  const r = await db.execute<Record<string, unknown>>(sql`
    with x as (
      select t.courier, t.origin_region as o, t.destination_region as dst, coalesce(t.service, '') as svc, t.promised_by, t.delivered_at,
        -- date_part is double precision (extract is numeric, several times slower per row here); the percentiles
        -- take double precision anyway, so the figures are the same.
        date_part('epoch', t.delivered_at - t.first_scan_at) as transit,
        floor(date_part('epoch', t.delivered_at - t.first_scan_at) / 86400)::int as transit_days,
        t.failed_attempt as failed
      from ${trackings} t
      where t.user_id = ${userId}::uuid and t.status = 'Delivered'
        and t.delivered_at >= ${from.toISOString()}::timestamptz and t.delivered_at < ${to.toISOString()}::timestamptz
    )
    select courier, case when grouping(o) = 0 then o end as origin, case when grouping(dst) = 0 then dst end as destination,
      case when grouping(svc) = 0 then svc end as service,
      count(*)::int as delivered,
      percentile_cont(0.5) within group (order by transit) as p50,
      percentile_cont(0.9) within group (order by transit) as p90,
      array[${HISTOGRAM}] as histogram,
      (count(*) filter (where promised_by is not null))::int as promised,
      (count(*) filter (where promised_by is not null and delivered_at <= promised_by))::int as on_time,
      (count(*) filter (where not failed))::int as first_attempt
    from x
    group by grouping sets ((courier), (courier, o, dst), (courier, svc))
    order by courier, delivered desc, origin nulls first, svc collate "C" nulls first, destination`);
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return rowsOf<Record<string, unknown>>(r).map((x) => ({
    courier: String(x.courier),
    origin: text(x.origin),
    destination: text(x.destination),
    service: text(x.service),
    delivered: Number(x.delivered),
    p50Seconds: num(x.p50),
    p90Seconds: num(x.p90),
    histogram: (typeof x.histogram === 'string' ? x.histogram.replace(/[{}]/g, '').split(',') : (x.histogram as unknown[])).map(Number),
    promised: Number(x.promised),
    onTime: Number(x.on_time),
    firstAttempt: Number(x.first_attempt),
  }));
}

/**
 * Exception scans of an account's trackings in [from, to): the most frequent carrier texts, their total and parcels.
 * Read from `exception_scans` (one narrow row per exception scan, kept by the database from `checkpoints`, decision
 * 147): the period is one range of exception_scans_user_time_idx, which holds every column read here. A cause is the
 * carrier's words trimmed and cut to EXCEPTION_CAUSE_CHARS characters; empty is "No reason given".
 */
export async function exceptionCauses(
  db: Queryable,
  userId: string,
  from: Date,
  to: Date,
  limit: number,
): Promise<{ count: number; parcels: number; causes: Array<{ cause: string; count: number }> }> {
  const r = await db.execute<Record<string, unknown>>(sql`
    with e as (
      select e.tracking_id, coalesce(nullif(e.cause, ''), 'No reason given') as cause
      from ${exceptionScans} e
      where e.user_id = ${userId}::uuid
        and e.time >= ${from.toISOString()}::timestamptz and e.time < ${to.toISOString()}::timestamptz
    )
    select null as cause, count(*)::int as n, count(distinct tracking_id)::int as parcels from e
    union all
    (select cause, count(*)::int, null from e group by cause order by count(*) desc, cause limit ${limit})`);
  const rows = rowsOf<{ cause: string | null; n: number | string; parcels: number | string | null }>(r);
  const total = rows.find((x) => x.cause === null);
  return {
    count: Number(total?.n ?? 0),
    parcels: Number(total?.parcels ?? 0),
    causes: rows.filter((x) => x.cause !== null).map((x) => ({ cause: String(x.cause), count: Number(x.n) })),
  };
}

export type StalledRow = { tid: string; courier: string; title: string; status: string; lastScanAt: Date | null; addedAt: Date };

/**
 * An account's open trackings (not delivered, not expired) whose newest scan (else, with none, their adding) is
 * before `before`: how many, and the first `limit`, longest silent first. The count (decision 157): the whole UTC
 * days before `before`'s day from `open_heard_days` (open parcels per account and day of `last_heard_at`, kept by the
 * database), one row per day; the part of `before`'s own day from trackings_user_open_heard_idx, one day's range. The
 * list is read in that index's order (`last_heard_at`: the summary's newest scan, else the adding, decision 142).
 */
export async function stalledTrackings(
  db: Queryable,
  userId: string,
  before: Date,
  limit: number,
): Promise<{ count: number; rows: StalledRow[] }> {
  const open = sql`t.user_id = ${userId}::uuid and t.status not in ('Delivered', 'Expired')`;
  const stalled = sql`${open} and t.last_heard_at < ${before.toISOString()}::timestamptz`;
  const dayStart = new Date(Math.floor(before.getTime() / DAY_MS) * DAY_MS);
  const r = await db.execute<Record<string, unknown>>(sql`
    select l.tid, l.courier, l.title, l.status, l.newest_scan_at as last_scan_at, l.created_at, n.total
    from (
      select (select coalesce(sum(d.parcels), 0) from ${openHeardDays} d
              where d.user_id = ${userId}::uuid and d.day < ${dayStart.toISOString().slice(0, 10)}::date)::int
           + (select count(*) from ${trackings} t
              where ${open} and t.last_heard_at >= ${dayStart.toISOString()}::timestamptz
                and t.last_heard_at < ${before.toISOString()}::timestamptz)::int as total
    ) n
    left join lateral (
      select t.tid, t.courier, t.title, t.status, t.newest_scan_at, t.created_at, t.last_heard_at from ${trackings} t
      where ${stalled}
      order by t.last_heard_at, t.tid
      limit ${limit}
    ) l on true
    order by l.last_heard_at, l.tid`);
  const rows = rowsOf<Record<string, unknown>>(r);
  const at = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return {
    count: Number(rows[0]?.total ?? 0),
    // The count comes on a row of its own when no parcel is stalled (the left join's empty side).
    rows: rows
      .filter((x) => x.tid !== null && x.tid !== undefined)
      .map((x) => ({
        tid: String(x.tid),
        courier: String(x.courier),
        title: String(x.title),
        status: String(x.status),
        lastScanAt: at(x.last_scan_at),
        addedAt: at(x.created_at)!,
      })),
  };
}

/** The most recently delivered trackings: carrier, service, places, first scan and delivery scan (the predictor's history). */
export async function deliveredHistory(
  db: Queryable,
  limit: number,
): Promise<Array<{ courier: string; service: string | null; origin: string; destination: string; shippedAt: Date; deliveredAt: Date }>> {
  type Row = { courier: string; service: string | null; origin: string; destination: string; shipped_at: string; delivered_at: string };
  const r = await db.execute<Row>(sql`
    select t.courier, t.service, t.origin, t.destination, s.shipped_at, s.delivered_at
    from (select id, courier, service, origin, destination from ${trackings} where status = 'Delivered' order by updated_at desc limit ${limit}) t
    cross join lateral (
      select min(c.time) as shipped_at, max(c.time) filter (where c.status = 'Delivered') as delivered_at
      from ${checkpoints} c where c.tracking_id = t.id
    ) s
    where s.delivered_at is not null`);
  return rowsOf<Row>(r).map((x) => ({
    courier: x.courier,
    service: x.service,
    origin: x.origin,
    destination: x.destination,
    shippedAt: new Date(x.shipped_at),
    deliveredAt: new Date(x.delivered_at),
  }));
}

/** Insert one status event: the row as written (the fan-out takes it rather than reading it back). */
export async function insertEvent(db: Queryable, v: typeof trackingEvents.$inferInsert): Promise<typeof trackingEvents.$inferSelect> {
  const [e] = await db.insert(trackingEvents).values(v).returning();
  return e!;
}

/** Insert many status events; each row carries its id. */
export async function insertEvents(db: Queryable, rows: Array<typeof trackingEvents.$inferInsert & { id: string }>): Promise<void> {
  if (rows.length > 0) await db.insert(trackingEvents).values(rows);
}

// ------------------------------------------------------------------ refresh engine
export interface DueTracking {
  id: string;
  tid: string;
  courier: string;
}

/**
 * Claim up to `limit` due trackings for this worker: the inner SELECT skips rows another worker is
 * claiming right now, and the UPDATE moves next_check_at to a lease in the future, so no other worker
 * picks them until the lease ends (a crashed worker's rows come back by themselves).
 */
export async function claimDue(db: Queryable, now: Date, leaseUntil: Date, limit: number): Promise<DueTracking[]> {
  const r = await db.execute<{ id: string; tid: string; courier: string }>(sql`
    update ${trackings} set next_check_at = ${leaseUntil}
    where id in (
      select id from ${trackings}
      where next_check_at <= ${now}
      order by next_check_at
      limit ${limit}
      for update skip locked
    )
    returning id, tid, courier`);
  return rowsOf(r);
}

/** Lease specific trackings (a queued refresh job); rows that are final (no next_check_at) are left alone. */
export async function leaseByIds(db: Queryable, ids: string[], leaseUntil: Date): Promise<DueTracking[]> {
  if (ids.length === 0) return [];
  const r = await db
    .update(trackings)
    .set({ nextCheckAt: leaseUntil })
    .where(and(inArray(trackings.id, ids), sql`${trackings.nextCheckAt} is not null`))
    .returning({ id: trackings.id, tid: trackings.tid, courier: trackings.courier });
  return r;
}

/** The earliest stored checkpoint time of each of the courier's numbers that has one (any account). */
export async function earliestCheckpointTimes(db: Queryable, courier: string, tids: string[]): Promise<Map<string, number>> {
  const rows = await db
    .select({ tid: trackings.tid, start: min(checkpoints.time) })
    .from(trackings)
    .innerJoin(checkpoints, eq(checkpoints.trackingId, trackings.id))
    .where(and(eq(trackings.courier, courier), inArray(trackings.tid, tids)))
    .groupBy(trackings.tid);
  return new Map(rows.flatMap((r) => (r.start ? [[r.tid, new Date(r.start).getTime()] as const] : [])));
}

/**
 * The public page of a tracking in one statement: the tracking, the account behind the uid (for its brand)
 * and the checkpoints, newest first (ISO times), found by the public uid and the stored number.
 */
export async function findPublicTracking(
  db: Queryable,
  uid: string,
  tid: string,
): Promise<
  | {
      tracking: TrackingRow;
      owner: typeof users.$inferSelect;
      checkpoints: Array<{ status: string; location: string | null; message: string; time: string }>;
    }
  | undefined
> {
  const [r] = await db
    .select({
      tracking: trackings,
      owner: users,
      checkpoints: sql<string>`${checkpointsJsonOf(trackings.id)}::text`,
    })
    .from(trackings)
    .innerJoin(users, eq(users.id, trackings.userId))
    .where(and(eq(users.uid, uid), eq(trackings.tid, tid)))
    .limit(1);
  return r ? { tracking: r.tracking, owner: r.owner, checkpoints: JSON.parse(r.checkpoints) } : undefined;
}

export async function findUserIdByUid(db: Queryable, uid: string): Promise<string | undefined> {
  const [u] = await db.select({ id: users.id }).from(users).where(eq(users.uid, uid)).limit(1);
  return u?.id;
}

/** Extend a batch's claim: only rows still holding the lease `current` (not applied yet, not taken over). */
export async function renewLease(db: Queryable, ids: string[], current: Date, next: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(trackings)
    .set({ nextCheckAt: next })
    .where(and(inArray(trackings.id, ids), eq(trackings.nextCheckAt, current)));
}
