import { and, asc, desc, eq, gte, inArray, isNull, lt, notInArray, or, sql } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../../db/client.ts';
import { companyLogos, courierDays, shipmentCheckpoints, shipmentParcels, shipments, trackingEvents, users } from '../../db/schema.ts';

export type ShipmentRow = typeof shipments.$inferSelect;
export type NewShipment = typeof shipments.$inferInsert;
export type ParcelRow = typeof shipmentParcels.$inferSelect;
export type NewParcel = typeof shipmentParcels.$inferInsert;
export type CheckpointRow = typeof shipmentCheckpoints.$inferSelect;
export type NewCheckpoint = typeof shipmentCheckpoints.$inferInsert;

/** Who may see a shipment: its company, or the courier it is assigned to. */
export type Scope = { companyId: string } | { courierId: string };
const scoped = (s: Scope) => ('companyId' in s ? eq(shipments.companyId, s.companyId) : eq(shipments.courierId, s.courierId));

export async function insertShipment(db: Queryable, v: NewShipment): Promise<ShipmentRow> {
  const [r] = await db.insert(shipments).values(v).returning();
  return r!;
}
export async function updateShipment(db: Queryable, id: string, v: Partial<NewShipment>): Promise<ShipmentRow> {
  const [r] = await db.update(shipments).set(v).where(eq(shipments.id, id)).returning();
  return r!;
}

export async function findByTid(db: Queryable, scope: Scope, tid: string): Promise<ShipmentRow | undefined> {
  const [r] = await db
    .select()
    .from(shipments)
    .where(and(eq(shipments.tid, tid), scoped(scope)))
    .limit(1);
  return r;
}
export async function lockByTid(db: Queryable, scope: Scope, tid: string): Promise<ShipmentRow | undefined> {
  const [r] = await db
    .select()
    .from(shipments)
    .where(and(eq(shipments.tid, tid), scoped(scope)))
    .for('update')
    .limit(1);
  return r;
}
export async function findByTids(db: Queryable, scope: Scope, tids: string[]): Promise<ShipmentRow[]> {
  if (tids.length === 0) return [];
  return db
    .select()
    .from(shipments)
    .where(and(inArray(shipments.tid, tids), scoped(scope)));
}
/** The public page: a company's shipment by its tid. */
export async function findForCompany(db: Queryable, companyId: string, tid: string): Promise<ShipmentRow | undefined> {
  return findByTid(db, { companyId }, tid);
}

export interface ListFilter {
  scope: Scope;
  limit: number;
  statuses: string[];
  courierEmails: string[];
  after?: { createdAt: Date; id: string };
}
export async function listShipments(db: Queryable, f: ListFilter): Promise<ShipmentRow[]> {
  const where = [scoped(f.scope)];
  if (f.statuses.length) where.push(inArray(shipments.status, f.statuses));
  if (f.courierEmails.length) {
    const emails = f.courierEmails.map((e) => e.toLowerCase());
    where.push(or(inArray(shipments.courierEmail, emails), inArray(shipments.courier, f.courierEmails))!);
  }
  if (f.after) where.push(sql`(${shipments.createdAt}, ${shipments.id}) < (${f.after.createdAt}, ${f.after.id})`);
  return db
    .select()
    .from(shipments)
    .where(and(...where))
    .orderBy(desc(shipments.createdAt), desc(shipments.id))
    .limit(f.limit);
}

/** A courier's open shipments (not Delivered or Expired, as the couriers page counts them), oldest first. */
export async function openAssigned(db: Queryable, courierId: string, limit: number): Promise<ShipmentRow[]> {
  return db
    .select()
    .from(shipments)
    .where(and(eq(shipments.courierId, courierId), notInArray(shipments.status, ['Delivered', 'Expired'])))
    .orderBy(asc(shipments.createdAt), asc(shipments.id))
    .limit(limit);
}

/**
 * What a courier did since a time: shipments they marked Delivered, and failed attempts, by the time the courier
 * acted (the checkpoint's time, occurredAt for what a phone kept offline), not the time it reached us (decision 138).
 */
