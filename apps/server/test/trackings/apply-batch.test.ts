// How many carrier results one refresh transaction applies (decision 167). On the embedded database a transaction
// holds PGlite's only session from BEGIN to COMMIT, and a person's list waits for the turn in progress (decision 164):
// there a batch applies 10 results, so the turn a person can wait behind stays short. PostgreSQL serves many sessions
// at once and keeps 200.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { checkpoints, trackingEvents, trackings, users } from '../../src/db/schema.ts';
import { runDueRefreshes } from '../../src/modules/trackings/refresh.ts';
import { whileCarrierAnswersAll } from './fixtures.ts';

let env: TestEnv;
let userId: string;

beforeAll(async () => {
  env = await createTestEnv();
  const { email } = await signUp(env.app);
  const [u] = await env.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  userId = u!.id;
});
afterAll(async () => {
  await env?.close();
});

describe('refresh apply batches', () => {
  it('a refresh applies at most 10 results to a transaction on the embedded database (200 on PostgreSQL), every one once', async () => {
    const tids = Array.from({ length: 25 }, (_, i) => `1ZBATCH${String(i).padStart(10, '0')}`);
    await env.ctx.db
      .insert(trackings)
      .values(tids.map((tid) => ({ userId, tid, courier: 'ups', nextCheckAt: new Date(Date.now() - 1000) })));
    // Count the transactions the round opens (the apply batches; claiming is one statement of its own).
    const db = env.ctx.db;
    const transaction = db.transaction.bind(db);
    let opened = 0;
    db.transaction = ((fn: Parameters<typeof transaction>[0], config?: Parameters<typeof transaction>[1]) => {
      opened++;
      return transaction(fn, config);
    }) as typeof db.transaction;
    let stats;
    try {
      // The carrier answers every number at once: each moves to InTransit with one scan.
      stats = await whileCarrierAnswersAll(env, () => runDueRefreshes(env.ctx));
    } finally {
      db.transaction = transaction;
    }
    expect(stats).toEqual({ fetched: 25, changed: 25, failed: 0 });
    expect(opened).toBe(env.ctx.database.kind === 'pglite' ? 3 : 1);
    // Applied once each: one scan and one status change per tracking.
    for (const tid of tids) {
      const [t] = await db.select().from(trackings).where(eq(trackings.tid, tid));
      expect(t!.status).toBe('InTransit');
      expect(await db.select().from(checkpoints).where(eq(checkpoints.trackingId, t!.id))).toHaveLength(1);
      expect(await db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, t!.id))).toHaveLength(1);
    }
  });
});
