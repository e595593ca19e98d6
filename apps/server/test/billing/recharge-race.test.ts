import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createTestEnv, onPostgres, type TestEnv } from '../helpers.ts';
import { payments } from '../../src/db/schema.ts';
import { expectBalanceHolds, signUpWithAutoRecharge } from './fixtures.ts';
import {
  balanceCents,
  charge,
  credit,
  InsufficientBalanceError,
  ledgerSumCents,
  processRecharges,
} from '../../src/modules/billing/billing.service.ts';

/**
 * 1,000 charges race on one account with automatic recharge on, while recharge workers run. The account starts
 * at $11.00 with a $5 minimum and $20 recharges; 1,000 charges of 1¢ take it under the minimum exactly once
 * (at the 601st), and after a recharge it never gets there again: exactly one recharge, whatever the order.
 */
async function race(envs: TestEnv[], userId: string) {
  let racing = true;
  const workers = envs.map(async (e) => {
    while (racing) {
      await processRecharges(e.ctx);
      await new Promise((r) => setTimeout(r, 5));
    }
  });
  const results = await Promise.allSettled(
    Array.from({ length: 1000 }, (_, i) =>
      envs[i % envs.length]!.ctx.db.transaction((tx) => charge(tx, userId, 1, 'tracking', `race-${i}`)),
    ),
  );
  racing = false;
  await Promise.all(workers);
  for (const e of envs) await processRecharges(e.ctx);
  return results;
}

async function check(env: TestEnv, userId: string, results: PromiseSettledResult<boolean>[]) {
  const refused = results.filter((r) => r.status === 'rejected');
  expect(refused.map((r) => String((r as PromiseRejectedResult).reason)).slice(0, 3)).toEqual([]);
  expect(results.every((r) => r.status === 'fulfilled' && r.value === true)).toBe(true);
  const recharges = await env.ctx.db.select().from(payments).where(eq(payments.userId, userId));
  expect(recharges.map((p) => [p.kind, p.status, p.amountCents])).toEqual([['auto_recharge', 'submitted_for_settlement', 2000]]);
  await expectBalanceHolds(env, userId, 1100 - 1000 + 2000);
}

async function account(env: TestEnv) {
  const { userId } = await signUpWithAutoRecharge(env);
  await credit(env.ctx.db, userId, 100, 'promo', 'race-start');
  return userId;
}

describe('automatic recharge under 1,000 racing charges', () => {
  let env: TestEnv;
  beforeAll(async () => (env = await createTestEnv()));
  afterAll(() => env.close());

  it('one process: balance == ledger sum, never negative, exactly one recharge', async () => {
    const userId = await account(env);
    await check(env, userId, await race([env], userId));
  }, 120_000);

  it('refuses, never overdraws, when the money runs out before a recharge can land', async () => {
    const userId = await account(env);
    // No worker runs: 1,200 charges of 1¢ against $11.00 leave 100 refused.
    const results = await Promise.allSettled(
      Array.from({ length: 1200 }, (_, i) => env.ctx.db.transaction((tx) => charge(tx, userId, 1, 'tracking', `dry-${i}`))),
    );
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof InsufficientBalanceError)).toHaveLength(100);
    expect(await balanceCents(env.ctx.db, userId)).toBe(0);
    expect(await env.ctx.db.select().from(payments).where(eq(payments.userId, userId))).toHaveLength(1);
    await processRecharges(env.ctx);
    expect(await balanceCents(env.ctx.db, userId)).toBe(2000);
    expect(await ledgerSumCents(env.ctx.db, userId)).toBe(2000);
  }, 120_000);

  // Two app contexts on one PostgreSQL database: separate pools and recharge workers, as two server processes
  // would have. PGlite is one connection in one process, so this needs a server.
  it.runIf(onPostgres)(
    'two processes on PostgreSQL: the same guarantees',
    async () => {
      const other = await createTestEnv({ DATABASE_URL: env.ctx.config.DATABASE_URL! });
      try {
        const userId = await account(env);
        await check(env, userId, await race([env, other], userId));
      } finally {
        await other.close();
      }
    },
    120_000,
  );
});
