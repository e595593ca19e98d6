// The paths of a charge, an automatic recharge and the sweep of lost top-ups that the API tests do not reach: a
// gateway that does not answer, declines without a transaction, a recharge that is off or already claimed, a sale
// found declined. Mutation testing (issue 27, `npm run mutation -- billing`) found them untested.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { alerts, billingAccounts, ledgerEntries, payments, users } from '../../src/db/schema.ts';
import { balanceCents, charge, processRecharges, reconcileTopups } from '../../src/modules/billing/billing.service.ts';
import { RECHARGE_BACKOFF_MS, RECHARGE_STALE_MS, runRecharge } from '../../src/modules/billing/payments.ts';
import { GatewayUnavailableError, type GatewayTransaction, type PaymentGateway } from '../../src/modules/billing/gateway.ts';

let env: TestEnv;
beforeAll(async () => {
  // Many accounts save the one test card here: the per-card limits are not what these tests are about.
  env = await createTestEnv({ CARD_SAVE_RATE_LIMIT: 'off', CARD_USE_RATE_LIMIT: 'off', TOPUP_RATE_LIMIT: 'off' });
});
afterAll(async () => {
  await env?.close();
});

/** An account with a card on file and automatic recharge of $20 under $5. */
async function withCard(autoRecharge = true) {
  const a = await signUp(env.app);
  const res = await call(env.app, 'POST', '/v1/user/payment/add', {
    token: a.session,
    body: { paymentMethodToken: 'fake-valid-visa-nonce' },
  });
  expect(res.statusCode, JSON.stringify(res.body)).toBe(200);
  if (autoRecharge)
    await call(env.app, 'POST', '/v1/user/payment/edit', {
      token: a.session,
      body: { amountAutoRecharge: 20, minimumBalanceForAutoRecharge: 5 },
    });
  const [u] = await env.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, a.email));
  return { ...a, id: u!.id };
}
/** The account's automatic recharge, recorded by a charge that takes the balance under the minimum. */
async function pendingRecharge(userId: string) {
  await env.ctx.db.transaction((tx) => charge(tx, userId, 600, 'tracking', `under-${userId}`));
  const [p] = await env.ctx.db.select().from(payments).where(eq(payments.userId, userId));
  expect([p!.kind, p!.status]).toEqual(['auto_recharge', 'pending']);
  return p!;
}
/** Run `fn` with the gateway's methods in `over` replaced (the rest is the real sandbox gateway). */
async function withGateway<T>(over: Partial<PaymentGateway>, fn: () => Promise<T>): Promise<T> {
  const real = env.ctx.resources.payments!;
  env.ctx.resources.payments = new Proxy(real, {
    get(target, key) {
      if (key in over) return over[key as keyof PaymentGateway];
      const v = Reflect.get(target, key);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  try {
    return await fn();
  } finally {
    env.ctx.resources.payments = real;
  }
}
const paymentOf = async (id: string) => (await env.ctx.db.select().from(payments).where(eq(payments.id, id)))[0]!;
const accountOf = async (userId: string) => (await env.ctx.db.select().from(billingAccounts).where(eq(billingAccounts.userId, userId)))[0]!;
const openAlerts = async (userId: string) =>
  (await env.ctx.db.select().from(alerts).where(eq(alerts.userId, userId))).filter((x) => !x.dismissedAt);
const transaction = (orderId: string, status: string, text: string): GatewayTransaction => ({
  id: `tx-${status}-${orderId.slice(0, 8)}`,
  orderId,
  status,
  amountCents: 2000,
  processorResponseCode: status === 'processor_declined' ? '2000' : '1000',
  processorResponseText: text,
  card: { cardType: 'Visa', maskedNumber: '411111******1111', cardholderName: 'Ada L', last4: '1111' },
  createdAt: new Date().toISOString(),
});
const topups = async (userId: string) =>
  env.ctx.db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.userId, userId), eq(ledgerEntries.kind, 'topup')));

