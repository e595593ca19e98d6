import { eq, sql, type SQL } from 'drizzle-orm';
import { MSG, PRICING, centsToDollars, type Envelope, type PaymentHistoryItem, type PaymentInfo } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import type { Queryable, Tx } from '../../db/client.ts';
import { users } from '../../db/schema.ts';
import { AppError, badRequest, conflict, paymentRequired, tooMany } from '../../lib/errors.ts';
import { takeWindow } from '../../lib/attempts.repository.ts';
import { success } from '../../lib/http.ts';
import { keepReply, requestHash, storedReply, type ExactReply } from '../../lib/idempotency.ts';
import { startTickLoop } from '../../lib/tick-loop.ts';
import { GatewayUnavailableError, withTimeout, type GatewayTransaction, type PaymentGateway, type SaleResult } from './gateway.ts';
import { SandboxGateway } from './sandbox-gateway.ts';
import { BraintreeGateway, braintreeConfigured } from './braintree-gateway.ts';
import * as ledger from './billing.repository.ts';
import { clearPaymentAlert, raisePaymentAlert } from './payment-alerts.ts';
import * as repo from './payments.repository.ts';

type UserLike = { id: string; email: string; firstName: string; lastName: string };

/** Automatic recharges stop after this many failures in a row, until the card or the setting changes. */
export const RECHARGE_MAX_FAILURES = 3;
/** Wait before the next automatic attempt after the n-th failure in a row. */
export const RECHARGE_BACKOFF_MS = [15 * 60_000, 60 * 60_000, 4 * 60 * 60_000];
/** A recharge left 'processing' this long (its worker died, or the gateway did not answer) is tried again. */
export const RECHARGE_STALE_MS = 2 * 60_000;
const ADDBALANCE_ROUTE = 'POST /v1/user/general/addbalance';
/**
 * A top-up still pending or unknown this long after its last move lost its answer (its process died, or the
 * gateway did not answer and nobody retried): the sweep asks the gateway by order id. Well past any live
 * request's wait, so a sale still in flight is not taken for a sale that never happened.
 */
export const TOPUP_RECONCILE_MS = 5 * 60_000;

/** Braintree when its credentials are configured, else the built-in sandbox. */
export function gatewayOf(ctx: AppContext): PaymentGateway {
  return (ctx.resources.payments ??= braintreeConfigured(ctx.config)
    ? new BraintreeGateway(ctx.config)
    : new SandboxGateway({ store: repo.dbSaleStore(ctx.db) }));
}

const money = (cents: number) => (cents / 100).toFixed(2);

export function historyItem(p: repo.PaymentRow): PaymentHistoryItem {
  return {
    id: p.id,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
    amount: money(p.amountCents),
    paymentInstrumentType: 'credit_card',
    creditCard: { cardType: p.cardType ?? '', maskedNumber: p.maskedNumber ?? '', cardholderName: p.cardholderName ?? '' },
    status: p.status,
    type: 'sale',
    kind: p.kind,
    currencyIsoCode: p.currency,
    discountAmount: null,
    discounts: [],
    taxAmount: null,
    processorResponseText: p.processorResponseText,
    transactionId: p.transactionId,
  };
}

export async function paymentInfo(ctx: AppContext, userId: string): Promise<PaymentInfo> {
  const a = await repo.account(ctx.db, userId);
  const g = gatewayOf(ctx);
  const active = !!a?.paymentMethodToken;
  return {
    paymentActive: active,
    details: active
      ? {
          cardholderName: a.cardholderName ?? '',
          last4: a.last4 ?? '',
          expirationYear: a.expirationYear ?? '',
          expirationMonth: a.expirationMonth ?? '',
          imageUrl: a.imageUrl ?? '',
          cardType: a.cardType ?? '',
        }
      : null,
    paymentMethodToken: active ? (a.maskedNumber ?? null) : null,
    amountAutoRecharge: centsToDollars(a?.autoRechargeCents ?? 0),
    minimumBalanceForAutoRecharge: centsToDollars(a?.minimumBalanceCents ?? 0),
    sandbox: g.name === 'sandbox',
    gateway: g.name,
  };
}

