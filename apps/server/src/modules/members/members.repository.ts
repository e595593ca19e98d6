import { and, asc, eq, gte, inArray, isNull, lt, lte, notInArray, or, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { announceUserChanged } from '../../lib/auth-signal.ts';
import { courierPositions, shipments, users } from '../../db/schema.ts';

export type MemberRow = typeof users.$inferSelect;

export async function listMembers(db: Queryable, companyId: string): Promise<MemberRow[]> {
  return db
    .select()
    .from(users)
    .where(and(eq(users.companyId, companyId), eq(users.role, 'courier')))
    .orderBy(asc(users.createdAt), asc(users.id));
}

export async function findMember(db: Queryable, companyId: string, by: { uid?: string; email?: string }): Promise<MemberRow | undefined> {
  const key = by.uid ? eq(users.uid, by.uid) : eq(users.email, (by.email ?? '').toLowerCase());
  const [m] = await db
    .select()
    .from(users)
    .where(and(key, eq(users.companyId, companyId), eq(users.role, 'courier')))
    .limit(1);
  return m;
}

/** Open (not Delivered or Expired) shipments per member. */
export async function openShipmentCounts(db: Queryable, memberIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (memberIds.length === 0) return out;
  const rows = await db
    .select({ courierId: shipments.courierId, n: sql<number>`count(*)::int` })
    .from(shipments)
    .where(and(inArray(shipments.courierId, memberIds), notInArray(shipments.status, ['Delivered', 'Expired'])))
    .groupBy(shipments.courierId);
  for (const r of rows) if (r.courierId) out.set(r.courierId, Number(r.n));
  return out;
}

/**
 * Delete a member's account. Their shipments stay with the company: the foreign key sets courier_id to null
 * (unassigned) and the shipment keeps the courier's name and email as text. Sessions go with the account.
 */
export async function deleteMember(db: Queryable, companyId: string, memberId: string): Promise<boolean> {
  const r = await db
    .delete(users)
    .where(and(eq(users.id, memberId), eq(users.companyId, companyId), eq(users.role, 'courier')))
    .returning({ id: users.id });
  if (r.length > 0) await announceUserChanged(db, memberId);
  return r.length > 0;
}

/**
 * Store a courier's position; `shared` is true when it is also the one recipients get (none went out in the last
 * `shareEveryMs`, decision 128). One statement, so two reports racing share one of them, not both.
 */
export async function setPosition(
  db: Queryable,
  memberId: string,
  lat: number,
  lng: number,
  fix: { takenAt: Date; now: Date; shareable: boolean },
  shareEveryMs: number,
): Promise<{ stored: boolean; shared: boolean }> {
  const { takenAt, now } = fix;
  const due = fix.shareable
    ? sql`(${users.geoSharedAt} is null or ${users.geoSharedAt} <= ${new Date(now.getTime() - shareEveryMs)})`
    : sql`false`;
  const [r] = await db
    .update(users)
    .set({
      geoLat: String(lat),
      geoLng: String(lng),
      geoAt: takenAt,
      geoSharedAt: sql`case when ${due} then ${now} else ${users.geoSharedAt} end`,
      updatedAt: now,
    })
    // A fix sent late never replaces a newer one.
    .where(and(eq(users.id, memberId), or(isNull(users.geoAt), lte(users.geoAt, takenAt))))
    .returning({ sharedAt: users.geoSharedAt });
  if (!r) return { stored: false, shared: false };
  await announceUserChanged(db, memberId);
  return { stored: true, shared: r.sharedAt?.getTime() === now.getTime() };
}

export async function findUserByEmail(db: Queryable, email: string): Promise<MemberRow | undefined> {
  const [u] = await db.select().from(users).where(eq(users.email, email.toLowerCase())).limit(1);
  return u;
}

/**
 * Add positions to a courier's trail (decision 149); one a courier and time: a fix the trail has already (a resend)
 * is not added again. Resolves with how many were new.
 */
export async function addToTrail(
  db: Queryable,
  courierId: string,
  fixes: Array<{ lat: number; lng: number; takenAt: Date }>,
): Promise<number> {
  if (fixes.length === 0) return 0;
  const rows = await db
    .insert(courierPositions)
    .values(fixes.map((f) => ({ courierId, lat: f.lat, lng: f.lng, takenAt: f.takenAt })))
    .onConflictDoNothing({ target: [courierPositions.courierId, courierPositions.takenAt] })
    .returning({ id: courierPositions.id });
  return rows.length;
}

/** Forget a courier's positions taken before `before` (the trail is kept POSITION_TRAIL_KEEP_DAYS). */
export async function pruneTrail(db: Queryable, courierId: string, before: Date): Promise<void> {
  await db.delete(courierPositions).where(and(eq(courierPositions.courierId, courierId), lt(courierPositions.takenAt, before)));
}

/** A courier's positions taken since `since`, oldest first, at most `limit`. */
export async function trailOf(db: Queryable, courierId: string, since: Date, limit: number) {
  return db
    .select({ lat: courierPositions.lat, lng: courierPositions.lng, takenAt: courierPositions.takenAt })
    .from(courierPositions)
    .where(and(eq(courierPositions.courierId, courierId), gte(courierPositions.takenAt, since)))
    .orderBy(asc(courierPositions.takenAt))
    .limit(limit);
}

/** The courier's stored last position (users.geo_*), or null. */
export async function lastPositionOf(db: Queryable, courierId: string) {
  const [u] = await db
    .select({ lat: users.geoLat, lng: users.geoLng, at: users.geoAt })
    .from(users)
    .where(eq(users.id, courierId))
    .limit(1);
  return u && u.lat != null && u.lng != null && u.at ? { lat: Number(u.lat), lng: Number(u.lng), takenAt: u.at.toISOString() } : null;
}
