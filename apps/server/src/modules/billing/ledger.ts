import { and, eq, sql } from 'drizzle-orm';

import type { Queryable, Tx } from '../../db/client.ts';
import { ledgerEntries, users } from '../../db/schema.ts';
import { AppError } from '../../lib/errors.ts';
import { balanceCents } from '../accounts/accounts.repository.ts';

export type LedgerKind = 'signup_bonus' | 'tracking' | 'sms' | 'topup' | 'referral_reward' | 'promo' | 'refund';

export class InsufficientBalanceError extends AppError {
  constructor(readonly balance: number, readonly needed: number) {
    super(402, `Insufficient balance: this costs $${(needed / 100).toFixed(2)} and your balance is $${(balance / 100).toFixed(2)}. Please add balance.`, 'insufficient_balance');
  }
}

/**
 * Book a credit. (user, kind, ref) is unique, so booking the same credit twice is a no-op;
 * returns whether this call booked it.
 */
export async function credit(db: Queryable, userId: string, cents: number, kind: LedgerKind, ref: string, description = ''): Promise<boolean> {
  if (cents <= 0) throw new Error('credit must be positive');
  const r = await db
    .insert(ledgerEntries)
    .values({ userId, amountCents: cents, kind, ref, description })
    .onConflictDoNothing()
    .returning({ id: ledgerEntries.id });
  return r.length > 0;
}

/**
 * Charge inside the caller's transaction, so the charge and the work it pays for commit together.
 * The account row is locked first: concurrent charges queue up and none can overspend. A charge whose
 * (kind, ref) was already booked is not booked again (returns false).
 */
export async function charge(tx: Tx, userId: string, cents: number, kind: LedgerKind, ref: string, description = ''): Promise<boolean> {
  if (cents <= 0) throw new Error('charge must be positive');
  await tx.execute(sql`select 1 from ${users} where ${users.id} = ${userId} for update`);
  const [dup] = await tx
    .select({ id: ledgerEntries.id })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.userId, userId), eq(ledgerEntries.kind, kind), eq(ledgerEntries.ref, ref)))
    .limit(1);
  if (dup) return false;
  const balance = await balanceCents(tx, userId);
  if (balance < cents) throw new InsufficientBalanceError(balance, cents);
  await tx.insert(ledgerEntries).values({ userId, amountCents: -cents, kind, ref, description });
  return true;
}

/** What the account has spent on the service (tracking and SMS charges, net of refunds), in cents. */
export async function spentCents(db: Queryable, userId: string): Promise<number> {
  const [r] = await db
    .select({ sum: sql<string>`coalesce(-sum(${ledgerEntries.amountCents}) filter (where ${ledgerEntries.kind} in ('tracking','sms','refund')), 0)` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.userId, userId));
  return Number(r?.sum ?? 0);
}