describe('a charge', () => {
  it('must be positive: a charge of 0 or less is refused and books nothing', async () => {
    const a = await withCard(false);
    for (const cents of [0, -5])
      await expect(env.ctx.db.transaction((tx) => charge(tx, a.id, cents, 'tracking', `bad-${cents}`))).rejects.toThrow(
        'charge must be positive',
      );
    expect(await balanceCents(env.ctx.db, a.id)).toBe(1000);
  });

  it('is booked (true) with an empty description unless one is given', async () => {
    const a = await withCard(false);
    expect(await env.ctx.db.transaction((tx) => charge(tx, a.id, 5, 'tracking', 'plain'))).toBe(true);
    expect(await env.ctx.db.transaction((tx) => charge(tx, a.id, 5, 'tracking', 'told', 'Tracking 1Z'))).toBe(true);
    const rows = await env.ctx.db
      .select({ ref: ledgerEntries.ref, description: ledgerEntries.description })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, a.id), eq(ledgerEntries.kind, 'tracking')));
    expect(Object.fromEntries(rows.map((r) => [r.ref, r.description]))).toEqual({ plain: '', told: 'Tracking 1Z' });
  });
});

describe('an automatic recharge', () => {
  it('is run once: a second run of the same payment finds it claimed and does nothing', async () => {
    const a = await withCard();
    const p = await pendingRecharge(a.id);
    expect(await runRecharge(env.ctx, p)).toBe(true);
    expect(await runRecharge(env.ctx, p)).toBe(false);
    expect(await topups(a.id)).toHaveLength(1);
    expect(await balanceCents(env.ctx.db, a.id)).toBe(1000 - 600 + 2000);
  });

  it('fails without a sale when automatic recharge was turned off meanwhile', async () => {
    const a = await withCard();
    const p = await pendingRecharge(a.id);
    await env.ctx.db.update(billingAccounts).set({ autoRechargeCents: 0 }).where(eq(billingAccounts.userId, a.id));
    let sales = 0;
    const sale: PaymentGateway['sale'] = async () => {
      sales++;
      throw new Error('no sale expected');
    };
    expect(await withGateway({ sale }, () => runRecharge(env.ctx, p))).toBe(true);
    expect(sales).toBe(0);
    const done = await paymentOf(p.id);
    expect([done.status, done.processorResponseText]).toEqual(['failed', 'Automatic recharge is off or no card is on file']);
    expect(await topups(a.id)).toHaveLength(0);
  });

  it('is left processing, with nothing booked, when the gateway does not answer (the stale sweep repeats it)', async () => {
    const a = await withCard();
    const p = await pendingRecharge(a.id);
    const sale: PaymentGateway['sale'] = async () => {
      throw new GatewayUnavailableError(false);
    };
    expect(await withGateway({ sale }, () => runRecharge(env.ctx, p))).toBe(true);
    expect((await paymentOf(p.id)).status).toBe('processing');
    expect(await topups(a.id)).toHaveLength(0);
    const [acct] = await env.ctx.db.select().from(billingAccounts).where(eq(billingAccounts.userId, a.id));
    expect(acct!.rechargeFailures).toBe(0);
    // Any other error is not the gateway's silence: it is thrown, not taken for "try again later".
    await env.ctx.db.update(payments).set({ status: 'pending' }).where(eq(payments.id, p.id));
    const broken: PaymentGateway['sale'] = async () => {
      throw new Error('a bug, not the network');
    };
    // Read again: a sweep claims a payment only as it last saw it (claimPayment), so the row changed above is re-read.
    const again = await paymentOf(p.id);
    await expect(withGateway({ sale: broken }, () => runRecharge(env.ctx, again))).rejects.toThrow('a bug, not the network');
    // Out of the way of the sweep test below, which counts every due recharge.
    await env.ctx.db.update(payments).set({ status: 'failed' }).where(eq(payments.id, p.id));
  });

  it('records a decline without a transaction by its reason: rejected, declined, or failed', async () => {
    const statuses: string[] = [];
    for (const reason of ['rejected', 'declined', 'invalid'] as const) {
      const a = await withCard();
      const p = await pendingRecharge(a.id);
      const sale: PaymentGateway['sale'] = async () => ({ ok: false, reason, message: `no: ${reason}` });
      expect(await withGateway({ sale }, () => runRecharge(env.ctx, p))).toBe(true);
      const done = await paymentOf(p.id);
      statuses.push(done.status);
      expect([done.transactionId, done.processorResponseText]).toEqual([null, `no: ${reason}`]);
      expect(await topups(a.id)).toHaveLength(0);
    }
    expect(statuses).toEqual(['gateway_rejected', 'processor_declined', 'failed']);
  });

  it('credits a sale once, marked as an automatic recharge, and clears the failures, their alert and the low balance', async () => {
    const a = await withCard();
    const p = await pendingRecharge(a.id);
    await env.ctx.db
      .update(billingAccounts)
      .set({ rechargeFailures: 2, rechargeRetryAt: new Date(Date.now() - 1000) })
      .where(eq(billingAccounts.userId, a.id));
    await env.ctx.db.insert(alerts).values({
      userId: a.id,
      group: 'payment',
      name: 'rechargeFailed',
      message: 'failed',
      level: 'danger',
      dedupeKey: 'recharge-failed:earlier',
    });
    // Not about the balance: stays.
    await env.ctx.db.insert(alerts).values({
      userId: a.id,
      group: 'payment',
      name: 'cardExpiring',
      message: 'expires',
      level: 'warning',
      dedupeKey: 'card-expiring:1111',
    });
    expect((await openAlerts(a.id)).map((x) => x.name).sort()).toEqual(['cardExpiring', 'lowBalance', 'rechargeFailed']);
    const sale: PaymentGateway['sale'] = async (input) => ({
      ok: true,
      transaction: transaction(input.orderId, 'submitted_for_settlement', 'Approved'),
    });
    expect(await withGateway({ sale }, () => runRecharge(env.ctx, p))).toBe(true);
    const done = await paymentOf(p.id);
    expect([done.status, done.transactionId, done.cardType, done.maskedNumber, done.cardholderName, done.processorResponseText]).toEqual([
      'submitted_for_settlement',
      `tx-submitted_for_settlement-${p.id.slice(0, 8)}`,
      'Visa',
      '411111******1111',
      'Ada L',
      'Approved',
    ]);
    const [credit] = await topups(a.id);
    expect([credit!.amountCents, credit!.ref, credit!.description]).toEqual([2000, p.id, 'Automatic recharge']);
    expect(await topups(a.id)).toHaveLength(1);
    const acct = await accountOf(a.id);
    expect([acct.rechargeFailures, acct.rechargeRetryAt]).toEqual([0, null]);
    expect((await openAlerts(a.id)).map((x) => x.name)).toEqual(['cardExpiring']);
  });

  it('declined: backs off 15 minutes, then an hour, and pauses at the third failure, with an alert each time', async () => {
    const a = await withCard();
    const now = new Date('2030-01-15T10:00:00Z');
    const realNow = env.ctx.now;
    env.ctx.now = () => now;
    try {
      const sale: PaymentGateway['sale'] = async (input) => ({
        ok: false,
        reason: 'declined',
        message: 'Do Not Honor',
        transaction: transaction(input.orderId, 'processor_declined', 'Do Not Honor'),
      });
      const seen: Array<[number, number | null, string, string]> = [];
      for (let i = 0; i < 3; i++) {
        const [p] = await env.ctx.db
          .insert(payments)
          .values({ userId: a.id, kind: 'auto_recharge', amountCents: 2000, status: 'pending', gateway: 'sandbox' })
          .returning();
        expect(await withGateway({ sale }, () => runRecharge(env.ctx, p!))).toBe(true);
        const done = await paymentOf(p!.id);
        expect([done.status, done.transactionId, done.processorResponseText]).toEqual([
          'processor_declined',
          `tx-processor_declined-${p!.id.slice(0, 8)}`,
          'Do Not Honor',
        ]);
        const acct = await accountOf(a.id);
        const [alert] = await env.ctx.db
          .select()
          .from(alerts)
          .where(and(eq(alerts.userId, a.id), eq(alerts.dedupeKey, `recharge-failed:${p!.id}`)));
        expect(alert!.name).toBe('rechargeFailed');
        seen.push([
          acct.rechargeFailures,
          acct.rechargeRetryAt ? acct.rechargeRetryAt.getTime() - now.getTime() : null,
          alert!.level,
          alert!.message,
        ]);
      }
      expect(seen).toEqual([
        [
          1,
          RECHARGE_BACKOFF_MS[0],
          'danger',
          'Automatic recharge of $20.00 failed: Do Not Honor. We will try again later; you can also update your card or add balance.',
        ],
        [
          2,
          RECHARGE_BACKOFF_MS[1],
          'danger',
          'Automatic recharge of $20.00 failed: Do Not Honor. We will try again later; you can also update your card or add balance.',
        ],
        [
          3,
          null,
          'danger',
          'Automatic recharge of $20.00 failed 3 times (Do Not Honor) and is paused. Please update your card or add balance.',
        ],
      ]);
      expect(RECHARGE_BACKOFF_MS.slice(0, 2)).toEqual([15 * 60_000, 60 * 60_000]);
      expect(await topups(a.id)).toHaveLength(0);
    } finally {
      env.ctx.now = realNow;
    }
  });

  it('settled meanwhile by another process: the sale is not credited again and the failure count stays', async () => {
    const a = await withCard();
    const p = await pendingRecharge(a.id);
    await env.ctx.db.update(billingAccounts).set({ rechargeFailures: 2 }).where(eq(billingAccounts.userId, a.id));
    const real = env.ctx.resources.payments!;
    const sale: PaymentGateway['sale'] = async (input) => {
      const r = await real.sale(input);
      // The other process (a sweep that found the payment stale) settles it while this one waits for the answer.
      await env.ctx.db.update(payments).set({ status: 'submitted_for_settlement' }).where(eq(payments.id, p.id));
      return r;
    };
    expect(await withGateway({ sale }, () => runRecharge(env.ctx, p))).toBe(true);
    expect(await topups(a.id)).toHaveLength(0);
    const [acct] = await env.ctx.db.select().from(billingAccounts).where(eq(billingAccounts.userId, a.id));
    expect(acct!.rechargeFailures).toBe(2);
  });
});

