// The plans' SQL (decision 118): delivery_plans and plan_stops belong to this module.
import { and, asc, desc, eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { deliveryPlans, planStops, shipments } from '../../db/schema.ts';

export type PlanRow = typeof deliveryPlans.$inferSelect;
export type StopRow = typeof planStops.$inferSelect;
export type NewStop = typeof planStops.$inferInsert;

export async function findPlan(db: Queryable, companyId: string, date: string): Promise<PlanRow | undefined> {
  const [p] = await db
    .select()
    .from(deliveryPlans)
    .where(and(eq(deliveryPlans.companyId, companyId), eq(deliveryPlans.date, date)))
    .limit(1);
  return p;
}

/** Lock the plan of a day for a change (two edits of one plan take turns). */
export async function lockPlan(db: Queryable, companyId: string, date: string): Promise<PlanRow | undefined> {
  const [p] = await db
    .select()
    .from(deliveryPlans)
    .where(and(eq(deliveryPlans.companyId, companyId), eq(deliveryPlans.date, date)))
    .for('update')
    .limit(1);
  return p;
}

/** Write the day's plan: a new one, or the settings and unplanned list of the existing one (its stops are replaced apart). */
export async function savePlan(
  db: Queryable,
  v: { companyId: string; date: string; timeZone: string; settings: unknown; unplanned: unknown; now: Date },
): Promise<PlanRow> {
  const [p] = await db
    .insert(deliveryPlans)
    .values({ ...v, createdAt: v.now, updatedAt: v.now })
    .onConflictDoUpdate({
      target: [deliveryPlans.companyId, deliveryPlans.date],
      set: { timeZone: v.timeZone, settings: v.settings, unplanned: v.unplanned, updatedAt: v.now },
    })
    .returning();
  return p!;
}

export async function touchPlan(db: Queryable, planId: string, now: Date) {
  await db.update(deliveryPlans).set({ updatedAt: now }).where(eq(deliveryPlans.id, planId));
}

export async function stopsOf(db: Queryable, planId: string): Promise<StopRow[]> {
  return db.select().from(planStops).where(eq(planStops.planId, planId)).orderBy(asc(planStops.courierId), asc(planStops.position));
}

export async function replaceStops(db: Queryable, planId: string, rows: NewStop[]) {
  await db.delete(planStops).where(eq(planStops.planId, planId));
  if (rows.length) await db.insert(planStops).values(rows);
}

/** A shipment's stop in the latest plan that has it, with that plan's day and time zone. */
export async function latestStopByTid(db: Queryable, tid: string) {
  const [r] = await db
    .select({ stop: planStops, date: deliveryPlans.date, timeZone: deliveryPlans.timeZone })
    .from(planStops)
    .innerJoin(deliveryPlans, eq(deliveryPlans.id, planStops.planId))
    .innerJoin(shipments, eq(shipments.id, planStops.shipmentId))
    .where(eq(shipments.tid, tid))
    .orderBy(desc(deliveryPlans.date))
    .limit(1);
  return r;
}

/** A shipment's stop in the latest plan that has it, with that plan's day and time zone. */
export async function latestStopOf(db: Queryable, shipmentId: string) {
  const [r] = await db
    .select({ stop: planStops, date: deliveryPlans.date, timeZone: deliveryPlans.timeZone })
    .from(planStops)
    .innerJoin(deliveryPlans, eq(deliveryPlans.id, planStops.planId))
    .where(eq(planStops.shipmentId, shipmentId))
    .orderBy(desc(deliveryPlans.date))
    .limit(1);
  return r;
}

/** A courier's stops in the company's plan of a day, in order, with their tracking numbers. */
export async function courierStops(db: Queryable, companyId: string, date: string, courierId: string) {
  return db
    .select({ stop: planStops, tid: shipments.tid })
    .from(planStops)
    .innerJoin(deliveryPlans, eq(deliveryPlans.id, planStops.planId))
    .innerJoin(shipments, eq(shipments.id, planStops.shipmentId))
    .where(and(eq(deliveryPlans.companyId, companyId), eq(deliveryPlans.date, date), eq(planStops.courierId, courierId)))
    .orderBy(asc(planStops.position));
}