/** Ask the gateway, turning "no answer" into a clear 504/503 for the person paying. */
async function ask<T>(ctx: AppContext, work: Promise<T>): Promise<T> {
  try {
    return await withTimeout(work, ctx.config.PAYMENT_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof GatewayUnavailableError)
      throw new AppError(err.timedOut ? 504 : 503, err.timedOut ? MSG.paymentTimeout : MSG.paymentUnavailable, 'gateway_unavailable');
    throw err;
  }
}

export async function clientToken(ctx: AppContext, userId: string): Promise<{ token: string; gateway: 'sandbox' | 'braintree' }> {
  const a = await repo.account(ctx.db, userId);
  const g = gatewayOf(ctx);
  return { token: await ask(ctx, g.clientToken(a?.customerId ?? null)), gateway: g.name };
}

/**
 * One card however it is vaulted, as the gateway describes it: its BIN (the masked number's first digits),
 * last four and expiry. Neither gateway hands us more of the number, and this is enough to tell a card
 * used again on another account (card testing, a self-referral) from a stranger's (decision 110).
 */
export function cardFingerprint(c: {
  maskedNumber?: string | null;
  last4?: string | null;
  expirationMonth?: string | null;
  expirationYear?: string | null;
}): string | null {
  const bin = /^(\d{6})/.exec(c.maskedNumber ?? '')?.[1] ?? '';
  const last4 = c.last4 || /(\d{4})$/.exec(c.maskedNumber ?? '')?.[1] || '';
  if (!last4) return null;
  return `${bin}:${last4}:${Number(c.expirationMonth) || ''}/${c.expirationYear ?? ''}`;
}

/**
 * Card saves and top-ups per account, and both together per card on any account (CARD_SAVE_RATE_LIMIT,
 * TOPUP_RATE_LIMIT, CARD_USE_RATE_LIMIT; docs/operations.md): each is a gateway call that costs a fee, and
 * unthrottled they make the platform a card tester. Counted in the shared table, so every api process counts
 * the same attempts; an attempt counts whether or not the card then goes through.
 */
async function throttle(
  ctx: AppContext,
  key: string,
  limit: { limit: number; intervalMs: number } | false,
  message: string,
): Promise<void> {
  if (!limit) return;
  const took = await takeWindow(ctx.db, key, limit.limit, limit.intervalMs, ctx.now());
  if (!took.ok) throw tooMany(message, took.waitMs / 1000);
}
const throttleCard = (ctx: AppContext, card: Parameters<typeof cardFingerprint>[0], message: string) => {
  const fp = cardFingerprint(card);
  return fp ? throttle(ctx, `card-use:${fp}`, ctx.config.CARD_USE_RATE_LIMIT, message) : Promise.resolve();
};

/** Vault the card behind a nonce; it replaces the card on file, and restarts automatic recharges. */
/**
 * Vault the card and verify it there (Braintree's verifyCard; the sandbox does the same), so a card that would
 * decline is refused when saved, not at the first top-up. `expiry` is the sandbox form's, already checked.
 */
export async function addCard(
  ctx: AppContext,
  user: UserLike,
  nonce: string,
  expiry?: { month: string; year: string },
): Promise<PaymentInfo> {
  await throttle(ctx, `card-save:${user.id}`, ctx.config.CARD_SAVE_RATE_LIMIT, MSG.tooManyCardSaves);
  const a = await repo.account(ctx.db, user.id);
  const g = gatewayOf(ctx);
  const res = await ask(
    ctx,
    g.vault({
      nonce,
      customerId: a?.gateway === g.name ? (a.customerId ?? null) : null,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      ...(expiry ? { expiry } : {}),
    }),
  );
  if (!res.ok) {
    if (res.message.includes('more than once')) throw badRequest(MSG.paymentNonceUsed, { paymentMethodToken: MSG.paymentNonceUsed });
    if (res.reason === 'declined') throw paymentRequired(`${MSG.paymentDeclined}: ${res.message}`);
    if (res.reason === 'rejected') throw paymentRequired(`${MSG.paymentRejected}: ${res.message}`);
    throw badRequest(res.message, { paymentMethodToken: res.message });
  }
  // Only now is the card known: the same card saved on account after account is refused here, before it is kept.
  await throttleCard(ctx, res.card, MSG.tooManyCardSaves);
  await ctx.db.transaction(async (tx) => {
    await repo.updateAccount(tx, user.id, {
      gateway: g.name,
      customerId: res.customerId,
      paymentMethodToken: res.token,
      ...res.card,
      rechargeFailures: 0,
      rechargeRetryAt: null,
    });
    await clearPaymentAlert(tx, user.id, 'recharge-failed');
  });
  return paymentInfo(ctx, user.id);
}

