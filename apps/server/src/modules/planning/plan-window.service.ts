// The window of the day's plan for one shipment, for modules the planning service itself depends on (the
// customer's "out for delivery" mail is written in notifications, which shipments and so planning import).
// It reads plans only: no import of shipments, so no cycle.
import type { Queryable } from '../../db/client.ts';
import { localDate } from './model.ts';
import * as repo from './planning.repository.ts';

/** The shipment's window in the latest plan that has it, while that plan's day is today or later. */
export async function plannedWindow(db: Queryable, shipmentId: string, now: Date): Promise<{ from: string; to: string } | null> {
  const found = await repo.latestStopOf(db, shipmentId);
  if (!found || found.date < localDate(now, found.timeZone)) return null;
  return { from: found.stop.windowFrom.toISOString(), to: found.stop.windowTo.toISOString() };
}
