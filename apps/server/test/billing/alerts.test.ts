import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { alerts, users } from '../../src/db/schema.ts';
import { charge } from '../../src/modules/billing/billing.service.ts';
import { cardExpiryJob } from '../../src/modules/billing/billing.jobs.ts';
import { JOBS } from '../../src/jobs/registry.ts';

describe('payment alerts: low balance and card expiring', () => {
  let env: TestEnv;
  beforeAll(async () => (env = await createTestEnv()));
  afterAll(() => env.close());

  const account = async (nonce?: string) => {
    const a = await signUp(env.app);
    const [u] = await env.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, a.email));
    if (nonce)
      expect(
        (await call(env.app, 'POST', '/v1/user/payment/add', { token: a.session, body: { paymentMethodToken: nonce } })).statusCode,
      ).toBe(200);
    return { ...a, id: u!.id };
  };
  const spend = (userId: string, cents: number, ref: string) => env.ctx.db.transaction((tx) => charge(tx, userId, cents, 'tracking', ref));
  const named = (userId: string, name: string) =>
    env.ctx.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.userId, userId), eq(alerts.name, name)));
  const paymentTab = async (session: string) =>
    (await call(env.app, 'GET', '/v1/user/info', { token: session })).body.payload.alerts.payment as Array<{
      name: string;
      message: string;
    }>;

  it('low balance without automatic recharge: raised once when a charge crosses under $5, again only after a top-up lifted it', async () => {
    const a = await account('fake-valid-visa-nonce');
    await spend(a.id, 400, 'l-1'); // $10.00 → $6.00
    expect(await named(a.id, 'lowBalance')).toHaveLength(0);
    await spend(a.id, 200, 'l-2'); // → $4.00: crosses
    await spend(a.id, 5, 'l-3'); // → $3.95: still under, no second alert
    await spend(a.id, 5, 'l-4');
    const raised = await named(a.id, 'lowBalance');
    expect(raised).toHaveLength(1);
    expect(raised[0]!.message).toBe('Your balance is $4.00, under $5.00. Please add balance so your alerts keep running.');
    expect((await paymentTab(a.session)).map((x) => x.name)).toEqual(['lowBalance']);
    // A top-up lifts the balance: the alert goes; the next crossing raises a new one.
    expect((await call(env.app, 'POST', '/v1/user/general/addbalance', { token: a.session, body: { amount: 5 } })).statusCode).toBe(200);
    expect((await paymentTab(a.session)).map((x) => x.name)).toEqual([]);
    await spend(a.id, 400, 'l-5'); // $8.90 → $4.90
    expect(await named(a.id, 'lowBalance')).toHaveLength(2);
    expect((await paymentTab(a.session)).map((x) => x.name)).toEqual(['lowBalance']);
  });

  it('low balance with automatic recharge on: the threshold is the recharge minimum, and the alert says a recharge is coming', async () => {
    const a = await account('fake-valid-visa-nonce');
    await call(env.app, 'POST', '/v1/user/payment/edit', {
      token: a.session,
      body: { amountAutoRecharge: 20, minimumBalanceForAutoRecharge: 9 },
    });
    await spend(a.id, 50, 'm-1'); // $9.50
    expect(await named(a.id, 'lowBalance')).toHaveLength(0);
    await spend(a.id, 100, 'm-2'); // $8.50: under $9
    const [raised] = await named(a.id, 'lowBalance');
    expect(raised!.message).toBe('Your balance is $8.50, under $9.00. An automatic recharge of $20.00 is on its way.');
  });

  it('card expiring: a daily job raises one alert per card and expiry month, only in that month or the one before', async () => {
    expect(JOBS).toContain(cardExpiryJob);
    const a = await account('fake-valid-mastercard-nonce');
    const info = (await call(env.app, 'GET', '/v1/user/payment/info', { token: a.session })).body.payload;
    const year = Number(info.details.expirationYear);
    expect(info.details.expirationMonth).toBe('12');
    const realNow = env.ctx.now;
    try {
      env.ctx.now = () => new Date(Date.UTC(year, 9, 15)); // October: two months ahead, not yet
      await cardExpiryJob.handle(env.ctx, []);
      expect(await named(a.id, 'cardExpiring')).toHaveLength(0);
      env.ctx.now = () => new Date(Date.UTC(year, 10, 1)); // November: the month before
      await cardExpiryJob.handle(env.ctx, []);
      await cardExpiryJob.handle(env.ctx, []);
      env.ctx.now = () => new Date(Date.UTC(year, 11, 31)); // December: the same card and month, no second alert
      await cardExpiryJob.handle(env.ctx, []);
      const raised = await named(a.id, 'cardExpiring');
      expect(raised).toHaveLength(1);
      expect(raised[0]!.message).toContain(`MasterCard card ending in 4444 expires at the end of 12/${year}`);
      env.ctx.now = () => new Date(Date.UTC(year + 1, 0, 5)); // expired already: not "expiring"
      await cardExpiryJob.handle(env.ctx, []);
      expect(await named(a.id, 'cardExpiring')).toHaveLength(1);
    } finally {
      env.ctx.now = realNow;
    }
    expect((await paymentTab(a.session)).map((x) => x.name)).toContain('cardExpiring');
  });
});