export async function editAutofill(ctx: AppContext, userId: string, amountDollars: number, minimumDollars: number): Promise<PaymentInfo> {
  await repo.updateAccount(ctx.db, userId, {
    autoRechargeCents: amountDollars * 100,
    minimumBalanceCents: minimumDollars * 100,
    rechargeFailures: 0,
    rechargeRetryAt: null,
  });
  return paymentInfo(ctx, userId);
}

export async function paymentHistory(ctx: AppContext, userId: string): Promise<PaymentHistoryItem[]> {
  return (await repo.history(ctx.db, userId)).map(historyItem);
}

/**
 * Book a succeeded sale: the payment moves to submitted_for_settlement and its amount is credited with the
 * payment's id as ref, in one transaction; a second settle of the same payment books nothing. The payment that
 * brings an invited account's payments to the invite reward holds the reward (holdReferralReward).
 */
async function settle(ctx: AppContext, tx: Tx, p: repo.PaymentRow, t: GatewayTransaction): Promise<boolean> {
  // The account lock first, in the order every charge takes it: a charge holding it may be waiting on this
  // payment row (its pending-recharge insert checks the one-recharge index), so touching the row first deadlocks.
  await ledger.lockAccount(tx, p.userId);
  const moved = await repo.movePayment(tx, p.id, ['pending', 'processing', 'unknown'], {
    status: 'submitted_for_settlement',
    transactionId: t.id,
    cardType: t.card.cardType,
    maskedNumber: t.card.maskedNumber,
    cardholderName: t.card.cardholderName,
    processorResponseText: t.processorResponseText,
  });
  if (!moved) return false;
  await ledger.insertEntryOnce(tx, {
    userId: p.userId,
    amountCents: p.amountCents,
    kind: 'topup',
    ref: p.id,
    description: p.kind === 'auto_recharge' ? 'Automatic recharge' : 'Balance added',
  });
  await clearPaymentAlert(tx, p.userId, 'low-balance:');
  await holdReferralReward(ctx, tx, p);
  return true;
}

/**
 * The invite reward (decision 110): the invited friend's first payment that brings what they paid in to the
 * reward's amount holds the inviter's reward for the settle window (REFERRAL_SETTLE_HOURS); the sweep then pays
 * it (payDueReferralRewards) if the friend's email is verified, the payment still stands at the gateway, and
 * neither the friend's card nor sign-up address is the inviter's. A $1 top-up by a throwaway account never
 * reaches it.
 */
async function holdReferralReward(ctx: AppContext, tx: Tx, p: repo.PaymentRow): Promise<void> {
  const inviter = await repo.inviterOf(tx, p.userId);
  if (!inviter) return;
  if ((await repo.paidInCents(tx, p.userId)) < PRICING.referralRewardCents) return;
  await repo.holdReferralReward(tx, inviter, p.userId, p.id, new Date(ctx.now().getTime() + ctx.config.REFERRAL_SETTLE_HOURS * 3_600_000));
}

/** Why the reward of `r` must not be paid, or null; 'wait' while the friend's email is not verified yet. */
async function referralRefusal(ctx: AppContext, r: repo.HeldReferral): Promise<string | null> {
  const friend = await repo.referralParty(ctx.db, r.invitedUserId!);
  const payment = r.rewardPaymentId ? await repo.paymentById(ctx.db, r.rewardPaymentId) : undefined;
  if (!friend || !payment) return 'the invited account or its payment is gone';
  const inviterCards = new Set(await repo.cardsOf(ctx.db, r.inviterId));
  const friendCards = await repo.cardsOf(ctx.db, friend.id);
  if (friendCards.some((c) => inviterCards.has(c))) return "the invited account paid with the inviter's card";
  if (friend.signupIp && (await repo.accountUsedAddress(ctx.db, r.inviterId, friend.signupIp)))
    return "the invited account signed up from the inviter's address";
  if (!['submitted_for_settlement', 'settling', 'settled'].includes(payment.status)) return `the payment is ${payment.status}`;
  if (payment.transactionId) {
    const t = await withTimeout(gatewayOf(ctx).find(payment.transactionId), ctx.config.PAYMENT_TIMEOUT_MS);
    if (!t || !CHARGED_STATUSES.has(t.status)) return `the payment is ${t?.status ?? 'unknown to the gateway'}`;
  }
  if (!friend.emailVerified) return 'wait';
  return null;
}