export async function courierDayCounts(db: Queryable, courierId: string, since: Date): Promise<{ done: number; failed: number }> {
  const [r] = await db
    .select({
      done: sql<number>`count(distinct ${shipmentCheckpoints.shipmentId}) filter (where ${shipmentCheckpoints.status} = 'Delivered')::int`,
      failed: sql<number>`count(*) filter (where ${shipmentCheckpoints.status} = 'FailAttempt')::int`,
    })
    .from(shipmentCheckpoints)
    .where(and(eq(shipmentCheckpoints.byUserId, courierId), gte(shipmentCheckpoints.time, since)));
  return { done: Number(r?.done ?? 0), failed: Number(r?.failed ?? 0) };
}

export async function insertParcels(db: Queryable, rows: NewParcel[]) {
  if (rows.length) await db.insert(shipmentParcels).values(rows);
}
export async function replaceParcels(db: Queryable, shipmentId: string, rows: NewParcel[]) {
  await db.delete(shipmentParcels).where(eq(shipmentParcels.shipmentId, shipmentId));
  await insertParcels(db, rows);
}
export async function parcelsFor(db: Queryable, ids: string[]): Promise<ParcelRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(shipmentParcels)
    .where(inArray(shipmentParcels.shipmentId, ids))
    .orderBy(asc(shipmentParcels.shipmentId), asc(shipmentParcels.position));
}

/**
 * Checkpoints without the proof images (lists never carry them), newest first by their own time: a stop recorded
 * late sits where it happened, not on top. Entry order breaks ties.
 */
export async function checkpointsFor(db: Queryable, ids: string[]) {
  if (ids.length === 0) return [];
  return (
    db
      .select({
        id: shipmentCheckpoints.id,
        shipmentId: shipmentCheckpoints.shipmentId,
        status: shipmentCheckpoints.status,
        location: shipmentCheckpoints.location,
        message: shipmentCheckpoints.message,
        lat: shipmentCheckpoints.lat,
        long: shipmentCheckpoints.long,
        time: shipmentCheckpoints.time,
        byRole: shipmentCheckpoints.byRole,
        byName: shipmentCheckpoints.byName,
        podRecipientName: shipmentCheckpoints.podRecipientName,
        hasSignature: sql<boolean>`${shipmentCheckpoints.podSignature} is not null`,
        hasPhoto: sql<boolean>`${shipmentCheckpoints.podPhoto} is not null`,
      })
      .from(shipmentCheckpoints)
      .where(inArray(shipmentCheckpoints.shipmentId, ids))
      // In the order they were added: the status is the last one added, whatever time it carries.
      .orderBy(desc(shipmentCheckpoints.time), desc(shipmentCheckpoints.id))
  );
}
export type CheckpointSummary = Awaited<ReturnType<typeof checkpointsFor>>[number];

export async function insertCheckpoint(db: Queryable, v: NewCheckpoint) {
  const [r] = await db.insert(shipmentCheckpoints).values(v).returning({ id: shipmentCheckpoints.id });
  return r!.id;
}
export async function findCheckpoint(db: Queryable, shipmentId: string, id: number): Promise<CheckpointRow | undefined> {
  const [r] = await db
    .select()
    .from(shipmentCheckpoints)
    .where(and(eq(shipmentCheckpoints.shipmentId, shipmentId), eq(shipmentCheckpoints.id, id)))
    .limit(1);
  return r;
}

/** A status change of a shipment, in the event table the notifications fan out from. */
export async function insertEvent(
  db: Queryable,
  v: { shipmentId: string; userId: string; fromStatus: string | null; toStatus: string; checkpoint: unknown; createdAt: Date },
) {
  const [r] = await db.insert(trackingEvents).values(v).returning({ id: trackingEvents.id });
  return r!.id;
}

/** The company behind a public uid (company accounts only). */
export async function findCompanyByUid(db: Queryable, uid: string) {
  const [r] = await db.select().from(users).where(eq(users.uid, uid)).limit(1);
  return r;
}
export async function findUserById(db: Queryable, id: string) {
  const [r] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return r;
}

