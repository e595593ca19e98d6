import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { Queryable, Tx } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import * as repo from './billing.repository.ts';
import { lowBalanceFollowUpSql } from './payments.ts';

export { gatewayOf, payDueReferralRewards, processRecharges, reconcileTopups, startRechargeLoop } from './payments.ts';
export { braintreeConfigured } from './braintree-gateway.ts';

export { balanceCents, ledgerSumCents, spentCents } from './billing.repository.ts';

export type LedgerKind = 'signup_bonus' | 'tracking' | 'sms' | 'topup' | 'referral_reward' | 'promo' | 'refund';

export class InsufficientBalanceError extends AppError {
  readonly balance: number;
  readonly needed: number;

  constructor(balance: number, needed: number) {
    super(
      402,
      `Insufficient balance: this costs $${(needed / 100).toFixed(2)} and your balance is $${(balance / 100).toFixed(2)}. Please add balance.`,
      'insufficient_balance',
    );
    this.balance = balance;
    this.needed = needed;
  }
}

/**
 * Book a credit. (user, kind, ref) is unique, so booking the same credit twice is a no-op;
 * returns whether this call booked it.
 */
export async function credit(
  db: Queryable,
  userId: string,
  cents: number,
  kind: LedgerKind,
  ref: string,
  description = '',
): Promise<boolean> {
  if (cents <= 0) throw new Error('credit must be positive');
  return repo.insertEntryOnce(db, { userId, amountCents: cents, kind, ref, description });
}

/**
 * A charge's WITH queries (repo.chargeCtes) with its follow-ups written from the charged row in the same
 * statement: the pending recharge and the low-balance alert (lowBalanceFollowUpSql).
 */
function chargeWithFollowUps(cents: number, kind: LedgerKind, values: repo.ChargeValues, unlessBooked: boolean): SQL {
  const key = typeof values.ref === 'string' ? `${kind}:${values.ref}` : sql`${`${kind}:`}::text || ${values.ref}::text`;
  const followUp = lowBalanceFollowUpSql(sql`charge_paid`, cents, key);
  return sql`${repo.chargeCtes({ cents, kind, ...values }, { unlessBooked })},
    charge_recharge as (${followUp.recharge}), charge_alert as (${followUp.alert})`;
}

/**
 * Charge inside the caller's transaction, so the charge and the work it pays for commit together.
 * The account row is locked first: concurrent charges queue up and none can overspend. A charge whose
 * (kind, ref) was already booked is not booked again (returns false).
 */
export async function charge(tx: Tx, userId: string, cents: number, kind: LedgerKind, ref: string, description = ''): Promise<boolean> {
  if (cents <= 0) throw new Error('charge must be positive');
  // Locked by a statement of its own, so the charge's snapshot sees every earlier booking of (kind, ref).
  await repo.lockAccount(tx, userId);
  // Checked, booked, announced and followed up (recharge, low-balance alert) in one statement.
  const r = await repo.runCharge(tx, { userId, kind, ref }, chargeWithFollowUps(cents, kind, { userId, ref, description }, true));
  if (r.duplicate) return false;
  if (!r.booked) throw new InsufficientBalanceError(r.balanceCents, cents);
  return true;
}

/**
 * A charge whose ref is new, folded into the statement that does the work it pays for (the add of a tracking):
 * the WITH queries to put first in that statement (repo.chargeCtes says what they do and what the statement must
 * read), with the same follow-ups as `charge`. The statement's work selects `from charge_paid`, so it happens only
 * when it is paid. A new ref cannot have been booked, so there is no booked check and no earlier lock statement.
 */
export function freshChargeCtes(userId: string, cents: number, kind: LedgerKind, ref: string, description = ''): SQL {
  return chargeWithFollowUps(cents, kind, { userId, ref, description }, false);
}

/**
 * freshChargeCtes in a statement built once (StatementOnce, decision 187): the same WITH queries with placeholders
 * where each request binds the account, the ref and the description. Its caller sends `balanceEvent(userId)` on the
 * live topic with its own messages (repo.ChargeValues).
 */
export function freshChargeCtesOnce(
  cents: number,
  kind: LedgerKind,
  p: { userId: Placeholder; ref: Placeholder; description: Placeholder },
): SQL {
  return chargeWithFollowUps(cents, kind, p, false);
}

export { balanceEvent } from './billing.repository.ts';

/** After a statement with freshChargeCtes whose charge was not paid (nothing was written): the error to answer. */
export async function insufficientFor(db: Queryable, userId: string, cents: number): Promise<InsufficientBalanceError> {
  return new InsufficientBalanceError(await repo.balanceCents(db, userId), cents);
}

/** Lock the account for the rest of the transaction: charges to one account queue up behind it. */
export const lockAccount = (tx: Tx, userId: string): Promise<void> => repo.lockAccount(tx, userId);

/**
 * Book one charge of `cents` per item, in the caller's transaction, for work it has just done (a batch of
 * imported trackings). The caller holds `lockAccount` and has checked the balance covers them all.
 */
export async function bookCharges(
  tx: Tx,
  userId: string,
  cents: number,
  kind: LedgerKind,
  items: Array<{ ref: string; description: string }>,
): Promise<void> {
  if (cents <= 0) throw new Error('charge must be positive');
  if (items.length === 0) return;
  // Booked, announced and followed up (recharge, low-balance alert) in one statement, as `charge` does (decision 178).
  const followUp = lowBalanceFollowUpSql(sql`booked_account`, cents * items.length, `${kind}:${items[0]!.ref}`);
  await repo.bookEntries(
    tx,
    userId,
    items.map((i) => ({ amountCents: -cents, kind, ref: i.ref, description: i.description })),
    sql`booked_recharge as (${followUp.recharge}), booked_alert as (${followUp.alert})`,
  );
}
