import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import type { LiveEvent } from '@shiptrail/contract';
import { notifySql, publish } from '../../lib/bus.ts';

export type { LiveEvent } from '@shiptrail/contract';

/**
 * Tell the account's open streams, from any process, once `db` commits: call it with the transaction that
 * makes the change, so a rolled-back change is never announced.
 */
export function publishLive(db: Queryable, event: LiveEvent): Promise<void> {
  return publish(db, 'live', event);
}

/** Many events in few statements (the refresh engine's batch), each sent when `db` commits as publishLive's. */
export async function publishLiveMany(db: Queryable, events: LiveEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 200) {
    await db.execute(sql`select ${sql.join(events.slice(i, i + 200).map(liveNotifySql), sql`, `)}`);
  }
}

/** publishLive as a `pg_notify(...)` call to put in a statement that makes the change. */
export function liveNotifySql(event: LiveEvent): SQL {
  return notifySql('live', event);
}