/**
 * Pay or refuse every held invite reward whose settle window has passed (the billing sweep runs it; tests call
 * it). A reward whose friend has not verified their email stays held until they do; a gateway that does not
 * answer leaves it for the next sweep. Booked once: the ledger's (kind, ref) is unique.
 */
export async function payDueReferralRewards(ctx: AppContext): Promise<number> {
  let paid = 0;
  for (const r of await repo.dueReferralRewards(ctx.db, ctx.now())) {
    let why: string | null;
    try {
      why = await referralRefusal(ctx, r);
    } catch (err) {
      if (err instanceof GatewayUnavailableError) continue;
      throw err;
    }
    if (why === 'wait') continue;
    if (why) {
      await repo.refuseReferralReward(ctx.db, r.id, why);
      ctx.log.info({ referralId: r.id, inviterId: r.inviterId, reason: why }, 'invite reward refused');
      continue;
    }
    const booked = await ctx.db.transaction(async (tx) => {
      await ledger.lockAccount(tx, r.inviterId);
      const b = await ledger.insertEntryOnce(tx, {
        userId: r.inviterId,
        amountCents: PRICING.referralRewardCents,
        kind: 'referral_reward',
        ref: r.invitedUserId!,
        description: 'Reward: a friend you invited made a first payment',
      });
      await repo.markReferralRewarded(tx, r.inviterId, r.invitedUserId!);
      return b;
    });
    if (booked) paid++;
  }
  return paid;
}

async function fail(db: Queryable, p: repo.PaymentRow, res: Extract<SaleResult, { ok: false }>): Promise<void> {
  const status =
    res.transaction?.status ??
    (res.reason === 'rejected' ? 'gateway_rejected' : res.reason === 'declined' ? 'processor_declined' : 'failed');
  await repo.movePayment(db, p.id, ['pending', 'processing', 'unknown'], {
    status,
    transactionId: res.transaction?.id ?? null,
    processorResponseText: res.message,
  });
}

/**
 * POST /v1/user/general/addbalance: charge the card on file and credit the balance. Under an Idempotency-Key
 * the first answer (success or decline) is kept and replayed byte for byte; the payment row carries the key,
 * so a concurrent retry finds it in progress, and a retry after a timeout repeats the sale with the same
 * order id (the gateway answers with the first sale, so nothing is charged twice).
 */
