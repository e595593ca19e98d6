import { and, eq, sql } from 'drizzle-orm';

import type { Queryable, Tx } from '../../db/client.ts';
import { ledgerEntries, users } from '../../db/schema.ts';

/** The balance is the sum of the account's ledger entries, in cents. */
export async function balanceCents(db: Queryable, userId: string): Promise<number> {
  const [r] = await db
    .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.amountCents}), 0)` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.userId, userId));
  return Number(r?.sum ?? 0);
}

/** Tracking and SMS charges net of refunds, in cents. */
export async function spentCents(db: Queryable, userId: string): Promise<number> {
  const [r] = await db
    .select({ sum: sql<string>`coalesce(-sum(${ledgerEntries.amountCents}) filter (where ${ledgerEntries.kind} in ('tracking','sms','refund')), 0)` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.userId, userId));
  return Number(r?.sum ?? 0);
}

/** Insert an entry unless (user, kind, ref) exists; whether it was inserted. */
export async function insertEntryOnce(db: Queryable, e: { userId: string; amountCents: number; kind: string; ref: string; description: string }): Promise<boolean> {
  const r = await db.insert(ledgerEntries).values(e).onConflictDoNothing().returning({ id: ledgerEntries.id });
  return r.length > 0;
}

/** Lock the account row for the rest of the transaction: charges to one account queue up here. */
export async function lockAccount(tx: Tx, userId: string): Promise<void> {
  await tx.execute(sql`select 1 from ${users} where ${users.id} = ${userId} for update`);
}

export async function entryExists(tx: Tx, userId: string, kind: string, ref: string): Promise<boolean> {
  const [dup] = await tx
    .select({ id: ledgerEntries.id })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.userId, userId), eq(ledgerEntries.kind, kind), eq(ledgerEntries.ref, ref)))
    .limit(1);
  return !!dup;
}

export async function insertEntries(tx: Tx, rows: Array<{ userId: string; amountCents: number; kind: string; ref: string; description: string }>): Promise<void> {
  if (rows.length) await tx.insert(ledgerEntries).values(rows);
}
