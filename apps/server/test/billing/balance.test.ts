import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { balanceCents, bookCharges, charge, credit, ledgerSumCents, lockAccount } from '../../src/modules/billing/billing.service.ts';

describe('kept balance', () => {
  let env: TestEnv;
  beforeAll(async () => (env = await createTestEnv()));
  afterAll(() => env.close());

  const userId = async (email: string) => (await env.ctx.db.query.users.findFirst({ where: (u, { eq }) => eq(u.email, email) }))!.id;

  it('equals the ledger sum after concurrent charges, credits, replays and batch charges', async () => {
    const id = await userId((await signUp(env.app)).email);
    const ops: Array<Promise<unknown>> = [];
    for (let i = 0; i < 150; i++) {
      ops.push(env.ctx.db.transaction((tx) => charge(tx, id, 3, 'tracking', `c-${i % 120}`)).catch(() => undefined));
      if (i % 5 === 0) ops.push(credit(env.ctx.db, id, 7, 'promo', `p-${i % 20}`));
      if (i % 10 === 0)
        ops.push(
          env.ctx.db.transaction(async (tx) => {
            await lockAccount(tx, id);
            await bookCharges(tx, id, 2, 'sms', [
              { ref: `b-${i}-1`, description: '' },
              { ref: `b-${i}-2`, description: '' },
            ]);
          }),
        );
    }
    // A rolled-back charge moves neither.
    ops.push(
      env.ctx.db
        .transaction(async (tx) => {
          await charge(tx, id, 1, 'tracking', 'rolled-back');
          throw new Error('undo');
        })
        .catch(() => undefined),
    );
    await Promise.all(ops);
    const kept = await balanceCents(env.ctx.db, id);
    expect(kept).toBe(await ledgerSumCents(env.ctx.db, id));
    // 1000 bonus + 4 distinct promos of 7 - 120 distinct charges of 3 - 15 batches of 2×2
    expect(kept).toBe(1000 + 28 - 360 - 60);
  });

  it('reads one row whatever the ledger size (no scan of the entries)', async () => {
    const id = await userId((await signUp(env.app)).email);
    await env.ctx.db.execute(
      sql`insert into ledger_entries (user_id, amount_cents, kind, ref) select ${id}, 1, 'promo', 'bulk-' || g from generate_series(1, 20000) g`,
    );
    // Rows written behind the ledger's back (as above) are not seen: the kept balance is what moves with each entry.
    expect(await balanceCents(env.ctx.db, id)).toBe(1000);
    expect(await ledgerSumCents(env.ctx.db, id)).toBe(21000);
  });
});
