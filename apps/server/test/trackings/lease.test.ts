// A live worker keeps its claim on a tracking while a slow carrier answers: the lease is renewed, so nobody
// else takes the tracking. (A worker killed mid-refresh is crash.slow.test.ts, in the slow set.)
import { afterAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { startFakeCarrier, CREDS, type FakeCarrier } from '../carriers/fake-carrier.ts';
import { createTestEnv, eventually, signUp, type TestEnv } from '../helpers.ts';
import { trackings } from '../../src/db/schema.ts';
import { LEASE_MS, runDueRefreshes } from '../../src/modules/trackings/refresh.ts';
import { add } from './fixtures.ts';

let fake: FakeCarrier | undefined;
let env: TestEnv | undefined;

afterAll(async () => {
  await fake?.close();
  await env?.close();
});

describe('refresh lease', () => {
  it('a live worker keeps its claim while a slow carrier answers: the lease is renewed, nobody else takes the tracking', async () => {
    fake ??= await startFakeCarrier();
    env = await createTestEnv({ UPS_BASE_URL: fake.url, UPS_CLIENT_ID: CREDS.id, UPS_CLIENT_SECRET: CREDS.secret });
    const user = await signUp(env.app);
    const tid = '1Z5R89390350075813';
    expect((await add(env, user.apiKey, { tid, courier: 'ups' })).body.code).toBe(201);
    const [t] = await env.ctx.db.select().from(trackings).where(eq(trackings.tid, tid));
    // Due now; the carrier takes longer than a renewal period to answer.
    await env.ctx.db
      .update(trackings)
      .set({ nextCheckAt: new Date(Date.now() - 1000) })
      .where(eq(trackings.id, t!.id));
    // The lease is renewed every 300 ms here instead of every 5 s (LEASE_RENEW_MS): the same renewal, sooner.
    const renewEvery = 300;
    env.ctx.resources.refreshLeaseRenewMs = renewEvery;
    fake.script('ups', tid, { status: 200, body: '{}', delayMs: renewEvery + 2500 });
    const started = Date.now();
    const round = runDueRefreshes(env.ctx);
    await eventually(async () => (fake!.trackRequests.ups >= 1 ? true : null), 10_000, 50);
    // Not applied yet: the carrier's answer sets lastCheckedAt, and the row's real next check with it.
    const unapplied = (r: typeof t) => r!.lastCheckedAt?.getTime() === t!.lastCheckedAt?.getTime();
    const [leased] = await env.ctx.db.select().from(trackings).where(eq(trackings.id, t!.id));
    expect(unapplied(leased)).toBe(true);
    const firstLease = leased!.nextCheckAt!.getTime();
    // A lease (LEASE_MS from the claim, or from a renewal already made on a busy machine), not a next check.
    expect(firstLease).toBeGreaterThanOrEqual(started + LEASE_MS - 1000);
    expect(firstLease).toBeLessThanOrEqual(Date.now() + LEASE_MS + 1000);
    const renewed = await eventually(
      async () => {
        const [r] = await env!.ctx.db.select().from(trackings).where(eq(trackings.id, t!.id));
        // A renewal is seen while the carrier is still answering: after the answer the row's next check (an error
        // backoff) would pass for one.
        expect(unapplied(r)).toBe(true);
        return r!.nextCheckAt!.getTime() > firstLease ? r!.nextCheckAt!.getTime() : null;
      },
      10_000,
      100,
    );
    expect(renewed).toBeGreaterThan(firstLease);
    const stats = await round;
    expect(stats.fetched).toBe(1);
    // After the answer the row carries its real next check (an error backoff here), no lease.
    const [after] = await env.ctx.db.select().from(trackings).where(eq(trackings.id, t!.id));
    expect(after!.lastCheckedAt).not.toBeNull();
  }, 180_000);
});
