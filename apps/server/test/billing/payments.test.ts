import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { MSG } from '@shiptrail/contract';
import { extractText, getDocumentProxy } from 'unpdf';
import { call, createTestEnv, eventually, signUp, type TestEnv } from '../helpers.ts';
import { alerts, billingAccounts, ledgerEntries, payments, sandboxSales, users } from '../../src/db/schema.ts';
import {
  balanceCents,
  charge,
  ledgerSumCents,
  payDueReferralRewards,
  processRecharges,
} from '../../src/modules/billing/billing.service.ts';
import { SandboxGateway } from '../../src/modules/billing/sandbox-gateway.ts';
import { loadConfig } from '../../src/config.ts';
import { gatewayOf, reconcileTopups } from '../../src/modules/billing/billing.service.ts';
import { dbSaleStore } from '../../src/modules/billing/payments.repository.ts';
import { RECHARGE_STALE_MS } from '../../src/modules/billing/payments.ts';
import { BraintreeGateway } from '../../src/modules/billing/braintree-gateway.ts';
import { GatewayUnavailableError } from '../../src/modules/billing/gateway.ts';
import { startFakeBraintree, type FakeBraintree } from './fake-braintree.ts';

/** The sandbox keeps a vaulted card in its token: the same card, now declining. */
function sandboxTokenDeclining(token: string): string {
  const [prefix, body, tail] = token.split('.');
  const card = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8'));
  return [prefix, Buffer.from(JSON.stringify({ ...card, declines: true })).toString('base64url'), tail].join('.');
}

/**
 * What both describes do to an account, on the env `current` gives once beforeAll set it: sign up with a saved card
 * (its user id beside the session), the account's top-ups in the ledger, the balance checked against the ledger, and
 * automatic top-up turned on.
 */
function accountHelpers(current: () => TestEnv) {
  const idOf = async (email: string) => (await current().ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email)))[0]!.id;
  const withCard = async (nonce = 'fake-valid-visa-nonce', over: Record<string, unknown> = {}) => {
    const a = await signUp(current().app, over);
    const res = await call(current().app, 'POST', '/v1/user/payment/add', { token: a.session, body: { paymentMethodToken: nonce } });
    expect(res.statusCode, JSON.stringify(res.body)).toBe(200);
    return { ...a, id: await idOf(a.email) };
  };
  const topups = async (userId: string) =>
    current()
      .ctx.db.select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, userId), eq(ledgerEntries.kind, 'topup')));
  const consistent = async (userId: string) =>
    expect(await balanceCents(current().ctx.db, userId)).toBe(await ledgerSumCents(current().ctx.db, userId));
  const autoRecharge = (a: { session: string }, amount: number, minimum: number) =>
    call(current().app, 'POST', '/v1/user/payment/edit', {
      token: a.session,
      body: { amountAutoRecharge: amount, minimumBalanceForAutoRecharge: minimum },
    });
  return { idOf, withCard, topups, consistent, autoRecharge };
}

interface GatewayCase {
  name: 'sandbox' | 'braintree';
  start(): Promise<{ env: TestEnv; fake?: FakeBraintree }>;
}

const GATEWAYS: GatewayCase[] = [
  { name: 'sandbox', start: async () => ({ env: await createTestEnv() }) },
  {
    name: 'braintree',
    start: async () => {
      const fake = await startFakeBraintree();
      return { env: await createTestEnv(fake.env), fake };
    },
  },
];