// ------------------------------------------------------------------ bulk assignment
/** The company's shipments among `tids`, locked for the assignment (in tid order: no deadlock between two). */
export async function lockCompanyTids(db: Queryable, companyId: string, tids: string[]): Promise<ShipmentRow[]> {
  if (tids.length === 0) return [];
  return db
    .select()
    .from(shipments)
    .where(and(eq(shipments.companyId, companyId), inArray(shipments.tid, tids)))
    .orderBy(asc(shipments.tid))
    .for('update');
}
export async function setCourier(
  db: Queryable,
  ids: string[],
  v: { courierId: string | null; courier: string; courierEmail: string; updatedAt: Date },
): Promise<ShipmentRow[]> {
  if (ids.length === 0) return [];
  return db.update(shipments).set(v).where(inArray(shipments.id, ids)).returning();
}

// ------------------------------------------------------------------ the map's markers
export interface MarkerRow {
  tid: string;
  status: string;
  courier: string;
  origin: unknown;
  destination: unknown;
  posLat: number | null;
  posLong: number | null;
}
/**
 * The map's light list: no parcels, no checkpoint lists; the last checkpoint that carried a position is one
 * indexed look-up per shipment. Ordered by tid (unique) for paging.
 */
export async function listMarkers(
  db: Queryable,
  f: { scope: Scope; statuses: string[]; afterTid?: string; limit: number },
): Promise<MarkerRow[]> {
  const where = [scoped(f.scope), inArray(shipments.status, f.statuses)];
  if (f.afterTid) where.push(sql`${shipments.tid} > ${f.afterTid}`);
  const pos = (col: 'lat' | 'long') =>
    sql<
      number | null
    >`(select c.${sql.raw(col)} from shipment_checkpoints c where c.shipment_id = "shipments"."id" and c.lat is not null and c.long is not null order by c.id desc limit 1)`.mapWith(
      Number,
    );
  return db
    .select({
      tid: shipments.tid,
      status: shipments.status,
      courier: shipments.courier,
      origin: shipments.origin,
      destination: shipments.destination,
      posLat: pos('lat'),
      posLong: pos('long'),
    })
    .from(shipments)
    .where(and(...where))
    .orderBy(asc(shipments.tid))
    .limit(f.limit);
}

// ------------------------------------------------------------------ the company's logo
export async function saveLogo(db: Queryable, userId: string, png: Buffer, at: Date) {
  await db
    .insert(companyLogos)
    .values({ userId, png, updatedAt: at })
    .onConflictDoUpdate({ target: companyLogos.userId, set: { png, updatedAt: at } });
}
export async function deleteLogo(db: Queryable, userId: string) {
  await db.delete(companyLogos).where(eq(companyLogos.userId, userId));
}
export async function findLogoByUid(db: Queryable, uid: string): Promise<{ png: Buffer; updatedAt: Date } | undefined> {
  const [r] = await db
    .select({ png: companyLogos.png, updatedAt: companyLogos.updatedAt })
    .from(companyLogos)
    .innerJoin(users, eq(users.id, companyLogos.userId))
    .where(eq(users.uid, uid))
    .limit(1);
  return r;
}

/** A company's open shipments expected within [from, to), and those with no expected date (Plan the day). */
export async function openForDay(db: Queryable, companyId: string, statuses: string[], from: Date, to: Date): Promise<ShipmentRow[]> {
  return db
    .select()
    .from(shipments)
    .where(
      and(
        eq(shipments.companyId, companyId),
        inArray(shipments.status, statuses),
        or(isNull(shipments.expected), and(gte(shipments.expected, from), lt(shipments.expected, to))),
      ),
    )
    .orderBy(asc(shipments.createdAt), asc(shipments.id))
    .limit(5000);
}

/** The company's shipments by id (Plan the day reads the ones of its plan). */
export async function findByIds(db: Queryable, companyId: string, ids: string[]): Promise<ShipmentRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(shipments)
    .where(and(eq(shipments.companyId, companyId), inArray(shipments.id, ids)));
}

export type CourierPerformanceRow = {
  courierId: string;
  name: string;
  daysWorked: number;
  stops: number;
  delivered: number;
  onTime: number;
  failed: number;
};