export async function addBalance(ctx: AppContext, user: UserLike, amountDollars: number, rawKey?: string): Promise<ExactReply> {
  const key = rawKey?.slice(0, 200);
  const amountCents = amountDollars * 100;
  const scope = key ? { userId: user.id, route: ADDBALANCE_ROUTE, key, hash: requestHash({ amount: amountDollars }) } : undefined;
  if (scope) {
    const first = await storedReply(ctx.db, scope);
    if (first) return first;
  }
  const a = await repo.account(ctx.db, user.id);
  if (!a?.paymentMethodToken) throw paymentRequired(MSG.noPaymentMethod);
  // A retry under a key already used is the same payment, not another: only new payments count.
  if (!key || !(await repo.paymentByKey(ctx.db, user.id, key))) {
    await throttle(ctx, `topup:${user.id}`, ctx.config.TOPUP_RATE_LIMIT, MSG.tooManyTopUps);
    await throttleCard(ctx, a, MSG.tooManyTopUps);
  }
  const g = gatewayOf(ctx);
  let p = await repo.insertPayment(ctx.db, {
    userId: user.id,
    kind: 'topup',
    amountCents,
    status: 'pending',
    idempotencyKey: key ?? null,
    gateway: g.name,
    cardType: a.cardType,
    maskedNumber: a.maskedNumber,
    cardholderName: a.cardholderName,
  });
  if (!p) {
    // The key is taken by an earlier payment of this account.
    const earlier = await repo.paymentByKey(ctx.db, user.id, key!);
    if (!earlier) throw conflict(MSG.idempotencyKeyInProgress);
    if (earlier.amountCents !== amountCents) throw new AppError(422, MSG.idempotencyKeyReused, 'idempotency_key_reused');
    // Settled by the sweep after its first answer was lost: answer as the first attempt would have.
    if (earlier.status === 'submitted_for_settlement') return keepReply(ctx.db, scope!, await successReply(ctx, earlier, user.id));
    // Only a payment whose outcome is unknown (the gateway did not answer) is tried again, as the same sale.
    p = await repo.movePayment(ctx.db, earlier.id, ['unknown'], { status: 'pending' });
    if (!p) throw conflict(MSG.idempotencyKeyInProgress);
  }
  let res: SaleResult;
  try {
    res = await withTimeout(g.sale({ token: a.paymentMethodToken, amountCents, orderId: p.id }), ctx.config.PAYMENT_TIMEOUT_MS);
  } catch (err) {
    if (!(err instanceof GatewayUnavailableError)) throw err;
    await repo.movePayment(ctx.db, p.id, ['pending'], {
      status: 'unknown',
      processorResponseText: err.timedOut ? 'Gateway timeout' : 'Gateway unavailable',
    });
    throw new AppError(err.timedOut ? 504 : 503, err.timedOut ? MSG.paymentTimeout : MSG.paymentUnavailable, 'gateway_unavailable');
  }
  const payment = p;
  const keep = (db: Queryable, out: ExactReply) => (scope ? keepReply(db, scope, out) : out);
  if (!res.ok) {
    await fail(ctx.db, payment, res);
    const message = res.reason === 'rejected' ? `${MSG.paymentRejected}: ${res.message}` : `${MSG.paymentDeclined}: ${res.message}`;
    const body: Envelope<unknown> = {
      code: 402,
      status: 'fail',
      message,
      payload: { payment: historyItem((await repo.paymentById(ctx.db, payment.id))!) },
    };
    return keep(ctx.db, { statusCode: 402, text: JSON.stringify(body) });
  }
  const sale = res.transaction;
  return ctx.db.transaction(async (tx) => {
    await settle(ctx, tx, payment, sale);
    const row = (await repo.paymentById(tx, payment.id))!;
    const balance = await ledger.balanceCents(tx, user.id);
    return keep(tx, {
      statusCode: 200,
      text: JSON.stringify(success({ balance: centsToDollars(balance), payment: historyItem(row) }, MSG.balanceAdded)),
    });
  });
}

async function successReply(ctx: AppContext, p: repo.PaymentRow, userId: string): Promise<ExactReply> {
  const balance = centsToDollars(await ledger.balanceCents(ctx.db, userId));
  return { statusCode: 200, text: JSON.stringify(success({ balance, payment: historyItem(p) }, MSG.balanceAdded)) };
}

/**
 * Settle top-ups whose answer was lost: a sale found under the payment's order id is credited (once, by
 * settle's guard); none found means the card was never charged, and the payment fails with nothing booked.
 * A gateway that does not answer leaves the payment for the next sweep.
 */
export async function reconcileTopups(ctx: AppContext): Promise<number> {
  const lost = await repo.lostTopups(ctx.db, new Date(ctx.now().getTime() - TOPUP_RECONCILE_MS));
  let n = 0;
  for (const p of lost) {
    // Claimed, so a concurrent sweep or a retry under the same key (which moves only 'unknown') cannot run it too.
    const claimed = await repo.movePayment(ctx.db, p.id, [p.status], { status: 'processing' });
    if (!claimed) continue;
    let found: GatewayTransaction | null;
    try {
      found = await withTimeout(gatewayOf(ctx).findByOrderId(p.id), ctx.config.PAYMENT_TIMEOUT_MS);
    } catch (err) {
      await repo.movePayment(ctx.db, p.id, ['processing'], { status: 'unknown' });
      if (err instanceof GatewayUnavailableError) continue;
      throw err;
    }
    if (found && CHARGED_STATUSES.has(found.status)) await ctx.db.transaction((tx) => settle(ctx, tx, claimed, found));
    else if (found)
      await fail(ctx.db, claimed, { ok: false, reason: 'declined', message: found.processorResponseText, transaction: found });
    else
      await repo.movePayment(ctx.db, p.id, ['processing'], {
        status: 'failed',
        processorResponseText: 'No charge was made: the payment was interrupted before the card was charged',
      });
    n++;
  }
  return n;
}