describe('a top-up', () => {
  it('is charged and credited at once: the payment goes from pending to submitted for settlement', async () => {
    const a = await withCard(false);
    const res = await call(env.app, 'POST', '/v1/user/general/addbalance', { token: a.session, body: { amount: 15 } });
    expect([res.statusCode, res.body.payload.balance, res.body.payload.payment.status]).toEqual([200, 25, 'submitted_for_settlement']);
    const credits = await topups(a.id);
    expect(credits.map((c) => [c.amountCents, c.description])).toEqual([[1500, 'Balance added']]);
  });

  it('declined by the processor: the pending payment records the decline and nothing is credited', async () => {
    const a = await withCard(false);
    const sale: PaymentGateway['sale'] = async () => ({ ok: false, reason: 'declined', message: 'Do Not Honor' });
    const res = await withGateway({ sale }, () =>
      call(env.app, 'POST', '/v1/user/general/addbalance', { token: a.session, body: { amount: 15 } }),
    );
    expect([res.statusCode, res.body.payload.payment.status]).toEqual([402, 'processor_declined']);
    expect(await topups(a.id)).toHaveLength(0);
  });
});

describe('the recharge sweep (processRecharges)', () => {
  it('runs a pending recharge once when two sweeps race, and one left processing past the stale limit', async () => {
    // One recharge at a time per account (a unique index): three accounts.
    const users3 = [await withCard(), await withCard(), await withCard()];
    const recharge = async (i: number, status: string, updatedAt: Date) =>
      (
        await env.ctx.db
          .insert(payments)
          .values({ userId: users3[i]!.id, kind: 'auto_recharge', amountCents: 2000, status, gateway: 'sandbox', updatedAt })
          .returning()
      )[0]!;
    const pending = await recharge(0, 'pending', new Date());
    const running = await recharge(2, 'processing', new Date(Date.now() - RECHARGE_STALE_MS + 60_000));
    // Two sweeps at once: the pending recharge is claimed by one, the other's claim fails and is not counted.
    const ran = await Promise.all([processRecharges(env.ctx), processRecharges(env.ctx)]);
    expect(ran[0] + ran[1]).toBe(1);
    // Left processing past the stale limit (its worker died): the next sweep runs it; the running one is left alone.
    const stale = await recharge(1, 'processing', new Date(Date.now() - RECHARGE_STALE_MS - 60_000));
    expect(await processRecharges(env.ctx)).toBe(1);
    expect([(await paymentOf(pending.id)).status, (await paymentOf(stale.id)).status, (await paymentOf(running.id)).status]).toEqual([
      'submitted_for_settlement',
      'submitted_for_settlement',
      'processing',
    ]);
    expect((await Promise.all(users3.map((u) => topups(u.id)))).map((t) => t.length)).toEqual([1, 1, 0]);
  });

  it('a recharge left processing by a dead worker is run by one of two racing sweeps, not both', async () => {
    const u = await withCard();
    const [stale] = await env.ctx.db
      .insert(payments)
      .values({
        userId: u.id,
        kind: 'auto_recharge',
        amountCents: 2000,
        status: 'processing',
        gateway: 'sandbox',
        updatedAt: new Date(Date.now() - RECHARGE_STALE_MS - 60_000),
      })
      .returning();
    // Both sweeps read the same stale row; the claim from processing to processing must succeed once only.
    const ran = await Promise.all([processRecharges(env.ctx), processRecharges(env.ctx)]);
    expect(ran[0] + ran[1]).toBe(1);
    expect((await paymentOf(stale!.id)).status).toBe('submitted_for_settlement');
    expect(await topups(u.id)).toHaveLength(1);
  });
});

