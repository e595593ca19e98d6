import { and, eq, inArray, sql } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../../db/client.ts';
import { carrierSubscriptions, trackings } from '../../db/schema.ts';

/** The trackings a pushed event is for: every account's live tracking of the number at that carrier. */
export async function liveTrackingIds(db: Queryable, courier: string, tid: string): Promise<string[]> {
  const rows = await db
    .select({ id: trackings.id })
    .from(trackings)
    .where(and(eq(trackings.tid, tid), eq(trackings.courier, courier), sql`${trackings.nextCheckAt} is not null`));
  return rows.map((r) => r.id);
}

/**
 * Claim the numbers of live trackings with no subscription, or one due for renewal (a refused one due for another
 * try), until `claimUntil`: the claim moves the row's renew time forward in the same statement, so two workers never
 * subscribe the same number at once (a second USPS subscription of a number is refused), and a worker that dies
 * mid-round leaves numbers that are claimed again once the claim lapses. A new number's row is `pending` (not pushed).
 */
export async function claimNumbersToSubscribe(
  db: Queryable,
  courier: string,
  now: Date,
  claimUntil: Date,
  limit: number,
): Promise<string[]> {
  const r = await db.execute<{ tid: string }>(sql`
    with due as (
      select distinct t.tid from ${trackings} t
      left join ${carrierSubscriptions} s on s.courier = t.courier and s.tid = t.tid
      where t.courier = ${courier} and t.next_check_at is not null and (s.tid is null or s.renew_at <= ${now})
      limit ${limit}
    )
    insert into ${carrierSubscriptions} (courier, tid, state, subscription_id, expires_at, renew_at, updated_at)
    select ${courier}, tid, 'pending', null, ${now}, ${claimUntil}, ${now} from due
    on conflict (courier, tid) do update set renew_at = excluded.renew_at, updated_at = excluded.updated_at
      where ${carrierSubscriptions}.renew_at <= ${now}
    returning tid`);
  return rowsOf<{ tid: string }>(r).map((x) => x.tid);
}

export type SubscriptionRow = {
  tid: string;
  state: 'active' | 'refused' | 'pending';
  subscriptionId: string | null;
  expiresAt: Date;
  renewAt: Date;
};

export async function saveSubscriptions(db: Queryable, courier: string, rows: SubscriptionRow[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insert(carrierSubscriptions)
    .values(rows.map((r) => ({ courier, ...r, updatedAt: now })))
    .onConflictDoUpdate({
      target: [carrierSubscriptions.courier, carrierSubscriptions.tid],
      set: {
        state: sql`excluded.state`,
        subscriptionId: sql`coalesce(excluded.subscription_id, ${carrierSubscriptions.subscriptionId})`,
        expiresAt: sql`excluded.expires_at`,
        renewAt: sql`excluded.renew_at`,
        updatedAt: now,
      },
    });
}

/** Subscriptions no live tracking needs any more (delivered, expired or deleted everywhere). */
export async function endedSubscriptions(
  db: Queryable,
  courier: string,
  limit: number,
): Promise<Array<{ tid: string; subscriptionId: string | null; state: string }>> {
  const r = await db.execute<{ tid: string; subscription_id: string | null; state: string }>(sql`
    select s.tid, s.subscription_id, s.state from ${carrierSubscriptions} s
    where s.courier = ${courier}
      and not exists (select 1 from ${trackings} t where t.tid = s.tid and t.courier = s.courier and t.next_check_at is not null)
    limit ${limit}`);
  return rowsOf<{ tid: string; subscription_id: string | null; state: string }>(r).map((x) => ({
    tid: x.tid,
    subscriptionId: x.subscription_id,
    state: x.state,
  }));
}

export async function deleteSubscriptions(db: Queryable, courier: string, tids: string[]): Promise<void> {
  if (tids.length)
    await db.delete(carrierSubscriptions).where(and(eq(carrierSubscriptions.courier, courier), inArray(carrierSubscriptions.tid, tids)));
}
