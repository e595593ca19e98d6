// Issue 33 / attack 2026-11-26 finding 9: 25 card saves and 25 top-ups from one account went through in
// seconds (card testing on our gateway fees). Limits per account and per card, with a clear 429.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { MSG } from '@shiptrail/contract';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { payments, users } from '../../src/db/schema.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ CARD_SAVE_RATE_LIMIT: '3/3600', TOPUP_RATE_LIMIT: '4/3600', CARD_USE_RATE_LIMIT: '6/3600' });
});
afterAll(async () => {
  await env?.close();
});

const addCard = (token: string, nonce = 'fake-valid-visa-nonce') =>
  call(env.app, 'POST', '/v1/user/payment/add', { token, body: { paymentMethodToken: nonce } });
const topUp = (token: string, amount = 1, key?: string) =>
  call(env.app, 'POST', '/v1/user/general/addbalance', {
    token,
    body: { amount },
    ...(key ? { headers: { 'idempotency-key': key } } : {}),
  });
const paymentsOf = async (email: string) => {
  const [u] = await env.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return env.ctx.db
    .select()
    .from(payments)
    .where(and(eq(payments.userId, u!.id)));
};

describe('card saves and top-ups are throttled', () => {
  it('per account: the fourth card save in the hour and the fifth top-up are refused with 429, a clear message and Retry-After', async () => {
    const a = await signUp(env.app);
    for (const nonce of ['fake-valid-visa-nonce', 'fake-valid-mastercard-nonce', 'fake-valid-amex-nonce'])
      expect((await addCard(a.session, nonce)).statusCode).toBe(200);
    const fourth = await addCard(a.session, 'fake-valid-discover-nonce');
    expect(fourth.statusCode).toBe(429);
    expect(fourth.body.message).toBe(MSG.tooManyCardSaves);
    expect(Number(fourth.headers['retry-after'])).toBeGreaterThan(60);

    for (let i = 0; i < 4; i++) expect((await topUp(a.session, 1, `k${i}`)).statusCode).toBe(200);
    // A replay under a key already used is the same payment: answered as before, not counted, not refused.
    const replay = await topUp(a.session, 1, 'k0');
    expect(replay.statusCode).toBe(200);
    const fifth = await topUp(a.session, 1, 'k4');
    expect(fifth.statusCode).toBe(429);
    expect(fifth.body.message).toBe(MSG.tooManyTopUps);
    expect(Number(fifth.headers['retry-after'])).toBeGreaterThan(60);
    expect(await paymentsOf(a.email)).toHaveLength(4);
  });

  it('per card: the same card on fresh accounts is refused once it has been used six times in the hour', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const b = await signUp(env.app);
      statuses.push((await addCard(b.session, 'fake-valid-nonce')).statusCode, (await topUp(b.session, 1)).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    const c = await signUp(env.app);
    const seventh = await addCard(c.session, 'fake-valid-nonce');
    expect(seventh.statusCode).toBe(429);
    expect(seventh.body.message).toBe(MSG.tooManyCardSaves);
    // The card was not kept on the account.
    const info = await call(env.app, 'GET', '/v1/user/payment/info', { token: c.session });
    expect(info.body.payload.paymentActive).toBe(false);
    // Another card is not held back by this one.
    expect((await addCard(c.session, 'fake-valid-discover-nonce')).statusCode).toBe(200);
  });
});
