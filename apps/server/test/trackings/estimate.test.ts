// The estimated delivery stored and shown (issue 32, decision 122): the carrier's estimate with its window through the
// refresh engine (real sandbox on loopback, real client, jobs and scheduler), in the /v1 list and the public page
// beside the original `expected`; predicted from the platform's delivered parcels when the carrier gives none, and
// empty when there is no delivered history at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, call, eventually, signUp, type TestEnv } from '../helpers.ts';
import { startJobWorkers } from '../../src/jobs/registry.ts';
import { refreshJob } from '../../src/modules/trackings/trackings.jobs.ts';
import { startRefreshScheduler, stopRefreshScheduler } from '../../src/modules/trackings/refresh.ts';
import { describeSandboxJourney } from '../../src/modules/carriers/sandbox/carrier-sandbox.ts';
import { createDeliveryPredictions } from '../../src/edd/index.ts';
import { deliveredHistory } from '../../src/modules/trackings/trackings.service.ts';
import { add, list, userIdOf } from './fixtures.ts';

const PACE = 0.05;
let env: TestEnv;
let user: Awaited<ReturnType<typeof signUp>>;

/** UPS numbers (any letters and digits; the courier is given) that play a journey of the sandbox. */
function upsNumbers(journey: string, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const tid = `1ZEDD${String(i).padStart(11, '0')}`;
    if (describeSandboxJourney(tid).journey === journey) out.push(tid);
  }
  return out;
}

type View = { tid: string; status: string; expected: string | null; estimatedDelivery: Record<string, unknown> | null; uid: string };
async function byTid(): Promise<Record<string, View>> {
  const r = await list(env, user.apiKey);
  return Object.fromEntries((r.body.payload as View[]).map((t) => [t.tid, t]));
}

beforeAll(async () => {
  // Pace 0.05: a sandbox journey takes 10-15 s, its promised window about 4 s.
  env = await createTestEnv({ CARRIER_SANDBOX_PACE: String(PACE) });
  user = await signUp(env.app);
  await startJobWorkers(env.ctx, [refreshJob]);
  await startRefreshScheduler(env.ctx);
});
afterAll(async () => {
  await stopRefreshScheduler(env.ctx);
  await env.close();
});

describe('estimated delivery in the product', () => {
  it("shows the carrier's estimate with its window in the list and on the public page, beside expected; none once delivered", async () => {
    const [tid] = upsNumbers('delivered', 1);
    expect((await add(env, user.apiKey, { tid, courier: 'ups' })).statusCode).toBe(201);
    const t = await eventually(async () => {
      const v = (await byTid())[tid!];
      return v?.estimatedDelivery ? v : null;
    }, 15_000);
    expect(t.estimatedDelivery).toMatchObject({ source: 'carrier' });
    const e = t.estimatedDelivery as { date: string; from: string; to: string; updatedAt: string };
    expect(e.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // The window in the carrier's local time with its offset (the sandbox writes US Central).
    expect(e.from).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-06:00$/);
    expect(Date.parse(e.to)).toBeGreaterThan(Date.parse(e.from));
    expect(Number.isNaN(Date.parse(e.updatedAt))).toBe(false);
    // The original field stays as the original SDK knows it.
    expect(t.expected).toBe(`${e.date}T00:00:00.000Z`);
    const pub = await call(env.app, 'GET', `/v1/track/${t.uid}_${tid}`);
    expect(pub.body.payload[0].estimatedDelivery).toEqual(t.estimatedDelivery);

    // The rest of the journey is not waited for (decision 169): the application's clock, which the sandbox and the
    // refresh engine read, moves past the journey's end, and the next refresh finds the parcel delivered.
    const realNow = env.ctx.now;
    const jump = describeSandboxJourney(tid!, PACE).durationMs + 60_000;
    env.ctx.now = () => new Date(Date.now() + jump);
    try {
      const done = await eventually(async () => {
        const v = (await byTid())[tid!];
        return v?.status === 'Delivered' ? v : null;
      }, 30_000);
      expect([done.estimatedDelivery, done.expected]).toEqual([null, null]);
    } finally {
      env.ctx.now = realNow;
    }
  }, 90_000);

  it('the carrier gives none: empty without delivered history, predicted (with its window of days) once there is some', async () => {
    const [bare, withHistory] = upsNumbers('exception', 2);
    expect((await add(env, user.apiKey, { tid: bare, courier: 'ups', title: 'no history' })).statusCode).toBe(201);
    const first = await eventually(async () => {
      const v = (await byTid())[bare!];
      return v && v.status !== 'Pending' ? v : null;
    }, 15_000);
    // The delivered parcel of the test above is the only history, and the predictor was loaded before it: nothing.
    expect(first.estimatedDelivery).toBeNull();

    // A delivered history on UPS: 30 parcels taking 3 business days from Chicago to Dallas.
    const userId = await userIdOf(env, user.email);
    await env.ctx.db.execute(sql`
      with t as (
        insert into trackings (user_id, tid, courier, status, origin, destination, next_check_at, created_at, updated_at)
        select ${userId}::uuid, 'HIST' || k, 'ups', 'Delivered', 'CHICAGO, IL, 60607, US', 'DALLAS, TX, 75201, US', null, now(), now()
        from generate_series(1, 30) k
        returning id, tid
      )
      insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
      select id, s.status, null, s.status, s.time, s.status || tid from t,
        lateral (values ('InfoReceived', timestamptz '2026-10-05 15:00:00+00' + (substr(tid, 5)::int % 5 || ' days')::interval * 7),
                        ('Delivered', timestamptz '2026-10-08 18:00:00+00' + (substr(tid, 5)::int % 5 || ' days')::interval * 7)) s(status, time)`);
    // The predictor reloads its history now and then; a new one reads it at once.
    env.ctx.resources.deliveryPredictions = createDeliveryPredictions(() => deliveredHistory(env.ctx));

    expect((await add(env, user.apiKey, { tid: withHistory, courier: 'ups', title: 'history' })).statusCode).toBe(201);
    const second = await eventually(async () => {
      const v = (await byTid())[withHistory!];
      return v?.estimatedDelivery ? v : null;
    }, 15_000);
    const e = second.estimatedDelivery as { date: string; from: string; to: string; source: string };
    expect(e.source).toBe('predicted');
    expect(e.from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(e.to).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(e.from <= e.date && e.date <= e.to).toBe(true);
    // Shipped today: three business days on.
    expect(Date.parse(e.date)).toBeGreaterThan(Date.now());
    expect(second.expected).toBeNull();
  });
});
