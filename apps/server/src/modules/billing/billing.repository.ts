import { eq, sql, type Placeholder, type SQL } from 'drizzle-orm';

import { rowsOf, type Queryable, type Tx } from '../../db/client.ts';
import { billingAccounts, ledgerEntries, users } from '../../db/schema.ts';
import { liveNotifySql, publishLive, type LiveEvent } from '../live/live.service.ts';

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

/** Tracking and SMS charges net of refunds, in cents. */
export async function spentCents(db: Queryable, userId: string): Promise<number> {
  const [r] = await db
    .select({
      sum: sql<string>`coalesce(-sum(${ledgerEntries.amountCents}) filter (where ${ledgerEntries.kind} in ('tracking','sms','refund')), 0)`,
    })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.userId, userId));
  return Number(r?.sum ?? 0);
}

/**
 * Insert an entry unless (user, kind, ref) exists, and move the balance by its amount in the same statement
 * (so it holds on a bare connection too); whether it was inserted.
 */
export async function insertEntryOnce(
  db: Queryable,
  e: { userId: string; amountCents: number; kind: string; ref: string; description: string },
): Promise<boolean> {
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

/** The live event a charge announces: the account's balance moved. */
export const balanceEvent = (userId: string): LiveEvent => ({ kind: 'balance', accountId: userId });

/**
 * Who is charged, for what and under which ref: the values themselves, or, in a statement built once (StatementOnce,
 * decision 187), the placeholders where each request binds them. With placeholders `charge_live` sends nothing (a
 * message needs a new id each time): the statement's caller sends the charge's live event (balanceEvent) with its
 * other messages, in the statement's one notification (bus.busMessages) or after its commit (bus.sendSoon, decision
 * 190).
 */
export type ChargeValues =
  { userId: string; ref: string; description: string } | { userId: Placeholder; ref: Placeholder; description: Placeholder };

/**
 * A charge as the WITH queries of a statement (the statement may also do the work it pays for): in autocommit
 * the account is locked for that one statement only.
 * - `charge_lock` locks the account row first, as lockAccount does (the order of imports and recharges);
 * - `charge_paid` moves the balance only if it covers the charge (and, with `unlessBooked`, only if (kind, ref)
 *   was not booked before). The balance check is in the UPDATE's WHERE, so a statement that waited for the lock
 *   re-checks it on the newest balance (PostgreSQL re-evaluates an UPDATE's condition on the row a concurrent
 *   commit left): none overspends. The booked check reads the statement's snapshot, so a caller asking for it
 *   holds lockAccount from an earlier statement (its snapshot then sees every earlier charge). It returns the
 *   account row after the charge when paid, nothing otherwise;
 * - `charge_booked` inserts the ledger entry and `charge_live` announces the balance (with placeholders, the
 *   statement announces it itself: ChargeValues), both only when paid.
 * Work in the same statement selects `from charge_paid`, so it happens only when it is paid; the statement must
 * read `charge_live` (a SELECT in WITH runs only when read).
 */
export function chargeCtes(e: { cents: number; kind: string } & ChargeValues, opts: { unlessBooked: boolean }): SQL {
  if (e.cents <= 0) throw new Error('charge must be positive');
  const unbooked = opts.unlessBooked
    ? sql`and not exists (select 1 from ${ledgerEntries} where user_id = ${e.userId} and kind = ${e.kind} and ref = ${e.ref})`
    : sql``;
  return sql`charge_lock as materialized (
      select id from ${users} where id = ${e.userId} for no key update
    ), charge_paid as (
      update ${billingAccounts} b set balance_cents = b.balance_cents - ${e.cents}, updated_at = now()
      from charge_lock where b.user_id = charge_lock.id and b.balance_cents >= ${e.cents} ${unbooked}
      returning b.*
    ), charge_booked as (
      insert into ${ledgerEntries} (user_id, amount_cents, kind, ref, description)
      select ${e.userId}, ${-e.cents}, ${e.kind}, ${e.ref}, ${e.description} from charge_paid
      returning 1
    ), charge_live as (
      select ${typeof e.userId === 'string' ? liveNotifySql(balanceEvent(e.userId)) : sql`1`} from charge_paid
    )`;
}

/**
 * Run a charge alone (`ctes` from chargeCtes, with whatever follow-ups the caller added): whether (kind, ref) was
 * booked before, whether this booked it, and the balance before it (for the caller's error message).
 */
export async function runCharge(
  tx: Tx,
  e: { userId: string; kind: string; ref: string },
  ctes: SQL,
): Promise<{ duplicate: boolean; booked: boolean; balanceCents: number }> {
  type Row = { duplicate: boolean; balance: number | string; booked: boolean; notified: number };
  const r = await tx.execute<Row>(sql`
    with ${ctes}
    select exists (select 1 from ${ledgerEntries} where user_id = ${e.userId} and kind = ${e.kind} and ref = ${e.ref}) as duplicate,
      coalesce((select balance_cents from ${billingAccounts} where user_id = ${e.userId}), 0) as balance,
      exists (select 1 from charge_paid) as booked, (select count(*) from charge_live)::int as notified`);
  const row = rowsOf<Row>(r)[0]!;
  return { duplicate: row.duplicate, booked: row.booked, balanceCents: Number(row.balance) };
}

/**
 * Book entries of one account in one statement (the bulk charge of an import batch, billing.service's bookCharges): the
 * entries inserted, the balance moved by their sum, the balance announced, and `followUps` (WITH queries that read
 * `booked_account`, the account row after the move) written from it. On the embedded database every statement of a
 * transaction is a round trip between the threads while the transaction holds the only session, and a person's
 * statement waits for that (decision 178); these were five statements, one each.
 */
export async function bookEntries(
  tx: Tx,
  userId: string,
  rows: Array<{ amountCents: number; kind: string; ref: string; description: string }>,
  followUps: SQL,
): Promise<void> {
  if (!rows.length) return;
  const delta = rows.reduce((sum, r) => sum + r.amountCents, 0);
  const values = rows.map((r) => sql`(${userId}::uuid, ${r.amountCents}::int, ${r.kind}, ${r.ref}, ${r.description})`);
  await tx.execute(sql`
    with booked_entries as (
      insert into ${ledgerEntries} (user_id, amount_cents, kind, ref, description) values ${sql.join(values, sql`, `)}
      returning 1
    ), booked_account as (
      insert into ${billingAccounts} (user_id, balance_cents) values (${userId}::uuid, ${delta})
      on conflict (user_id) do update set balance_cents = ${billingAccounts}.balance_cents + excluded.balance_cents, updated_at = now()
      returning *
    ), booked_live as (
      select ${liveNotifySql({ kind: 'balance', accountId: userId })} from booked_account
    ), ${followUps}
    select (select count(*) from booked_entries)::int as booked, (select count(*) from booked_live)::int as notified`);
}
