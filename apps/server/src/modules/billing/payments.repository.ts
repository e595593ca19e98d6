import { and, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { billingAccounts, ledgerEntries, payments, referrals, sandboxSales, sessions, users } from '../../db/schema.ts';
import type { GatewayTransaction } from './gateway.ts';
import type { SandboxSaleStore } from './sandbox-gateway.ts';

export type BillingAccount = typeof billingAccounts.$inferSelect;
export type PaymentRow = typeof payments.$inferSelect;

export async function account(db: Queryable, userId: string): Promise<BillingAccount | undefined> {
  const [a] = await db.select().from(billingAccounts).where(eq(billingAccounts.userId, userId));
  return a;
}

/** Update the account's billing row, creating it (balance 0) when the account has none yet. */
export async function updateAccount(
  db: Queryable,
  userId: string,
  set: Partial<Omit<BillingAccount, 'userId' | 'balanceCents'>>,
): Promise<void> {
  await db
    .insert(billingAccounts)
    .values({ userId, ...set })
    .onConflictDoUpdate({ target: billingAccounts.userId, set: { ...set, updatedAt: sql`now()` } });
}

export async function insertPayment(db: Queryable, p: typeof payments.$inferInsert): Promise<PaymentRow | undefined> {
  const [row] = await db.insert(payments).values(p).onConflictDoNothing().returning();
  return row;
}

export async function paymentByKey(db: Queryable, userId: string, key: string): Promise<PaymentRow | undefined> {
  const [row] = await db
    .select()
    .from(payments)
    .where(and(eq(payments.userId, userId), eq(payments.idempotencyKey, key)));
  return row;
}

export async function paymentById(db: Queryable, id: string): Promise<PaymentRow | undefined> {
  const [row] = await db.select().from(payments).where(eq(payments.id, id));
  return row;
}

/** The top-up or recharge that charged gateway transaction `transactionId`, if it is one of ours. */
export async function paymentByTransaction(db: Queryable, transactionId: string): Promise<PaymentRow | undefined> {
  const [row] = await db
    .select()
    .from(payments)
    .where(and(eq(payments.transactionId, transactionId), inArray(payments.kind, ['topup', 'auto_recharge'])));
  return row;
}

/** The amount of the account's ledger entry of `kind` and `ref` (0 when there is none). */
export async function entryCents(db: Queryable, userId: string, kind: string, ref: string): Promise<number> {
  const [row] = await db
    .select({ cents: ledgerEntries.amountCents })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.userId, userId), eq(ledgerEntries.kind, kind), eq(ledgerEntries.ref, ref)));
  return row?.cents ?? 0;
}

/** Move a payment from one of `from` to `to`; the updated row, or nothing when another process moved it first. */
export async function movePayment(
  db: Queryable,
  id: string,
  from: string[],
  set: Partial<PaymentRow> & { status: string },
): Promise<PaymentRow | undefined> {
  const [row] = await db
    .update(payments)
    .set({ ...set, updatedAt: sql`now()` })
    .where(and(eq(payments.id, id), inArray(payments.status, from)))
    .returning();
  return row;
}

/**
 * Claim a payment as read: moved to `status` only if its status and its last change are still what the reader saw.
 * Two sweeps that both read a recharge left 'processing' by a dead worker would otherwise both move it from
 * processing to processing and both run its sale. (The row's time is compared to the millisecond a JS Date keeps.)
 */
export async function claimPayment(db: Queryable, seen: PaymentRow, status: string): Promise<PaymentRow | undefined> {
  const [row] = await db
    .update(payments)
    .set({ status, updatedAt: sql`now()` })
    .where(
      and(
        eq(payments.id, seen.id),
        eq(payments.status, seen.status),
        sql`date_trunc('milliseconds', ${payments.updatedAt}) = ${seen.updatedAt.toISOString()}::timestamptz`,
      ),
    )
    .returning();
  return row;
}

export async function history(db: Queryable, userId: string, limit = 500): Promise<PaymentRow[]> {
  return db.select().from(payments).where(eq(payments.userId, userId)).orderBy(desc(payments.createdAt)).limit(limit);
}

/** Automatic recharges waiting to run, or stuck in processing since before `staleBefore` (a crashed worker). */
export async function dueRecharges(db: Queryable, staleBefore: Date, limit = 50): Promise<PaymentRow[]> {
  return db
    .select()
    .from(payments)
    .where(
      and(
        eq(payments.kind, 'auto_recharge'),
        or(eq(payments.status, 'pending'), and(eq(payments.status, 'processing'), lt(payments.updatedAt, staleBefore))),
      ),
    )
    .limit(limit);
}

export async function inviterOf(db: Queryable, userId: string): Promise<string | null> {
  const [u] = await db.select({ referredBy: users.referredBy }).from(users).where(eq(users.id, userId));
  return u?.referredBy ?? null;
}

export async function markReferralRewarded(db: Queryable, inviterId: string, invitedUserId: string): Promise<void> {
  await db
    .update(referrals)
    .set({ rewardedAt: sql`now()` })
    .where(and(eq(referrals.inviterId, inviterId), eq(referrals.invitedUserId, invitedUserId)));
}

