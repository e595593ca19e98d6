import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { alerts } from '../../db/schema.ts';
import { publishLive } from '../live/live.service.ts';

export interface NewAlert {
  group: 'general' | 'payment';
  name: string;
  message: string;
  level?: 'info' | 'warning' | 'danger';
  /** Alerts with the same key are raised once (until dismissed and raised under a new key). */
  dedupeKey?: string;
}

/**
 * The alerts module owns the alerts table's writes: accounts, billing, notifications and members raise and clear
 * their alerts here. Raise an alert for the user (shown on the alerts page and counted in the top bar); whether it
 * was raised now (false when one with the same key is there already). The open screens hear of it when it was.
 */
export async function raiseAlert(db: Queryable, userId: string, a: NewAlert): Promise<boolean> {
  const rows = await db
    .insert(alerts)
    .values({ userId, group: a.group, name: a.name, message: a.message, level: a.level ?? 'info', dedupeKey: a.dedupeKey ?? null })
    .onConflictDoNothing()
    .returning({ id: alerts.id });
  if (rows.length > 0) await publishLive(db, { kind: 'alert', accountId: userId });
  return rows.length > 0;
}

/** Dismiss the user's open alerts of `group` whose key starts with `dedupeKeyPrefix` (the trouble is over). */
export async function clearAlerts(db: Queryable, userId: string, group: NewAlert['group'], dedupeKeyPrefix: string): Promise<void> {
  await db
    .update(alerts)
    .set({ dismissedAt: sql`now()` })
    .where(
      and(
        eq(alerts.userId, userId),
        eq(alerts.group, group),
        sql`${alerts.dedupeKey} like ${dedupeKeyPrefix + '%'}`,
        sql`${alerts.dismissedAt} is null`,
      ),
    );
}

/** The user's open alerts, newest first (the alerts page and the dashboard). */
export async function listAlerts(db: Queryable, userId: string) {
  return db
    .select()
    .from(alerts)
    .where(and(eq(alerts.userId, userId), isNull(alerts.dismissedAt)))
    .orderBy(desc(alerts.createdAt))
    .limit(100);
}

/** Dismiss one of the user's alerts; false when the user has no alert of that id. */
export async function dismissAlert(db: Queryable, userId: string, id: string, now: Date): Promise<boolean> {
  const r = await db
    .update(alerts)
    .set({ dismissedAt: now })
    .where(and(eq(alerts.userId, userId), eq(alerts.id, id)))
    .returning({ id: alerts.id });
  return r.length > 0;
}
