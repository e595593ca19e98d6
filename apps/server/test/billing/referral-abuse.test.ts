// Issue 33 / attack 2026-11-26 finding 4: a $1 first top-up by a fresh, unverified account with the inviter's
// card and address paid the inviter $10, as often as they liked. The reward now waits for a verified friend whose
// payments reach the reward, held for the settle window, and never for the inviter's own card or address.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { PRICING } from '@shiptrail/contract';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { referrals, users } from '../../src/db/schema.ts';
import { balanceCents, payDueReferralRewards } from '../../src/modules/billing/billing.service.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ REFERRAL_SETTLE_HOURS: '72' });
});
afterAll(async () => {
  await env?.close();
});
afterEach(() => {
  env.ctx.now = () => new Date();
});

const idOf = async (email: string) => (await env.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email)))[0]!.id;
const verify = (email: string) => env.ctx.db.update(users).set({ emailVerified: true }).where(eq(users.email, email));
const addCard = (token: string, nonce: string) =>
  call(env.app, 'POST', '/v1/user/payment/add', { token, body: { paymentMethodToken: nonce } });
const topUp = async (token: string, amount: number) =>
  expect((await call(env.app, 'POST', '/v1/user/general/addbalance', { token, body: { amount } })).statusCode).toBe(200);
const referralOf = async (friendId: string) => (await env.ctx.db.select().from(referrals).where(eq(referrals.invitedUserId, friendId)))[0]!;
/** The sweep, run as if the settle window (72 hours) had passed. */
const sweepAfterWindow = async () => {
  env.ctx.now = () => new Date(Date.now() + 73 * 3_600_000);
  try {
    return await payDueReferralRewards(env.ctx);
  } finally {
    env.ctx.now = () => new Date();
  }
};

/** A friend signed up with the inviter's code, from `address` when given (else an address of its own). */
async function friendOf(code: string, address?: string) {
  if (!address) return signUp(env.app, { referrer: code });
  const email = `friend${Date.now()}${Math.random().toString(36).slice(2, 6)}@example.com`;
  const res = await env.app.inject({
    method: 'POST',
    url: '/v1/user/general/signup',
    remoteAddress: address,
    headers: { 'sm-http-status': 'real' },
    payload: { email, password: 'password123', repassword: 'password123', terms: true, referrer: code },
  });
  expect(res.statusCode).toBe(201);
  return { email, session: res.json().payload.sessionToken as string };
}

describe('the invite reward', () => {
  it("the attack: a $1 top-up by a fresh, unverified account from the inviter's address and card pays nothing", async () => {
    const inviter = await signUp(env.app);
    const inviterId = await idOf(inviter.email);
    expect((await addCard(inviter.session, 'fake-valid-nonce')).statusCode).toBe(200);
    const friend = await friendOf(inviter.profile.referralCode, inviter.address);
    expect((await addCard(friend.session, 'fake-valid-nonce')).statusCode).toBe(200);
    await topUp(friend.session, 1);
    expect(await balanceCents(env.ctx.db, inviterId)).toBe(PRICING.signupBonusCents);
    expect((await referralOf(await idOf(friend.email))).rewardPaymentId).toBeNull();
    // Even verified and paying the reward's amount: the inviter's own card and address are refused, for good.
    await verify(friend.email);
    await topUp(friend.session, 10);
    expect((await referralOf(await idOf(friend.email))).rewardDueAt).not.toBeNull();
    expect(await sweepAfterWindow()).toBe(0);
    expect(await balanceCents(env.ctx.db, inviterId)).toBe(PRICING.signupBonusCents);
    expect((await referralOf(await idOf(friend.email))).rewardRefusal).toBe("the invited account paid with the inviter's card");
  });

  it("the inviter's card on another address, or the inviter's address with another card, is refused", async () => {
    const inviter = await signUp(env.app);
    const inviterId = await idOf(inviter.email);
    expect((await addCard(inviter.session, 'fake-valid-mastercard-nonce')).statusCode).toBe(200);
    const sameCard = await friendOf(inviter.profile.referralCode);
    await verify(sameCard.email);
    expect((await addCard(sameCard.session, 'fake-valid-mastercard-nonce')).statusCode).toBe(200);
    await topUp(sameCard.session, 10);
    const sameAddress = await friendOf(inviter.profile.referralCode, inviter.address);
    await verify(sameAddress.email);
    expect((await addCard(sameAddress.session, 'fake-valid-amex-nonce')).statusCode).toBe(200);
    await topUp(sameAddress.session, 10);
    expect(await sweepAfterWindow()).toBe(0);
    expect(await balanceCents(env.ctx.db, inviterId)).toBe(PRICING.signupBonusCents);
    expect((await referralOf(await idOf(sameCard.email))).rewardRefusal).toBe("the invited account paid with the inviter's card");
    expect((await referralOf(await idOf(sameAddress.email))).rewardRefusal).toBe(
      "the invited account signed up from the inviter's address",
    );
  });

  it('a real friend: paid once their payments reach $10, after the settle window, once they are verified', async () => {
    const inviter = await signUp(env.app);
    const inviterId = await idOf(inviter.email);
    const friend = await friendOf(inviter.profile.referralCode);
    const friendId = await idOf(friend.email);
    expect((await addCard(friend.session, 'fake-valid-discover-nonce')).statusCode).toBe(200);
    await topUp(friend.session, 5);
    expect((await referralOf(friendId)).rewardPaymentId).toBeNull();
    await topUp(friend.session, 5);
    const held = await referralOf(friendId);
    expect(held.rewardPaymentId).not.toBeNull();
    expect(held.rewardDueAt!.getTime()).toBeGreaterThan(Date.now() + 71 * 3_600_000);
    // Inside the window: nothing yet.
    expect(await payDueReferralRewards(env.ctx)).toBe(0);
    // Past it, but the friend's email is not verified: still held, not refused.
    expect(await sweepAfterWindow()).toBe(0);
    expect((await referralOf(friendId)).rewardRefusal).toBeNull();
    expect(await balanceCents(env.ctx.db, inviterId)).toBe(PRICING.signupBonusCents);
    await verify(friend.email);
    expect(await sweepAfterWindow()).toBe(1);
    expect(await sweepAfterWindow()).toBe(0);
    expect(await balanceCents(env.ctx.db, inviterId)).toBe(PRICING.signupBonusCents + PRICING.referralRewardCents);
    expect((await referralOf(friendId)).rewardedAt).not.toBeNull();
  });
});