/** What the invited account has paid in: the sum of its succeeded payments, in cents. */
export async function paidInCents(db: Queryable, userId: string): Promise<number> {
  const [r] = await db
    .select({ n: sql<string>`coalesce(sum(${payments.amountCents}), 0)` })
    .from(payments)
    .where(and(eq(payments.userId, userId), inArray(payments.status, ['submitted_for_settlement', 'settling', 'settled'])));
  return Number(r?.n ?? 0);
}

/**
 * Hold the inviter's reward on the friend's payment `paymentId` until `dueAt`; only the first payment to reach
 * the reward holds it (a referral already held, paid or refused keeps its state). True when this one held it.
 */
export async function holdReferralReward(
  db: Queryable,
  inviterId: string,
  invitedUserId: string,
  paymentId: string,
  dueAt: Date,
): Promise<boolean> {
  const rows = await db
    .update(referrals)
    .set({ rewardPaymentId: paymentId, rewardDueAt: dueAt })
    .where(
      and(
        eq(referrals.inviterId, inviterId),
        eq(referrals.invitedUserId, invitedUserId),
        sql`${referrals.rewardPaymentId} is null and ${referrals.rewardedAt} is null and ${referrals.rewardRefusal} is null`,
      ),
    )
    .returning({ id: referrals.id });
  return rows.length > 0;
}

export type HeldReferral = typeof referrals.$inferSelect;
/** Held rewards whose settle window has passed (the sweep pays or refuses them). */
export async function dueReferralRewards(db: Queryable, now: Date, limit = 50): Promise<HeldReferral[]> {
  return db
    .select()
    .from(referrals)
    .where(
      and(
        sql`${referrals.rewardPaymentId} is not null and ${referrals.rewardedAt} is null and ${referrals.rewardRefusal} is null`,
        lt(referrals.rewardDueAt, now),
      ),
    )
    .limit(limit);
}

export async function refuseReferralReward(db: Queryable, id: string, reason: string): Promise<void> {
  await db
    .update(referrals)
    .set({ rewardRefusal: reason })
    .where(and(eq(referrals.id, id), sql`${referrals.rewardedAt} is null`));
}

/** The two accounts of a referral as the reward checks need them. */
export async function referralParty(db: Queryable, userId: string) {
  const [u] = await db
    .select({ id: users.id, emailVerified: users.emailVerified, signupIp: users.signupIp })
    .from(users)
    .where(eq(users.id, userId));
  return u;
}

/** Whether the account signed up from, or ever had a session from, `ip`. */
export async function accountUsedAddress(db: Queryable, userId: string, ip: string): Promise<boolean> {
  const [u] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.signupIp, ip)));
  if (u) return true;
  const [s] = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.userId, userId), eq(sessions.ip, ip)))
    .limit(1);
  return !!s;
}

/** The masked numbers (BIN and last four) of every card the account has paid with or keeps on file. */
export async function cardsOf(db: Queryable, userId: string): Promise<string[]> {
  const paid = await db.selectDistinct({ m: payments.maskedNumber }).from(payments).where(eq(payments.userId, userId));
  const onFile = await account(db, userId);
  return [...new Set([...paid.map((p) => p.m), onFile?.maskedNumber].filter((m): m is string => !!m))];
}

/** Accounts with a card on file (for the card-expiry check). */
export async function accountsWithCards(db: Queryable): Promise<BillingAccount[]> {
  return db
    .select()
    .from(billingAccounts)
    .where(sql`${billingAccounts.paymentMethodToken} is not null`);
}

/** The sandbox gateway's sales in the database: the first sale of an order id wins, across restarts and processes. */
export function dbSaleStore(db: Queryable): SandboxSaleStore {
  const one = async (rows: Array<{ transaction: unknown }>) => (rows[0]?.transaction as GatewayTransaction | undefined) ?? null;
  return {
    async keepFirst(tx) {
      await db
        .insert(sandboxSales)
        .values({ orderId: tx.orderId, transactionId: tx.id, transaction: tx })
        .onConflictDoNothing({ target: sandboxSales.orderId });
      return (await one(await db.select().from(sandboxSales).where(eq(sandboxSales.orderId, tx.orderId))))!;
    },
    byOrderId: async (orderId) => one(await db.select().from(sandboxSales).where(eq(sandboxSales.orderId, orderId))),
    byId: async (id) => one(await db.select().from(sandboxSales).where(eq(sandboxSales.transactionId, id))),
  };
}

/** Top-ups whose outcome we never learnt (the process died, or the gateway did not answer) since before `before`. */
export async function lostTopups(db: Queryable, before: Date, limit = 50): Promise<PaymentRow[]> {
  return db
    .select()
    .from(payments)
    .where(and(eq(payments.kind, 'topup'), inArray(payments.status, ['pending', 'unknown']), lt(payments.updatedAt, before)))
    .limit(limit);
}