/** The period of a courier figure as SQL: its ends, the same in `timeZone`'s local time, and whether the rollup's days are those days. */
function periodSql(companyId: string, from: Date, to: Date, timeZone: string) {
  const fromTs = sql`${from.toISOString()}::timestamptz`;
  const toTs = sql`${to.toISOString()}::timestamptz`;
  const fromLocal = sql`(${fromTs} at time zone ${timeZone})`;
  const toLocal = sql`(${toTs} at time zone ${timeZone})`;
  return {
    fromTs,
    toTs,
    fromLocal,
    toLocal,
    kept: sql`coalesce((select u.time_zone from ${users} u where u.id = ${companyId}::uuid) = ${timeZone}, false)`,
    firstWhole: sql`(${fromLocal}::date + case when ${fromLocal}::time = '00:00' then 0 else 1 end)`,
    partDays: sql`array[case when ${fromLocal}::time <> '00:00' then ${fromLocal}::date end, case when ${toLocal}::time <> '00:00' then ${toLocal}::date end]`,
  };
}

/** A part day at either end of the period, per courier, counted from that courier's scans of the day (decision 152). */
function partDayScans(p: ReturnType<typeof periodSql>, companyId: string, timeZone: string) {
  const { fromTs, toTs, fromLocal, kept, partDays } = p;
  return sql`
    select sc.by_user_id, d.day, max(sc.by_name),
      count(*) filter (where sc.status in ('Delivered', 'FailAttempt')),
      count(*) filter (where sc.status = 'Delivered'),
      count(*) filter (where sc.status = 'Delivered' and exists (
        select 1 from ${shipmentCheckpoints} o
        where o.shipment_id = sc.shipment_id and o.status = 'OutForDelivery'
          and o.time >= sc.time - interval '2 days' and o.time < sc.time + interval '2 days'
          and (o.time at time zone ${timeZone})::date = d.day)),
      count(*) filter (where sc.status = 'FailAttempt')
    from ${courierDays} d
    -- Each part day's courier, an index range of that courier's scans (offset 0: kept a lateral per row, not a
    -- hash join over every courier scan of the platform).
    cross join lateral (
      select x.shipment_id, x.status, x.by_name, x.by_user_id, x.time from ${shipmentCheckpoints} x
      where x.by_user_id = d.courier_id and x.by_role = 'courier'
        and x.time >= greatest(${fromTs}, case when d.day = ${fromLocal}::date then ${fromTs} else ${toTs} - interval '2 days' end)
        and x.time < least(${toTs}, case when d.day = ${fromLocal}::date then ${fromTs} + interval '2 days' else ${toTs} end)
        and (x.time at time zone ${timeZone})::date = d.day
      offset 0
    ) sc
    join ${shipments} s on s.id = sc.shipment_id and s.company_id = ${companyId}::uuid
    where ${kept} and d.company_id = ${companyId}::uuid and d.day = any(${partDays})
    group by sc.by_user_id, d.day`;
}

/**
 * A company's own couriers in [from, to) (issue 32, decision 134), from the checkpoints they recorded: the days they
 * worked (days, in `timeZone`, with a checkpoint of theirs), stops (deliveries and failed attempts), deliveries, the
 * deliveries made the same day the shipment went out for delivery, failed attempts. Read only.
 */
