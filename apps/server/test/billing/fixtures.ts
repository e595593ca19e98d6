import { asc, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { call, signUp, type TestEnv } from '../helpers.ts';
import { ledgerEntries, users } from '../../src/db/schema.ts';
import { balanceCents, ledgerSumCents } from '../../src/modules/billing/billing.service.ts';

/** A new account with a card on file and automatic recharge on: $20 whenever the balance falls under $5. */
export async function signUpWithAutoRecharge(env: TestEnv) {
  const a = await signUp(env.app);
  const [u] = await env.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, a.email));
  expect(
    (await call(env.app, 'POST', '/v1/user/payment/add', { token: a.session, body: { paymentMethodToken: 'fake-valid-nonce' } }))
      .statusCode,
  ).toBe(200);
  const edit = await call(env.app, 'POST', '/v1/user/payment/edit', {
    token: a.session,
    body: { amountAutoRecharge: 20, minimumBalanceForAutoRecharge: 5 },
  });
  expect(edit.statusCode).toBe(200);
  return { ...a, userId: u!.id };
}

/**
 * The account's balance is `cents` and the sum of its ledger, and was never negative: the ledger replayed in commit
 * order (ids are taken in order under the account lock).
 */
export async function expectBalanceHolds(env: TestEnv, userId: string, cents: number) {
  const balance = await balanceCents(env.ctx.db, userId);
  expect(balance).toBe(await ledgerSumCents(env.ctx.db, userId));
  expect(balance).toBe(cents);
  const rows = await env.ctx.db
    .select({ a: ledgerEntries.amountCents })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.userId, userId))
    .orderBy(asc(ledgerEntries.id));
  let running = 0;
  let lowest = Infinity;
  for (const r of rows) lowest = Math.min(lowest, (running += r.a));
  expect(lowest).toBeGreaterThanOrEqual(0);
}
