// Delivery performance (issue 32): on-time rate against the carrier's first promise, first-attempt success and
// transit time by carrier, over the account's own delivered parcels, through the API on a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { MSG } from '@shiptrail/contract';
import { createTestEnv, call, signUp, type TestEnv } from '../helpers.ts';
import { userIdOf } from './fixtures.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

/** A delivered parcel: shipped `days` days before delivery, delivered `ago` days back, with its promise and scans. */
async function delivered(
  userId: string,
  tid: string,
  courier: string,
  o: { transitDays: number; agoDays: number; promisedLateByHours?: number | null; failedAttempt?: boolean },
) {
  const deliveredAt = new Date(Date.now() - o.agoDays * 86_400_000);
  const shippedAt = new Date(deliveredAt.getTime() - o.transitDays * 86_400_000);
  const promisedBy =
    o.promisedLateByHours === undefined || o.promisedLateByHours === null
      ? null
      : new Date(deliveredAt.getTime() - o.promisedLateByHours * 3_600_000);
  await env.ctx.db.execute(sql`
    with t as (
      insert into trackings (user_id, tid, courier, status, promised_by, next_check_at)
      values (${userId}::uuid, ${tid}, ${courier}, 'Delivered', ${promisedBy?.toISOString() ?? null}::timestamptz, null)
      returning id
    )
    insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
    select t.id, s.status, null, s.status, s.time::timestamptz, s.status from t,
      (values ('InfoReceived', ${shippedAt.toISOString()}),
              ('FailAttempt', ${o.failedAttempt ? new Date(deliveredAt.getTime() - 86_400_000).toISOString() : null}),
              ('Delivered', ${deliveredAt.toISOString()})) s(status, time)
    where s.time is not null`);
}

describe('GET /v1/trackings/performance', () => {
  it('counts on time against the first promise, first-attempt success and transit by carrier, for the account only', async () => {
    const a = await signUp(env.app);
    const b = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const ub = await userIdOf(env, b.email);
    await delivered(ua, 'UPS1', 'ups', { transitDays: 2, agoDays: 1, promisedLateByHours: -5 });
    await delivered(ua, 'UPS2', 'ups', { transitDays: 3, agoDays: 2, promisedLateByHours: 20, failedAttempt: true });
    await delivered(ua, 'UPS3', 'ups', { transitDays: 4, agoDays: 3 });
    await delivered(ua, 'USPS1', 'usps', { transitDays: 5, agoDays: 4, promisedLateByHours: -1 });
    // Too old for 90 days; another account's.
    await delivered(ua, 'OLD1', 'ups', { transitDays: 9, agoDays: 120, promisedLateByHours: 48 });
    await delivered(ub, 'B1', 'fedex', { transitDays: 1, agoDays: 1, promisedLateByHours: 1 });
    // Not delivered: not counted.
    await env.ctx.db.execute(sql`insert into trackings (user_id, tid, courier, status) values (${ua}::uuid, 'OPEN1', 'ups', 'InTransit')`);

    const r = await call(env.app, 'GET', '/v1/trackings/performance', { token: a.apiKey });
    expect(r.body.code).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
    expect(r.body.payload).toEqual({
      days: 90,
      from,
      to: today,
      delivered: 4,
      onTime: { count: 2, of: 3, rate: 0.667 },
      firstAttempt: { count: 3, of: 4, rate: 0.75 },
      byCarrier: [
        {
          courier: 'ups',
          delivered: 3,
          medianDays: 3,
          p90Days: 3.8,
          histogram: [0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0],
          onTime: { count: 1, of: 2, rate: 0.5 },
          firstAttempt: { count: 2, of: 3, rate: 0.667 },
        },
        {
          courier: 'usps',
          delivered: 1,
          medianDays: 5,
          p90Days: 5,
          histogram: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0],
          onTime: { count: 1, of: 1, rate: 1 },
          firstAttempt: { count: 1, of: 1, rate: 1 },
        },
      ],
      lanes: [],
      // No service known for these parcels: one row a carrier, service null (decision 158).
      byService: [
        {
          courier: 'ups',
          service: null,
          delivered: 3,
          medianDays: 3,
          p90Days: 3.8,
          histogram: [0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0],
          onTime: { count: 1, of: 2, rate: 0.5 },
        },
        {
          courier: 'usps',
          service: null,
          delivered: 1,
          medianDays: 5,
          p90Days: 5,
          histogram: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0],
          onTime: { count: 1, of: 1, rate: 1 },
        },
      ],
      exceptions: { count: 0, parcels: 0, causes: [] },
      stalled: { days: 3, count: 0, parcels: [] },
      couriers: [],
    });
    const year = await call(env.app, 'GET', '/v1/trackings/performance?days=365', { token: a.apiKey });
    expect(year.body.payload.delivered).toBe(5);
    const other = await call(env.app, 'GET', '/v1/trackings/performance', { token: b.apiKey });
    expect(other.body.payload).toMatchObject({ delivered: 1, onTime: { count: 0, of: 1, rate: 0 } });
  });

  it('nothing delivered: zeros and null rates; a bad number of days is a 400 with the message; no token is a 401', async () => {
    const a = await signUp(env.app);
    const r = await call(env.app, 'GET', '/v1/trackings/performance', { token: a.apiKey });
    expect(r.body.payload).toEqual({
      days: 90,
      from: expect.any(String),
      to: expect.any(String),
      delivered: 0,
      onTime: { count: 0, of: 0, rate: null },
      firstAttempt: { count: 0, of: 0, rate: null },
      byCarrier: [],
      lanes: [],
      byService: [],
      exceptions: { count: 0, parcels: 0, causes: [] },
      stalled: { days: 3, count: 0, parcels: [] },
      couriers: [],
    });
    for (const days of ['0', '366', 'abc', '1.5']) {
      const bad = await call(env.app, 'GET', `/v1/trackings/performance?days=${days}`, { token: a.apiKey });
      expect([bad.body.code, bad.body.message], days).toEqual([400, MSG.performanceDays]);
    }
    expect((await call(env.app, 'GET', '/v1/trackings/performance')).body.code).toBe(401);
  });
});
