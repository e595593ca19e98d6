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

/** Raise an alert for the user (shown on the alerts page and counted in the top bar). */
export async function raiseAlert(db: Queryable, userId: string, a: NewAlert): Promise<void> {
  await db
    .insert(alerts)
    .values({ userId, group: a.group, name: a.name, message: a.message, level: a.level ?? 'info', dedupeKey: a.dedupeKey ?? null })
    .onConflictDoNothing();
  await publishLive(db, { kind: 'alert', accountId: userId });
}
