import { eq, sql, type SQL } from 'drizzle-orm';

import { rowsOf, type Queryable, type Tx } from '../../db/client.ts';
import { billingAccounts, ledgerEntries, users } from '../../db/schema.ts';
import { liveNotifySql, publishLive } from '../live/live.service.ts';

/** The account's balance in cents: one row read, kept equal to the ledger's sum by every write below. */
export async function balanceCents(db: Queryable, userId: string): Promise<number> {
  const [r] = await db.select({ b: billingAccounts.balanceCents }).from(billingAccounts).where(eq(billingAccounts.userId, userId));
  return Number(r?.b ?? 0);
}

/** The sum of the account's ledger entries (a scan: for checks and tests, not for the hot path). */
export async function ledgerSumCents(db: Queryable, userId: string): Promise<number> {
  const [r] = await db
    .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.amountCents}), 0)` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.userId, userId));
  return Number(r?.sum ?? 0);
}

/** Add `delta` to the account's balance (creating its row), in the caller's statement order. */
async function addToBalance(db: Queryable, userId: string, delta: number): Promise<void> {
  await db
    .insert(billingAccounts)
    .values({ userId, balanceCents: delta })
    .onConflictDoUpdate({ target: billingAccounts.userId, set: { balanceCents: sql`${billingAccounts.balanceCents} + excluded.balance_cents`, updatedAt: sql`now()` } });
}

/** Tracking and SMS charges net of refunds, in cents. */
export async function spentCents(db: Queryable, userId: string): Promise<number> {
  const [r] = await db
    .select({ sum: sql<string>`coalesce(-sum(${ledgerEntries.amountCents}) filter (where ${ledgerEntries.kind} in ('tracking','sms','refund')), 0)` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.userId, userId));
  return Number(r?.sum ?? 0);
}

/**
 * Insert an entry unless (user, kind, ref) exists, and move the balance by its amount in the same statement
 * (so it holds on a bare connection too); whether it was inserted.
 */
export async function insertEntryOnce(db: Queryable, e: { userId: string; amountCents: number; kind: string; ref: string; description: string }): Promise<boolean> {
  const r = await db.execute<{ user_id: string }>(sql`
    with ins as (
      insert into ${ledgerEntries} (user_id, amount_cents, kind, ref, description)
      values (${e.userId}, ${e.amountCents}, ${e.kind}, ${e.ref}, ${e.description})
      on conflict do nothing
      returning user_id, amount_cents
    )
    insert into ${billingAccounts} (user_id, balance_cents)
    select user_id, amount_cents from ins
    on conflict (user_id) do update set balance_cents = ${billingAccounts}.balance_cents + excluded.balance_cents, updated_at = now()
    returning user_id`);
  if (rowsOf(r).length > 0) await publishLive(db, { kind: 'balance', accountId: e.userId });
  return rowsOf(r).length > 0;
}

/**
 * Lock the account row for the rest of the transaction: charges to one account queue up here. FOR NO KEY
 * UPDATE, not FOR UPDATE: the foreign-key checks of a concurrent credit (its ledger and balance rows point at
 * the user) take FOR KEY SHARE, which FOR UPDATE would block while that credit holds the balance row, a
 * deadlock PostgreSQL reported under racing charges, credits and recharges.
 */
export async function lockAccount(tx: Tx, userId: string): Promise<void> {
  await tx.execute(sql`select 1 from ${users} where ${users.id} = ${userId} for no key update`);
}

export interface ChargeOutcome {
  /** (kind, ref) was booked before: nothing was done. */
  duplicate: boolean;
  /** The balance before this charge. */
  balanceCents: number;
  booked: boolean;
  /** After the charge the balance is under the account's low-balance threshold (auto-recharge minimum or the default). */
  low: boolean;
}

/**
 * A charge in one statement, for a caller holding lockAccount (so the statement's snapshot already sees every
 * earlier charge of the account): unless (kind, ref) was booked, and only if the balance covers it, book the
 * entry, move the balance and announce it on the account's live stream. What it did, and the balance it saw,
 * come back for the caller to decide on errors and follow-ups.
 */
export async function chargeOnce(tx: Tx, e: { userId: string; cents: number; kind: string; ref: string; description: string }, lowDefaultCents: number): Promise<ChargeOutcome> {
  type Row = { duplicate: boolean; balance: number | string; booked: boolean; low: boolean | null; notified: number };
  const r = await tx.execute<Row>(sql`
    with acct as (
      select balance_cents from ${billingAccounts} where user_id = ${e.userId}
    ), dup as (
      select exists (select 1 from ${ledgerEntries} where user_id = ${e.userId} and kind = ${e.kind} and ref = ${e.ref}) as d
    ), ins as (
      insert into ${ledgerEntries} (user_id, amount_cents, kind, ref, description)
      select ${e.userId}, ${-e.cents}, ${e.kind}, ${e.ref}, ${e.description} from acct, dup
      where not dup.d and acct.balance_cents >= ${e.cents}
      on conflict do nothing
      returning user_id, amount_cents
    ), bal as (
      update ${billingAccounts} b set balance_cents = b.balance_cents + ins.amount_cents, updated_at = now()
      from ins where b.user_id = ins.user_id
      returning b.balance_cents < case when b.auto_recharge_cents > 0 and b.payment_method_token is not null then b.minimum_balance_cents else ${lowDefaultCents} end as low
    ), live as (
      -- Counted below: PostgreSQL runs a SELECT in WITH only when something reads it.
      select ${liveNotifySql({ kind: 'balance', accountId: e.userId })} from bal
    )
    select (select d from dup) as duplicate, coalesce((select balance_cents from acct), 0) as balance,
      exists (select 1 from bal) as booked, (select low from bal) as low, (select count(*) from live)::int as notified`);
  const row = rowsOf<Row>(r)[0]!;
  return { duplicate: row.duplicate, balanceCents: Number(row.balance), booked: row.booked, low: row.low === true };
}

/**
 * A charge whose ref is new (made in the same statement, so it cannot have been booked before), as the WITH
 * queries of a statement that also does the work it pays for: in autocommit the account is locked for that one
 * statement only, where `lockAccount` + `chargeOnce` hold it for two round trips and the commit.
 * - `charge_lock` locks the account row first, as lockAccount does (the order of imports and recharges);
 * - `charge_paid` moves the balance only if it covers the charge. The check is in the UPDATE's WHERE, so a
 *   statement that waited for the lock re-checks it on the newest balance (PostgreSQL re-evaluates an UPDATE's
 *   condition on the row a concurrent commit left): none overspends. It returns the account row after the
 *   charge when paid, nothing when the balance is short;
 * - `charge_booked` inserts the ledger entry and `charge_live` announces the balance, both only when paid.
 * The work's own WITH queries select `from charge_paid`, so they happen only when it is paid; the statement
 * must read `charge_live` (a SELECT in WITH runs only when read).
 */
export function freshChargeCtes(e: { userId: string; cents: number; kind: string; ref: string; description: string }): SQL {
  if (e.cents <= 0) throw new Error('charge must be positive');
  return sql`charge_lock as materialized (
      select id from ${users} where id = ${e.userId} for no key update
    ), charge_paid as (
      update ${billingAccounts} b set balance_cents = b.balance_cents - ${e.cents}, updated_at = now()
      from charge_lock where b.user_id = charge_lock.id and b.balance_cents >= ${e.cents}
      returning b.*
    ), charge_booked as (
      insert into ${ledgerEntries} (user_id, amount_cents, kind, ref, description)
      select ${e.userId}, ${-e.cents}, ${e.kind}, ${e.ref}, ${e.description} from charge_paid
      returning 1
    ), charge_live as (
      select ${liveNotifySql({ kind: 'balance', accountId: e.userId })} from charge_paid
    )`;
}

export async function insertEntries(tx: Tx, rows: Array<{ userId: string; amountCents: number; kind: string; ref: string; description: string }>): Promise<void> {
  if (!rows.length) return;
  await tx.insert(ledgerEntries).values(rows);
  const byUser = new Map<string, number>();
  for (const r of rows) byUser.set(r.userId, (byUser.get(r.userId) ?? 0) + r.amountCents);
  for (const [userId, delta] of byUser) await addToBalance(tx, userId, delta);
  for (const userId of byUser.keys()) await publishLive(tx, { kind: 'balance', accountId: userId });
}