const CHARGED_STATUSES = new Set([
  'authorized',
  'submitted_for_settlement',
  'settling',
  'settled',
  'settlement_pending',
  'settlement_confirmed',
]);

/** The low-balance alert's threshold when automatic recharge is off. */
export const LOW_BALANCE_DEFAULT_CENTS = 500;

/**
 * The follow-ups of a charge, as two WITH-able statements for an account row `acct` (a relation with
 * billing_accounts' columns, its balance after a charge of `chargedCents`: the RETURNING of the statement that
 * charged it, so a charge and its follow-ups are one statement; every charge, single or a batch's, writes them so):
 * - when the charge took the balance under the account's minimum and automatic recharges are on (a card, an
 *   amount, fewer than the maximum failures, past the backoff), a pending recharge is recorded. The unique
 *   index on pending/processing recharges keeps it to one per account at a time, across processes; the
 *   account row lock the charge holds orders the checks.
 * - when the charge took the balance across the low-balance threshold (the recharge minimum when automatic
 *   recharge is on, else $5), a low-balance payment alert is raised: once per crossing, since only the charge
 *   that crosses raises it, under a key of that charge.
 */
export function lowBalanceFollowUpSql(acct: SQL, chargedCents: number, chargeKey: string | SQL): { recharge: SQL; alert: SQL } {
  // A key given as SQL (a statement built once binds the charge's ref, decision 187) is joined in the statement.
  const dedupeKey = typeof chargeKey === 'string' ? sql`${'low-balance:' + chargeKey}` : sql`('low-balance:' || ${chargeKey})`;
  return {
    recharge: sql`
      insert into payments (user_id, kind, amount_cents, status, gateway, card_type, masked_number, cardholder_name)
      select user_id, 'auto_recharge', auto_recharge_cents, 'pending', coalesce(gateway, 'sandbox'), card_type, masked_number, cardholder_name
      from ${acct} a
      where auto_recharge_cents > 0 and payment_method_token is not null
        and balance_cents < minimum_balance_cents and recharge_failures < ${RECHARGE_MAX_FAILURES}
        and (recharge_retry_at is null or recharge_retry_at <= now())
      on conflict do nothing`,
    alert: sql`
      insert into alerts (user_id, grp, name, message, level, dedupe_key)
      select user_id, 'payment', 'lowBalance',
        'Your balance is $' || to_char(balance_cents / 100.0, 'FM999999990.00') || ', under $' || to_char(t / 100.0, 'FM999999990.00') ||
          case when auto_recharge_cents > 0 and payment_method_token is not null
            then '. An automatic recharge of $' || to_char(auto_recharge_cents / 100.0, 'FM999999990.00') || ' is on its way.'
            else '. Please add balance so your alerts keep running.' end,
        'warning', ${dedupeKey}
      from (
        select *, case when auto_recharge_cents > 0 and payment_method_token is not null then minimum_balance_cents else ${LOW_BALANCE_DEFAULT_CENTS} end as t
        from ${acct} a
      ) a
      where balance_cents < t and balance_cents + ${chargedCents} >= t
      on conflict do nothing`,
  };
}

/**
 * Raise a card-expiring payment alert for every card on file that expires this month or next (by `now`),
 * once per card and expiry month. The daily job runs it; running it again the same day raises nothing.
 */
export async function raiseCardExpiryAlerts(ctx: AppContext): Promise<number> {
  const now = ctx.now();
  const ym = (d: Date) => d.getUTCFullYear() * 12 + d.getUTCMonth();
  const thisMonth = ym(now);
  let n = 0;
  for (const a of await repo.accountsWithCards(ctx.db)) {
    const month = Number(a.expirationYear) * 12 + Number(a.expirationMonth) - 1;
    if (!Number.isFinite(month) || month < thisMonth || month > thisMonth + 1) continue;
    const raised = await raisePaymentAlert(ctx.db, a.userId, {
      name: 'cardExpiring',
      level: 'warning',
      dedupeKey: `card-expiring:${a.maskedNumber ?? a.last4}:${a.expirationYear}-${a.expirationMonth}`,
      message: `Your ${a.cardType} card ending in ${a.last4} expires at the end of ${a.expirationMonth}/${a.expirationYear}. Please add a new card so automatic recharges and top-ups keep working.`,
    });
    if (raised) n++;
  }
  return n;
}