describe('the sweep of top-ups whose answer was lost', () => {
  /** A top-up left pending by a process that died, old enough for the sweep. */
  async function lostTopup(userId: string) {
    const [p] = await env.ctx.db
      .insert(payments)
      .values({
        userId,
        kind: 'topup',
        amountCents: 1500,
        status: 'pending',
        gateway: 'sandbox',
        updatedAt: new Date(Date.now() - 10 * 60_000),
      })
      .returning();
    return p!;
  }

  it('credits a sale found under the order id once, as balance added; none found fails with nothing charged', async () => {
    const a = await withCard(false);
    const sold = await lostTopup(a.id);
    const neverSold = await lostTopup(a.id);
    // Recent: its request may still be waiting for the gateway, so the sweep leaves it.
    const [recent] = await env.ctx.db
      .insert(payments)
      .values({ userId: a.id, kind: 'topup', amountCents: 700, status: 'pending', gateway: 'sandbox' })
      .returning();
    const found: PaymentGateway['findByOrderId'] = async (orderId) =>
      orderId === sold.id ? { ...transaction(orderId, 'settling', 'Approved'), amountCents: 1500 } : null;
    // Two sweeps at once: each payment is claimed by one of them.
    const swept = await withGateway({ findByOrderId: found }, () => Promise.all([reconcileTopups(env.ctx), reconcileTopups(env.ctx)]));
    expect(swept[0] + swept[1]).toBeGreaterThanOrEqual(2);
    expect((await paymentOf(recent!.id)).status).toBe('pending');
    expect(await withGateway({ findByOrderId: found }, () => reconcileTopups(env.ctx))).toBe(0);
    const [s, n] = [await paymentOf(sold.id), await paymentOf(neverSold.id)];
    expect([s.status, s.transactionId]).toEqual(['submitted_for_settlement', `tx-settling-${sold.id.slice(0, 8)}`]);
    expect([n.status, n.processorResponseText]).toEqual([
      'failed',
      'No charge was made: the payment was interrupted before the card was charged',
    ]);
    const credits = await topups(a.id);
    expect(credits.map((c) => [c.amountCents, c.ref, c.description])).toEqual([[1500, sold.id, 'Balance added']]);
    expect(await balanceCents(env.ctx.db, a.id)).toBe(1000 + 1500);
  });

  it('leaves the payment for the next sweep when the gateway does not answer, and stops on any other error', async () => {
    const a = await withCard(false);
    const p = await lostTopup(a.id);
    const unavailable: PaymentGateway['findByOrderId'] = async () => {
      throw new GatewayUnavailableError(true);
    };
    expect(await withGateway({ findByOrderId: unavailable }, () => reconcileTopups(env.ctx))).toBe(0);
    expect((await paymentOf(p.id)).status).toBe('unknown');
    await env.ctx.db
      .update(payments)
      .set({ updatedAt: new Date(Date.now() - 10 * 60_000) })
      .where(eq(payments.id, p.id));
    const broken: PaymentGateway['findByOrderId'] = async () => {
      throw new Error('a bug, not the network');
    };
    await expect(withGateway({ findByOrderId: broken }, () => reconcileTopups(env.ctx))).rejects.toThrow('a bug, not the network');
    expect((await paymentOf(p.id)).status).toBe('unknown');
    expect(await topups(a.id)).toHaveLength(0);
  });

  it('records a sale found declined with its status, transaction and the processor text, and credits nothing', async () => {
    const a = await withCard(false);
    const p = await lostTopup(a.id);
    const found: PaymentGateway['findByOrderId'] = async (orderId) => ({
      id: 'tx-declined-1',
      orderId,
      status: 'processor_declined',
      amountCents: 1500,
      processorResponseCode: '2000',
      processorResponseText: 'Do Not Honor',
      card: { cardType: 'Visa', maskedNumber: '411111******1111', cardholderName: '', last4: '1111' },
      createdAt: new Date().toISOString(),
    });
    expect(await withGateway({ findByOrderId: found }, () => reconcileTopups(env.ctx))).toBeGreaterThanOrEqual(1);
    const done = await paymentOf(p.id);
    expect([done.status, done.transactionId, done.processorResponseText]).toEqual(['processor_declined', 'tx-declined-1', 'Do Not Honor']);
    expect(await topups(a.id)).toHaveLength(0);
    expect(await balanceCents(env.ctx.db, a.id)).toBe(1000);
  });
});
