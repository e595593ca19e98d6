// The first refresh of an added tracking: no job, the workers' scheduler. The add's statement makes the tracking
// due ahead of every routine re-check and wakes the scheduler loops, so the first status does not wait for a tick
// or behind a backlog.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { createTestEnv, eventually, signUp, type TestEnv } from '../helpers.ts';
import { trackings } from '../../src/db/schema.ts';
import { FIRST_IN_LINE, LEASE_MS, startRefreshScheduler, stopRefreshScheduler } from '../../src/modules/trackings/refresh.ts';
import { claimDue } from '../../src/modules/trackings/trackings.repository.ts';
import { EX, add, userIdOf } from './fixtures.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ CARRIER_SANDBOX_PACE: '0.01' });
});
afterAll(async () => {
  await env?.close();
});

async function row(tid: string) {
  const [t] = await env.ctx.db.select().from(trackings).where(eq(trackings.tid, tid));
  return t!;
}

describe('first refresh of an added tracking', () => {
  it('is claimed ahead of a backlog of due re-checks', async () => {
    const a = await signUp(env.app);
    const userId = await userIdOf(env, a.email);
    // 30 trackings overdue by an hour to a day, as a backlog of routine re-checks would be.
    await env.ctx.db.execute(sql`
      insert into trackings (user_id, tid, courier, status, next_check_at)
      select ${userId}::uuid, 'BACKLOG' || g, 'ups', 'InTransit', now() - (g || ' hours')::interval from generate_series(1, 30) g`);
    expect((await add(env, a.apiKey, { tid: EX.fedex.delivered })).statusCode).toBe(201);
    const t = await row(EX.fedex.delivered);
    expect(t.nextCheckAt).toEqual(FIRST_IN_LINE);
    const now = new Date();
    const [first] = await claimDue(env.ctx.db, now, new Date(now.getTime() + LEASE_MS), 1);
    expect(first?.tid).toBe(EX.fedex.delivered);
    await env.ctx.db.execute(sql`delete from trackings where user_id = ${userId}::uuid`);
  });

  it('starts at once: the add wakes the scheduler, which would otherwise not tick for ten minutes', async () => {
    await startRefreshScheduler(env.ctx, { tickMs: 600_000 });
    try {
      const a = await signUp(env.app);
      const t0 = Date.now();
      expect((await add(env, a.apiKey, { tid: EX.ups.delivered })).statusCode).toBe(201);
      const checked = await eventually(
        async () => {
          const t = await row(EX.ups.delivered);
          return t.lastCheckedAt ? t : null;
        },
        10_000,
        50,
      );
      expect(checked.status).not.toBe('Pending');
      expect(checked.nextCheckAt === null || checked.nextCheckAt.getTime() > t0).toBe(true);
      expect(Date.now() - t0).toBeLessThan(5_000);
    } finally {
      await stopRefreshScheduler(env.ctx);
    }
  });
});