export async function courierPerformance(
  db: Queryable,
  companyId: string,
  from: Date,
  to: Date,
  timeZone: string,
): Promise<CourierPerformanceRow[]> {
  // Decision 152: the whole local days of the period come from courier_days (kept by the database from the scans,
  // in the company's time zone); a part day at either end (a period that does not start or end at a local midnight)
  // is counted from the scans of its couriers (the rollup's rows of that day name them: an index range of
  // shipment_checkpoints_courier_time_idx each). The page's periods are whole days, so it reads the rollup alone.
  // In a time zone other than the company's (the rollup's days are not those days), the scans of the whole period
  // are read in one pass with a margin of two days either side for the days shipments went out (decision 147).
  const p = periodSql(companyId, from, to, timeZone);
  const { fromTs, toTs, kept, toLocal, firstWhole } = p;
  const period = sql`sc.time >= ${fromTs} and sc.time < ${toTs}`;
  const r = await db.execute<Record<string, unknown>>(sql`
    with a as (
      select sc.shipment_id, sc.status, sc.by_user_id, sc.by_name, (sc.time at time zone ${timeZone})::date as day,
        sc.by_role = 'courier' and sc.by_user_id is not null and ${period} as mine
      from ${shipmentCheckpoints} sc join ${shipments} s on s.id = sc.shipment_id
      where not ${kept} and s.company_id = ${companyId}::uuid
        and sc.time >= ${fromTs} - interval '2 days' and sc.time < ${toTs} + interval '2 days'
    ), out_days as (
      select distinct a.shipment_id, a.day from a where a.status = 'OutForDelivery'
    ), per_day as (
      select cp.by_user_id, cp.day, max(cp.by_name) as by_name,
        count(*) filter (where cp.status in ('Delivered', 'FailAttempt')) as stops,
        count(*) filter (where cp.status = 'Delivered') as delivered,
        count(*) filter (where cp.status = 'Delivered' and o.shipment_id is not null) as on_time,
        count(*) filter (where cp.status = 'FailAttempt') as failed
      from a cp left join out_days o on o.shipment_id = cp.shipment_id and o.day = cp.day
      where cp.mine
      group by cp.by_user_id, cp.day
      union all
      select d.courier_id, d.day, d.by_name, d.stops, d.delivered, d.on_time, d.failed
      from ${courierDays} d
      where ${kept} and d.company_id = ${companyId}::uuid and d.day >= ${firstWhole} and d.day < ${toLocal}::date
      union all
      ${partDayScans(p, companyId, timeZone)}
    )
    select p.by_user_id as courier_id, coalesce(nullif(trim(max(u.first_name) || ' ' || max(u.last_name)), ''), nullif(max(p.by_name), ''), max(u.email), '') as name,
      count(*)::int as days_worked, sum(p.stops)::int as stops, sum(p.delivered)::int as delivered,
      sum(p.on_time)::int as on_time, sum(p.failed)::int as failed
    from per_day p left join ${users} u on u.id = p.by_user_id
    group by p.by_user_id
    order by name, p.by_user_id`);
  return rowsOf<Record<string, unknown>>(r).map((x) => ({
    courierId: String(x.courier_id),
    name: String(x.name),
    daysWorked: Number(x.days_worked),
    stops: Number(x.stops),
    delivered: Number(x.delivered),
    onTime: Number(x.on_time),
    failed: Number(x.failed),
  }));
}

/** A courier's shipments out for delivery, oldest first (the order of their day without a plan). */
export async function outForDelivery(db: Queryable, courierId: string, limit: number): Promise<ShipmentRow[]> {
  return db
    .select()
    .from(shipments)
    .where(and(eq(shipments.courierId, courierId), eq(shipments.status, 'OutForDelivery')))
    .orderBy(asc(shipments.createdAt), asc(shipments.id))
    .limit(limit);
}

/** Which approach events (CourierNear, CourierArriving) these shipments already had: "shipmentId toStatus". */
export async function approachEventsOf(db: Queryable, shipmentIds: string[]): Promise<Set<string>> {
  if (shipmentIds.length === 0) return new Set();
  const rows = await db
    .select({ shipmentId: trackingEvents.shipmentId, toStatus: trackingEvents.toStatus })
    .from(trackingEvents)
    .where(and(inArray(trackingEvents.shipmentId, shipmentIds), inArray(trackingEvents.toStatus, ['CourierNear', 'CourierArriving'])));
  return new Set(rows.map((r) => `${r.shipmentId} ${r.toStatus}`));
}

/**
 * Record an approach event once per shipment and kind: the unique index (tracking_events_approach_uq) makes a
 * second insert, from a repeated position or a racing process, a no-op (undefined).
 */
export async function insertApproachEvent(
  db: Queryable,
  v: { shipmentId: string; userId: string; fromStatus: string; toStatus: string; checkpoint: unknown; createdAt: Date },
): Promise<string | undefined> {
  const [r] = await db
    .insert(trackingEvents)
    .values(v)
    .onConflictDoNothing({
      target: [trackingEvents.shipmentId, trackingEvents.toStatus],
      where: sql`${trackingEvents.toStatus} in ('CourierNear', 'CourierArriving')`,
    })
    .returning({ id: trackingEvents.id });
  return r?.id;
}