/** Run one pending (or stale) automatic recharge; false when another process had claimed it. */
export async function runRecharge(ctx: AppContext, p: repo.PaymentRow): Promise<boolean> {
  const claimed = await repo.claimPayment(ctx.db, p, 'processing');
  if (!claimed) return false;
  const a = await repo.account(ctx.db, p.userId);
  if (!a?.paymentMethodToken || !a.autoRechargeCents) {
    await repo.movePayment(ctx.db, p.id, ['processing'], {
      status: 'failed',
      processorResponseText: 'Automatic recharge is off or no card is on file',
    });
    return true;
  }
  let res: SaleResult;
  try {
    res = await withTimeout(
      gatewayOf(ctx).sale({ token: a.paymentMethodToken, amountCents: p.amountCents, orderId: p.id }),
      ctx.config.PAYMENT_TIMEOUT_MS,
    );
  } catch (err) {
    if (!(err instanceof GatewayUnavailableError)) throw err;
    // Left in 'processing': the stale sweep repeats the same sale (same order id) after RECHARGE_STALE_MS.
    ctx.log.warn({ paymentId: p.id }, 'automatic recharge: the gateway did not answer');
    return true;
  }
  if (res.ok) {
    const t = res.transaction;
    await ctx.db.transaction(async (tx) => {
      if (await settle(ctx, tx, claimed, t)) {
        await repo.updateAccount(tx, p.userId, { rechargeFailures: 0, rechargeRetryAt: null });
        await clearPaymentAlert(tx, p.userId, 'recharge-failed');
      }
    });
    return true;
  }
  const failures = a.rechargeFailures + 1;
  const stop = failures >= RECHARGE_MAX_FAILURES;
  await ctx.db.transaction(async (tx) => {
    await ledger.lockAccount(tx, p.userId); // before the payment row, as in settle
    await fail(tx, claimed, res);
    await repo.updateAccount(tx, p.userId, {
      rechargeFailures: failures,
      rechargeRetryAt: stop ? null : new Date(ctx.now().getTime() + RECHARGE_BACKOFF_MS[failures - 1]!),
    });
    await raisePaymentAlert(tx, p.userId, {
      name: 'rechargeFailed',
      level: 'danger',
      dedupeKey: `recharge-failed:${p.id}`,
      message: stop
        ? `Automatic recharge of $${money(p.amountCents)} failed ${failures} times (${res.message}) and is paused. Please update your card or add balance.`
        : `Automatic recharge of $${money(p.amountCents)} failed: ${res.message}. We will try again later; you can also update your card or add balance.`,
    });
  });
  return true;
}

/** Run every due automatic recharge (the worker's loop calls this; tests call it directly). */
export async function processRecharges(ctx: AppContext): Promise<number> {
  const due = await repo.dueRecharges(ctx.db, new Date(ctx.now().getTime() - RECHARGE_STALE_MS));
  let n = 0;
  for (const p of due) if (await runRecharge(ctx, p)) n++;
  return n;
}

/**
 * The worker role's loop: due recharges are run within about a second of the charge that made them due. A round
 * still running when the next tick comes is not doubled (startTickLoop).
 */
export function startRechargeLoop(
  ctx: AppContext,
  intervalMs = 1000,
  daily?: (day: string) => Promise<unknown>,
): { stop(): Promise<void> } {
  let lastDay = '';
  return startTickLoop(ctx.log, 'automatic-recharge', intervalMs, async () => {
    const day = ctx.now().toISOString().slice(0, 10);
    if (daily && day !== lastDay) {
      lastDay = day;
      void daily(day).catch((err: unknown) => ctx.log.error({ err }, 'the daily billing job could not be enqueued'));
    }
    await processRecharges(ctx);
    await reconcileTopups(ctx);
    await payDueReferralRewards(ctx);
  });
}

export async function userForBilling(db: Queryable, userId: string) {
  const [u] = await db.select().from(users).where(eq(users.id, userId));
  return u;
}
