import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { notifySql, publish } from '../../lib/bus.ts';

/**
 * What the signed-in users' streams carry: small facts that tell an open screen what to refetch, never
 * whole objects (the reader's own reads decide what they may see). `accountId` is the owner account the
 * event belongs to; `courierId` is the courier a shipment is assigned to (or who moved), who may read it too.
 */
export type LiveEvent =
  | { kind: 'tracking'; accountId: string; trackingId: string; tid: string; status: string; statusChanged: boolean }
  | {
      kind: 'shipment';
      accountId: string;
      courierId: string | null;
      shipmentId: string;
      tid: string;
      status: string;
      statusChanged: boolean;
    }
  | { kind: 'position'; accountId: string; courierId: string }
  /**
   * A courier's shared position (at most every 15 s, decision 128) for the public pages of the shipments they
   * have out for delivery: the hub hands each page its own parcel's copy, without the others' numbers.
   */
  | { kind: 'courier'; accountId: string; courierId: string; tids: string[]; lat: number; lng: number; at: string }
  | { kind: 'members'; accountId: string }
  | { kind: 'balance'; accountId: string }
  | { kind: 'alert'; accountId: string };

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
