import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, signUp, type TestEnv } from '../../../test/helpers.ts';
import { balanceCents, charge, credit, InsufficientBalanceError } from './billing.service.ts';

describe('ledger', () => {
  let env: TestEnv;
  beforeAll(async () => (env = await createTestEnv()));
  afterAll(() => env.close());

  const userId = async (email: string) => (await env.ctx.db.query.users.findFirst({ where: (u, { eq }) => eq(u.email, email) }))!.id;

  it('starts with the $10 sign-up bonus and books a credit once per ref', async () => {
    const id = await userId((await signUp(env.app)).email);
    expect(await balanceCents(env.ctx.db, id)).toBe(1000);
    expect(await credit(env.ctx.db, id, 500, 'topup', 'pay-1')).toBe(true);
    expect(await credit(env.ctx.db, id, 500, 'topup', 'pay-1')).toBe(false);
    expect(await balanceCents(env.ctx.db, id)).toBe(1500);
  });

  it('concurrent charges never overspend and a ref is charged once', async () => {
    const id = await userId((await signUp(env.app)).email);
    // 1000 cents buys exactly 200 charges of 5; fire 230 at once.
    const results = await Promise.allSettled(
      Array.from({ length: 230 }, (_, i) => env.ctx.db.transaction((tx) => charge(tx, id, 5, 'tracking', `t-${i}`))),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected' && r.reason instanceof InsufficientBalanceError).length;
    expect(ok).toBe(200);
    expect(refused).toBe(30);
    expect(await balanceCents(env.ctx.db, id)).toBe(0);
    await credit(env.ctx.db, id, 100, 'topup', 'pay-x');
    expect(await env.ctx.db.transaction((tx) => charge(tx, id, 5, 'tracking', 't-0'))).toBe(false);
    expect(await balanceCents(env.ctx.db, id)).toBe(100);
  });
});