/** The same behaviour through both adapters: the built-in sandbox, and Braintree's SDK against a loopback fake. */
describe.each(GATEWAYS)('cards and top-ups through the $name gateway', (gw) => {
  let env: TestEnv;
  let fake: FakeBraintree | undefined;
  beforeAll(async () => ({ env, fake } = await gw.start()));
  afterAll(async () => {
    await env.close();
    await fake?.close();
  });

  const { idOf, withCard, topups, consistent } = accountHelpers(() => env);
  /** A card that verified when saved and declines now (cancelled, over its limit): cards are verified at save. */
  const cardGoesBad = async (userId: string) => {
    const [acct] = await env.ctx.db.select().from(billingAccounts).where(eq(billingAccounts.userId, userId));
    if (fake) return fake.declineCard(acct!.paymentMethodToken!);
    await env.ctx.db
      .update(billingAccounts)
      .set({ paymentMethodToken: sandboxTokenDeclining(acct!.paymentMethodToken!) })
      .where(eq(billingAccounts.userId, userId));
  };
  /** A top-up of `amount` dollars by the account's card, under the client's idempotency key. */
  const topUp = (token: string, amount: number, key: string) =>
    call(env.app, 'POST', '/v1/user/general/addbalance', { token, body: { amount }, headers: { 'idempotency-key': key } });

  it("uses the configured adapter; the page may load Braintree's drop-in frames only when Braintree is the gateway", async () => {
    expect(gatewayOf(env.ctx).name).toBe(gw.name);
    const res = await env.app.inject({ method: 'GET', url: '/v1' });
    const csp = String(res.headers['content-security-policy']);
    const frameSrc = /frame-src ([^;]*)/.exec(csp)![1]!;
    if (gw.name === 'braintree') expect(frameSrc).toContain('https://assets.braintreegateway.com');
    else expect(csp).not.toContain('braintree');
  });

  it('vaults a card from a nonce: client token, payment info with the card, the sandbox flag', async () => {
    const a = await signUp(env.app);
    const tok = await call(env.app, 'GET', '/v1/user/payment/token/generate', { token: a.session });
    expect(tok.statusCode).toBe(200);
    expect(tok.body.payload.gateway).toBe(gw.name);
    expect(tok.body.payload.token).toMatch(gw.name === 'sandbox' ? /^sandbox_/ : /^fake_client_token_/);
    const before = await call(env.app, 'GET', '/v1/user/payment/info', { token: a.session });
    expect(before.body.payload).toMatchObject({
      paymentActive: false,
      details: null,
      amountAutoRecharge: 0,
      minimumBalanceForAutoRecharge: 0,
      sandbox: gw.name === 'sandbox',
      gateway: gw.name,
    });
    const add = await call(env.app, 'POST', '/v1/user/payment/add', {
      token: a.session,
      body: { paymentMethodToken: 'fake-valid-visa-nonce' },
    });
    expect(add.statusCode).toBe(200);
    expect(add.body.message).toBe(MSG.cardAdded);
    expect(add.body.payload).toMatchObject({
      paymentActive: true,
      details: { last4: '1111', cardType: 'Visa', cardholderName: 'Ada Lovelace' },
    });
    // The vault token never leaves the server.
    const [acct] = await env.ctx.db
      .select()
      .from(billingAccounts)
      .where(eq(billingAccounts.userId, await idOf(a.email)));
    expect(acct!.paymentMethodToken).toBeTruthy();
    expect(JSON.stringify(add.body)).not.toContain(acct!.paymentMethodToken!);
    // A new card replaces the old one.
    await call(env.app, 'POST', '/v1/user/payment/add', { token: a.session, body: { paymentMethodToken: 'fake-valid-mastercard-nonce' } });
    const info = await call(env.app, 'GET', '/v1/user/payment/info', { token: a.session });
    expect(info.body.payload.details).toMatchObject({ last4: '4444', cardType: 'MasterCard' });
  });

  it('refuses a consumed, a fraud-rejected, a Luhn-invalid and a missing nonce with clear messages', async () => {
    const a = await signUp(env.app);
    const add = (body: unknown) => call(env.app, 'POST', '/v1/user/payment/add', { token: a.session, body });
    const consumed = await add({ paymentMethodToken: 'fake-consumed-nonce' });
    expect([consumed.statusCode, consumed.body.message]).toEqual([400, MSG.paymentNonceUsed]);
    const fraud = await add({ paymentMethodToken: 'fake-gateway-rejected-fraud-nonce' });
    expect([fraud.statusCode, fraud.body.message]).toEqual([402, `${MSG.paymentRejected}: Gateway Rejected: fraud`]);
    const luhn = await add({ paymentMethodToken: 'fake-luhn-invalid-nonce' });
    expect([luhn.statusCode, luhn.body.message]).toEqual([400, 'Credit card number is invalid.']);
    const missing = await add({});
    expect([missing.statusCode, missing.body.payload.errors.paymentMethodToken]).toEqual([400, MSG.paymentMethodRequired]);
    const info = await call(env.app, 'GET', '/v1/user/payment/info', { token: a.session });
    expect(info.body.payload.paymentActive).toBe(false);
  });

  it('addbalance: spec messages, no card, then a top-up credited once and shown in the history', async () => {
    const plain = await signUp(env.app);
    const add = (token: string, body: unknown, headers?: Record<string, string>) =>
      call(env.app, 'POST', '/v1/user/general/addbalance', { token, body, headers });
    expect((await add(plain.session, {})).body.payload.errors.amount).toBe(MSG.amountRequired);
    expect((await add(plain.session, { amount: 'ten' })).body.payload.errors.amount).toBe(MSG.amountNumber);
    expect((await add(plain.session, { amount: 2.5 })).body.payload.errors.amount).toBe(MSG.amountNumber);
    const noCard = await add(plain.session, { amount: 20 });
    expect([noCard.statusCode, noCard.body.message]).toEqual([402, MSG.noPaymentMethod]);

    const a = await withCard();
    const ok = await add(a.session, { amount: '20' });
    expect(ok.statusCode).toBe(200);
    expect(ok.body.message).toBe(MSG.balanceAdded);
    expect(ok.body.payload.balance).toBe(30);
    expect(ok.body.payload.payment).toMatchObject({
      amount: '20.00',
      status: 'submitted_for_settlement',
      paymentInstrumentType: 'credit_card',
      currencyIsoCode: 'USD',
      creditCard: { cardType: 'Visa', maskedNumber: '411111******1111' },
    });
    const hist = await call(env.app, 'GET', '/v1/user/payment/history', { token: a.session });
    expect(hist.body.payload).toHaveLength(1);
    expect(hist.body.payload[0].id).toBe(ok.body.payload.payment.id);
    const user = await call(env.app, 'GET', '/v1/user/info', { token: a.session });
    expect(user.body.payload.profile.balance).toBe(30);
    await consistent(a.id);
  });

  it('a replayed top-up with the same Idempotency-Key is answered byte for byte and charged once, also when concurrent', async () => {
    const a = await withCard();
    const send = (amount: number, key: string) =>
      env.app.inject({
        method: 'POST',
        url: '/v1/user/general/addbalance',
        headers: { 'sm-api-token': a.session, 'sm-http-status': 'real', 'idempotency-key': key },
        payload: { amount },
      });
    const first = await send(10, 'k-1');
    const again = await send(10, 'k-1');
    expect(first.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    const reused = await send(15, 'k-1');
    expect([reused.statusCode, reused.json().message]).toEqual([422, MSG.idempotencyKeyReused]);
    const burst = await Promise.all(Array.from({ length: 8 }, () => send(5, 'k-2')));
    const codes = burst.map((r) => r.statusCode);
    expect(codes.every((c) => c === 200 || c === 409)).toBe(true);
    expect(codes.filter((c) => c === 200).length).toBeGreaterThanOrEqual(1);
    expect((await topups(a.id)).map((t) => t.amountCents).sort()).toEqual([1000, 500].sort());
    expect(await balanceCents(env.ctx.db, a.id)).toBe(1000 + 1000 + 500);
    expect(await env.ctx.db.select().from(payments).where(eq(payments.userId, a.id))).toHaveLength(2);
    await consistent(a.id);
  });

  it('a card the processor declines is refused when saved (verified at save), with the reason; nothing is stored', async () => {
    const a = await signUp(env.app);
    const r = await call(env.app, 'POST', '/v1/user/payment/add', {
      token: a.session,
      body: { paymentMethodToken: 'fake-processor-declined-visa-nonce' },
    });
    expect([r.statusCode, r.body.status, r.body.message]).toEqual([402, 'fail', `${MSG.paymentDeclined}: Do Not Honor`]);
    const info = await call(env.app, 'GET', '/v1/user/payment/info', { token: a.session });
    expect(info.body.payload.paymentActive).toBe(false);
  });

  it('a declined card: a clear message, the attempt in the history, nothing booked; the decline is replayed under its key', async () => {
    const a = await withCard();
    await cardGoesBad(a.id);
    const send = () => topUp(a.session, 20, 'd-1');
    const res = await send();
    expect([res.statusCode, res.body.message]).toEqual([402, `${MSG.paymentDeclined}: Do Not Honor`]);
    expect(res.body.payload.payment).toMatchObject({ status: 'processor_declined', processorResponseText: 'Do Not Honor' });
    expect((await send()).body).toEqual(res.body);
    expect(await topups(a.id)).toHaveLength(0);
    expect(await balanceCents(env.ctx.db, a.id)).toBe(1000);
    const hist = await call(env.app, 'GET', '/v1/user/payment/history', { token: a.session });
    expect(hist.body.payload.map((p: { status: string }) => p.status)).toEqual(['processor_declined']);
    await consistent(a.id);
  });

  it('a top-up whose process died is reconciled by order id: a sale found is credited once, none found fails, a retry under its key answers the success', async () => {
    const a = await withCard();
    const [acct] = await env.ctx.db.select().from(billingAccounts).where(eq(billingAccounts.userId, a.id));
    const pendingTopup = async (key: string) =>
      (
        await env.ctx.db
          .insert(payments)
          .values({ userId: a.id, kind: 'topup', amountCents: 1500, status: 'pending', idempotencyKey: key, gateway: gw.name })
          .returning()
      )[0]!;
    const sold = await pendingTopup('crash-1');
    const neverSold = await pendingTopup('crash-2');
    // The card was charged, then the process died before booking it. The sale is made by a new adapter
    // instance, as after a restart: the sandbox must remember it beyond the process that made it.
    const restarted = gw.name === 'sandbox' ? new SandboxGateway({ store: dbSaleStore(env.ctx.db) }) : new BraintreeGateway(env.ctx.config);
    expect((await restarted.sale({ token: acct!.paymentMethodToken!, amountCents: 1500, orderId: sold.id })).ok).toBe(true);
    // Too recent: a live request may still be waiting for its answer.
    expect(await reconcileTopups(env.ctx)).toBe(0);
    await env.ctx.db
      .update(payments)
      .set({ updatedAt: new Date(Date.now() - 10 * 60_000) })
      .where(eq(payments.userId, a.id));
    expect(await reconcileTopups(env.ctx)).toBe(2);
    expect(await reconcileTopups(env.ctx)).toBe(0);
    const rows = await env.ctx.db.select().from(payments).where(eq(payments.userId, a.id));
    expect(Object.fromEntries(rows.map((p) => [p.idempotencyKey, p.status]))).toEqual({
      'crash-1': 'submitted_for_settlement',
      'crash-2': 'failed',
    });
    expect(rows.find((p) => p.id === neverSold.id)!.processorResponseText).toContain('No charge was made');
    expect(await balanceCents(env.ctx.db, a.id)).toBe(1000 + 1500);
    expect(await topups(a.id)).toHaveLength(1);
    // The client retries under its key: the success, and no second charge.
    const retry = await topUp(a.session, 15, 'crash-1');
    expect([retry.statusCode, retry.body.payload.balance, retry.body.payload.payment.id]).toEqual([200, 25, sold.id]);
    if (fake) expect(fake.transactions.filter((t) => t.orderId === sold.id)).toHaveLength(1);
    expect(await topups(a.id)).toHaveLength(1);
    await consistent(a.id);
  });

  it('a gateway timeout: 504 with a clear message, nothing booked; the retry under the same key repeats the same sale, credited once', async () => {
    const a = await withCard();
    const fast = env.ctx.resources.payments!;
    // The sandbox's vaulted token is self-describing, so a slow sandbox can charge the same card; the fake
    // Braintree is slowed down itself.
    const slow = gw.name === 'sandbox' ? new SandboxGateway({ delayMs: 400 }) : fast;
    env.ctx.resources.payments = slow;
    if (fake) fake.delayMs = 400;
    const timeout = env.ctx.config.PAYMENT_TIMEOUT_MS;
    env.ctx.config.PAYMENT_TIMEOUT_MS = 100;
    try {
      const send = () => topUp(a.session, 20, 't-1');
      const res = await send();
      expect([res.statusCode, res.body.message]).toEqual([504, MSG.paymentTimeout]);
      expect(await balanceCents(env.ctx.db, a.id)).toBe(1000);
      const [pending] = await env.ctx.db.select().from(payments).where(eq(payments.userId, a.id));
      expect(pending!.status).toBe('unknown');
      // The sale went through at the gateway after we stopped waiting.
      await eventually(async () => slow.findByOrderId(pending!.id), 5000, 50);
      env.ctx.config.PAYMENT_TIMEOUT_MS = 5000;
      const retry = await send();
      expect(retry.statusCode).toBe(200);
      expect(retry.body.payload.balance).toBe(30);
      const [p] = await env.ctx.db.select().from(payments).where(eq(payments.userId, a.id));
      // The same gateway transaction as the first (timed-out) attempt: the card was charged once.
      expect(await slow.find(p!.transactionId!)).toMatchObject({ orderId: p!.id, amountCents: 2000 });
      if (fake) expect(fake.transactions.filter((t) => t.orderId === p!.id)).toHaveLength(1);
      expect(await topups(a.id)).toHaveLength(1);
      await consistent(a.id);
    } finally {
      env.ctx.resources.payments = fast;
      env.ctx.config.PAYMENT_TIMEOUT_MS = timeout;
      if (fake) fake.delayMs = 0;
    }
  });
});

describe('the Braintree adapter through the real SDK', () => {
  let fake: FakeBraintree;
  beforeAll(async () => (fake = await startFakeBraintree()));
  afterAll(() => fake.close());

  const config = (over: Record<string, string> = {}) => loadConfig({ DATA_DIR: 'memory://', ...fake.env, ...over } as NodeJS.ProcessEnv);

  it('is chosen when all four credentials are set; a partial set stops start-up naming what is missing', () => {
    expect(() => loadConfig({ DATA_DIR: 'memory://', BRAINTREE_MERCHANT_ID: 'm' } as NodeJS.ProcessEnv)).toThrow(
      /BRAINTREE_ENVIRONMENT, BRAINTREE_PUBLIC_KEY, BRAINTREE_PRIVATE_KEY: required when any BRAINTREE_\* credential is set/,
    );
    expect(config().BRAINTREE_MERCHANT_ID).toBe(fake.merchantId);
  });

  it('vaults with customer create, sells with the order id submitted for settlement, searches before selling, finds and refunds', async () => {
    const g = new BraintreeGateway(config());
    fake.calls.length = 0;
    const v = await g.vault({
      nonce: 'fake-valid-visa-nonce',
      customerId: null,
      email: 'a@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
    expect(v).toMatchObject({
      ok: true,
      card: { cardType: 'Visa', last4: '1111', maskedNumber: '411111******1111', cardholderName: 'Ada Lovelace' },
    });
    expect(fake.calls).toEqual(['POST /customers', 'POST /payment_methods']);
    if (!v.ok) return;
    const again = await g.vault({
      nonce: 'fake-valid-mastercard-nonce',
      customerId: v.customerId,
      email: 'a@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
    expect(again).toMatchObject({ ok: true, customerId: v.customerId });
    fake.calls.length = 0;
    const s = await g.sale({ token: v.token, amountCents: 1234, orderId: 'order-1' });
    expect(s).toMatchObject({ ok: true, transaction: { status: 'submitted_for_settlement', amountCents: 1234, orderId: 'order-1' } });
    expect(fake.calls).toEqual(['POST /transactions/advanced_search_ids', 'POST /transactions']);
    // The same order id again (a retry after a timeout or a crash): the first sale, nothing charged again.
    const s2 = await g.sale({ token: v.token, amountCents: 1234, orderId: 'order-1' });
    expect(s2.ok && s2.transaction.id).toBe(s.ok && s.transaction.id);
    expect(fake.transactions.filter((t) => t.orderId === 'order-1')).toHaveLength(1);
    expect(await g.findByOrderId('order-1')).toMatchObject({ orderId: 'order-1', amountCents: 1234 });
    expect(await g.findByOrderId('order-none')).toBeNull();
    const id = s.ok ? s.transaction.id : '';
    expect(await g.find(id)).toMatchObject({ id, amountCents: 1234, card: { last4: '1111' } });
    expect(await g.find('nosuchid')).toBeNull();
    const r = await g.refund(id, 234);
    expect(r).toMatchObject({ ok: true, transaction: { amountCents: 234 } });
    expect(await g.clientToken(v.customerId)).toMatch(/^fake_client_token_/);
  });

  it('wrong keys are an error, not a silent fallback; an unreachable gateway is "unavailable"', async () => {
    await expect(new BraintreeGateway(config({ BRAINTREE_PRIVATE_KEY: 'wrong' })).clientToken()).rejects.toThrow(/Authentication/);
    const closed = new BraintreeGateway(config({ BRAINTREE_GATEWAY_URL: 'http://127.0.0.1:1' }));
    await expect(closed.clientToken()).rejects.toBeInstanceOf(GatewayUnavailableError);
  });
});

describe('billing through the API, sandbox gateway', () => {
  let env: TestEnv;
  beforeAll(async () => (env = await createTestEnv()));
  afterAll(() => env.close());

  const { idOf, withCard, topups, consistent, autoRecharge } = accountHelpers(() => env);
  /** A card that verified when saved and declines now (cancelled, over its limit): cards are verified at save. */
  const withDecliningCard = async (over: Record<string, unknown> = {}) => {
    const a = await withCard('fake-valid-visa-nonce', over);
    const [acct] = await env.ctx.db.select().from(billingAccounts).where(eq(billingAccounts.userId, a.id));
    await env.ctx.db
      .update(billingAccounts)
      .set({ paymentMethodToken: sandboxTokenDeclining(acct!.paymentMethodToken!) })
      .where(eq(billingAccounts.userId, a.id));
    return a;
  };

  it("the sandbox card form's expiry: kept on the card; a past or malformed one refused with a clear message", async () => {
    const a = await signUp(env.app);
    const add = (expirationDate: unknown) =>
      call(env.app, 'POST', '/v1/user/payment/add', {
        token: a.session,
        body: { paymentMethodToken: 'fake-valid-visa-nonce', expirationDate },
      });
    const past = await add('01/20');
    expect([past.statusCode, past.body.message, past.body.payload.errors]).toEqual([
      400,
      MSG.cardExpired,
      { expirationDate: MSG.cardExpired },
    ]);
    const bad = await add('13/40');
    expect([bad.statusCode, bad.body.payload.errors]).toEqual([400, { expirationDate: MSG.cardExpiryFormat }]);
    expect((await call(env.app, 'GET', '/v1/user/payment/info', { token: a.session })).body.payload.paymentActive).toBe(false);
    const now = new Date();
    const thisMonth = `${String(now.getUTCMonth() + 1).padStart(2, '0')}/${String(now.getUTCFullYear() % 100).padStart(2, '0')}`;
    expect((await add(thisMonth)).statusCode).toBe(200);
    const ok = await add('07/31');
    expect(ok.statusCode).toBe(200);
    expect(ok.body.payload.details).toMatchObject({ expirationMonth: '07', expirationYear: '2031' });
  });

  it('autofill: integers with the spec messages; saved and shown in payment info', async () => {
    const a = await withCard();
    const edit = (body: unknown) => call(env.app, 'POST', '/v1/user/payment/edit', { token: a.session, body });
    const empty = await edit({});
    expect(empty.body.payload.errors).toEqual({
      amountAutoRecharge: MSG.amountAutoRechargeRequired,
      minimumBalanceForAutoRecharge: MSG.minimumBalanceRequired,
    });
    expect((await edit({ amountAutoRecharge: '2x', minimumBalanceForAutoRecharge: 5 })).body.payload.errors.amountAutoRecharge).toBe(
      MSG.amountNumber,
    );
    const ok = await edit({ amountAutoRecharge: 20, minimumBalanceForAutoRecharge: '5' });
    expect([ok.statusCode, ok.body.message]).toEqual([200, MSG.autofillSaved]);
    expect(ok.body.payload).toMatchObject({ amountAutoRecharge: 20, minimumBalanceForAutoRecharge: 5, paymentActive: true });
  });

  it('automatic recharge: a charge under the minimum records one recharge, which is charged and credited', async () => {
    const a = await withCard();
    await autoRecharge(a, 20, 5);
    await env.ctx.db.transaction((tx) => charge(tx, a.id, 400, 'tracking', 'big-1'));
    expect(await env.ctx.db.select().from(payments).where(eq(payments.userId, a.id))).toHaveLength(0);
    await env.ctx.db.transaction((tx) => charge(tx, a.id, 200, 'tracking', 'big-2'));
    await env.ctx.db.transaction((tx) => charge(tx, a.id, 5, 'tracking', 'small-1'));
    const pending = await env.ctx.db.select().from(payments).where(eq(payments.userId, a.id));
    expect(pending.map((p) => [p.kind, p.status, p.amountCents])).toEqual([['auto_recharge', 'pending', 2000]]);
    expect(await processRecharges(env.ctx)).toBeGreaterThanOrEqual(1);
    expect(await balanceCents(env.ctx.db, a.id)).toBe(1000 - 605 + 2000);
    const hist = await call(env.app, 'GET', '/v1/user/payment/history', { token: a.session });
    expect(hist.body.payload.map((p: { kind: string; status: string }) => [p.kind, p.status])).toEqual([
      ['auto_recharge', 'submitted_for_settlement'],
    ]);
    await consistent(a.id);
  });

  it('an automatic recharge killed after the gateway charged the card: the stale sweep credits it exactly once, with no second sale', async () => {
    const a = await withCard();
    await autoRecharge(a, 20, 5);
    await env.ctx.db.transaction((tx) => charge(tx, a.id, 600, 'tracking', 'crash-window'));
    const [p] = await env.ctx.db.select().from(payments).where(eq(payments.userId, a.id));
    expect([p!.kind, p!.status]).toEqual(['auto_recharge', 'pending']);
    // The real recharge path runs up to the gateway's answer, then the process "dies": the sale is made, the
    // error stands for the process going away before the credit is booked (nothing after the sale runs).
    const real = env.ctx.resources.payments!;
    env.ctx.resources.payments = new Proxy(real, {
      get(target, key) {
        if (key === 'sale') {
          return async (...args: Parameters<typeof real.sale>) => {
            await target.sale(...args);
            throw new Error('killed after the sale');
          };
        }
        const v = Reflect.get(target, key);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    try {
      await expect(processRecharges(env.ctx)).rejects.toThrow('killed after the sale');
    } finally {
      env.ctx.resources.payments = real; // the restarted process
    }
    // The sandbox gateway keeps its sales in the database, one row per order id: a repeated order id gets the
    // first sale back, as Braintree's search before a sale does (the Braintree case is the top-up tests' fake).
    const sales = async () => (await env.ctx.db.select().from(sandboxSales).where(eq(sandboxSales.orderId, p!.id))).length;
    expect(await sales()).toBe(1);
    const [left] = await env.ctx.db.select().from(payments).where(eq(payments.id, p!.id));
    expect(left!.status).toBe('processing');
    expect(await balanceCents(env.ctx.db, a.id)).toBe(1000 - 600);
    expect(await topups(a.id)).toHaveLength(0);
    // Too recent: the recharge's own worker may still be waiting for the gateway.
    expect(await processRecharges(env.ctx)).toBe(0);
    await env.ctx.db
      .update(payments)
      .set({ updatedAt: new Date(Date.now() - RECHARGE_STALE_MS - 1000) })
      .where(eq(payments.id, p!.id));
    expect(await processRecharges(env.ctx)).toBe(1);
    expect(await processRecharges(env.ctx)).toBe(0);
    const [done] = await env.ctx.db.select().from(payments).where(eq(payments.id, p!.id));
    expect(done!.status).toBe('submitted_for_settlement');
    expect(await balanceCents(env.ctx.db, a.id)).toBe(1000 - 600 + 2000);
    expect(await topups(a.id)).toHaveLength(1);
    // The sweep repeated the same sale (same order id): the card was charged once.
    expect(await sales()).toBe(1);
    await consistent(a.id);
  });

  it('a failing automatic recharge: a payment alert, backoff before the next try, and a cap', async () => {
    const a = await withDecliningCard();
    await autoRecharge(a, 20, 9);
    await env.ctx.db.transaction((tx) => charge(tx, a.id, 200, 'tracking', 'f-1'));
    await processRecharges(env.ctx);
    const [acct] = await env.ctx.db.select().from(billingAccounts).where(eq(billingAccounts.userId, a.id));
    expect(acct!.rechargeFailures).toBe(1);
    expect(acct!.rechargeRetryAt!.getTime()).toBeGreaterThan(Date.now() + 10 * 60_000);
    const info = await call(env.app, 'GET', '/v1/user/info', { token: a.session });
    expect(info.body.payload.alerts.payment.map((x: { name: string }) => x.name)).toContain('rechargeFailed');
    const pendingRecharges = () =>
      env.ctx.db
        .select()
        .from(payments)
        .where(and(eq(payments.userId, a.id), eq(payments.status, 'pending')));
    // Within the backoff a further charge records no new recharge.
    await env.ctx.db.transaction((tx) => charge(tx, a.id, 5, 'tracking', 'f-2'));
    expect(await pendingRecharges()).toHaveLength(0);
    // Past the backoff, two more failures reach the cap: recharges pause until the card or setting changes.
    for (const n of [3, 4]) {
      await env.ctx.db
        .update(billingAccounts)
        .set({ rechargeRetryAt: new Date(Date.now() - 1000) })
        .where(eq(billingAccounts.userId, a.id));
      await env.ctx.db.transaction((tx) => charge(tx, a.id, 5, 'tracking', `f-${n}`));
      await processRecharges(env.ctx);
    }
    const [capped] = await env.ctx.db.select().from(billingAccounts).where(eq(billingAccounts.userId, a.id));
    expect(capped!.rechargeFailures).toBe(3);
    await env.ctx.db.transaction((tx) => charge(tx, a.id, 5, 'tracking', 'f-5'));
    expect(await pendingRecharges()).toHaveLength(0);
    const all = await env.ctx.db.select().from(payments).where(eq(payments.userId, a.id));
    expect(all.map((p) => p.status)).toEqual(['processor_declined', 'processor_declined', 'processor_declined']);
    const raised = await env.ctx.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.userId, a.id), eq(alerts.name, 'rechargeFailed')));
    expect(raised.at(-1)!.message).toContain('paused');
    expect(await topups(a.id)).toHaveLength(0);
    await consistent(a.id);
  });

  it("referral: the inviter gets $10 once, when the verified friend's successful payments reach it and have settled (decision 110)", async () => {
    const inviter = await signUp(env.app);
    const inviterId = await idOf(inviter.email);
    const friend = await withCard('fake-valid-visa-nonce', { referrer: inviter.profile.referralCode });
    const declined = await withDecliningCard({ referrer: inviter.profile.referralCode });
    for (const f of [friend, declined]) await env.ctx.db.update(users).set({ emailVerified: true }).where(eq(users.id, f.id));
    const afterWindow = async () => {
      env.ctx.now = () => new Date(Date.now() + (env.config.REFERRAL_SETTLE_HOURS + 1) * 3_600_000);
      try {
        return await payDueReferralRewards(env.ctx);
      } finally {
        env.ctx.now = () => new Date();
      }
    };
    await call(env.app, 'POST', '/v1/user/general/addbalance', { token: declined.session, body: { amount: 10 } });
    await call(env.app, 'POST', '/v1/user/general/addbalance', { token: friend.session, body: { amount: 5 } });
    expect(await afterWindow()).toBe(0);
    expect(await balanceCents(env.ctx.db, inviterId)).toBe(1000);
    await call(env.app, 'POST', '/v1/user/general/addbalance', { token: friend.session, body: { amount: 5 } });
    await call(env.app, 'POST', '/v1/user/general/addbalance', { token: friend.session, body: { amount: 5 } });
    expect(await payDueReferralRewards(env.ctx)).toBe(0);
    expect(await afterWindow()).toBe(1);
    expect(await afterWindow()).toBe(0);
    expect(await balanceCents(env.ctx.db, inviterId)).toBe(2000);
    await consistent(inviterId);
  });

  it("usage: one record per day with tracking and SMS counts and costs, in the account's time zone", async () => {
    const a = await withCard();
    for (let i = 0; i < 3; i++) await env.ctx.db.transaction((tx) => charge(tx, a.id, 5, 'tracking', `u-t-${i}`));
    await env.ctx.db.transaction((tx) => charge(tx, a.id, 4, 'sms', 'u-s-1', 'SMS to +15550000000'));
    const ends = new Date();
    const starts = new Date(ends.getTime() - 6 * 86_400_000);
    const res = await call(env.app, 'POST', '/v1/user/general/getusage', {
      token: a.session,
      body: { starts: starts.toISOString(), ends: ends.toISOString() },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body.payload).toHaveLength(7);
    const today = res.body.payload.at(-1);
    expect(today).toMatchObject({
      dt: ends.toISOString().slice(0, 10),
      tracking: 3,
      sms: 1,
      costTracking: 0.15,
      costSms: 0.04,
      total: 0.19,
    });
    expect(res.body.payload[0]).toMatchObject({ tracking: 0, sms: 0, total: 0 });
    const bad = await call(env.app, 'POST', '/v1/user/general/getusage', {
      token: a.session,
      body: { starts: 'yesterday', ends: ends.toISOString() },
    });
    expect(bad.statusCode).toBe(400);
    const backwards = await call(env.app, 'POST', '/v1/user/general/getusage', {
      token: a.session,
      body: { starts: ends.toISOString(), ends: starts.toISOString() },
    });
    expect(backwards.body.payload.errors.ends).toBe('The start date must be before the end date');
  });

  it("receipts: the data and a landscape PDF with seller, buyer and the company's invoice info, the card and the total", async () => {
    const a = await withCard('fake-valid-visa-nonce', { userType: 'company', company: 'Acme Parcels' });
    const upd = await call(env.app, 'POST', '/v1/user/general/update', {
      token: a.session,
      body: { profile: { company: 'Acme Parcels', InvoiceExtraInfo: 'VAT GB123456789' } },
    });
    expect(upd.statusCode).toBe(200);
    const paid = await call(env.app, 'POST', '/v1/user/general/addbalance', { token: a.session, body: { amount: 20 } });
    const id = paid.body.payload.payment.id as string;
    const r = await call(env.app, 'GET', `/v1/user/payment/receipt/${id}`, { token: a.session });
    expect(r.statusCode).toBe(200);
    expect(r.body.payload).toMatchObject({
      id,
      total: '20.00',
      buyer: { name: 'Ada Lovelace', email: a.email, company: 'Acme Parcels', invoiceExtraInfo: 'VAT GB123456789' },
      seller: { name: 'Shiptrail' },
      lineItems: [{ description: 'Prepaid balance top-up', total: '20.00' }],
    });
    const other = await signUp(env.app);
    expect((await call(env.app, 'GET', `/v1/user/payment/receipt/${id}`, { token: other.session })).statusCode).toBe(404);
    expect((await call(env.app, 'GET', '/v1/user/payment/receipt/not-an-id', { token: a.session })).body.message).toBe(MSG.receiptNotFound);
    const pdf = await env.app.inject({ method: 'GET', url: `/v1/user/payment/receipt/${id}/pdf`, headers: { 'sm-api-token': a.session } });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toContain('invoice.pdf');
    const doc = await getDocumentProxy(new Uint8Array(pdf.rawPayload));
    const page = await doc.getPage(1);
    const [, , w, h] = page.view;
    expect(w).toBeGreaterThan(h!);
    const { text } = await extractText(doc, { mergePages: true });
    for (const s of [
      'Payment Receipt',
      'Shiptrail',
      'Ada Lovelace',
      'Acme Parcels',
      a.email,
      'VAT GB123456789',
      'Prepaid balance top-up',
      '20.00 USD',
      'Visa 411111******1111',
      'Total paid',
      id,
    ])
      expect(text).toContain(s);
    if (process.env.RECEIPT_PDF_OUT) (await import('node:fs')).writeFileSync(process.env.RECEIPT_PDF_OUT, pdf.rawPayload);
  });
});
