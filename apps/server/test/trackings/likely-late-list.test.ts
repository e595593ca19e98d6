// likelyLate in the list page built by the database (repo.listPageJson) is the one views.ts builds from the same row
// (decision 151): from the carrier, from our history with its usual days, and none for a predicted estimate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desc, eq, sql } from 'drizzle-orm';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { trackings } from '../../src/db/schema.ts';
import { likelyLateForRecipient } from '@shiptrail/contract';
import { trackingView } from '../../src/modules/trackings/views.ts';
import { list, userIdOf } from './fixtures.ts';

const carrierEst =
  '{"date":"2026-12-01","from":"2026-12-01T10:00:00-05:00","to":"2026-12-01T14:00:00-05:00","source":"carrier","updatedAt":"x"}';
const predictedEst = '{"date":"2026-12-01","from":"2026-11-30","to":"2026-12-02","source":"predicted","updatedAt":"x"}';

describe('likelyLate in the list', () => {
  let env: TestEnv;
  let a: Awaited<ReturnType<typeof signUp>>;
  let userId: string;
  beforeAll(async () => {
    env = await createTestEnv();
    a = await signUp(env.app);
    userId = await userIdOf(env, a.email);
    const row = (tid: string, est: string | null, lateFor: string | null, minutes: number) =>
      sql`(${userId}::uuid, ${tid}, 'ups', 'InTransit', ${est}::jsonb, ${lateFor}::text, now() - (${minutes} || ' minutes')::interval, now())`;
    await env.ctx.db.execute(sql`
      insert into trackings (user_id, tid, courier, status, estimated_delivery, late_for, created_at, updated_at)
      values ${sql.join(
        [
          row('CARRIER', carrierEst, '2026-12-01|2026-12-01T14:00:00-05:00', 1),
          row('HISTORY', carrierEst, '2026-12-01|2026-12-01T14:00:00-05:00|history|21', 2),
          row('PREDICTED', predictedEst, '2026-12-01|2026-12-01T14:00:00-05:00|history|21', 3),
          row('ODD', carrierEst, '2026-12-01||history|', 4),
          row('ONTIME', carrierEst, null, 5),
          row('NONE', null, '2026-12-01|', 6),
        ],
        sql`, `,
      )}`);
  });
  afterAll(() => env.close());

  it('is the view built in JS, with its source and usual days', async () => {
    const r = await list(env, a.session, '?numRecords=100');
    expect(r.statusCode).toBe(200);
    const rows = await env.ctx.db.select().from(trackings).where(eq(trackings.userId, userId)).orderBy(desc(trackings.createdAt));
    const want = rows.map((t) => trackingView(t, [], a.profile.uid, true));
    expect(r.body.payload).toEqual(JSON.parse(JSON.stringify(want)));
    const late = Object.fromEntries(r.body.payload.map((t: { tid: string; likelyLate: unknown }) => [t.tid, t.likelyLate]));
    expect(late).toEqual({
      CARRIER: { source: 'carrier', usualDays: null },
      HISTORY: { source: 'history', usualDays: 21 },
      PREDICTED: null,
      ODD: { source: 'history', usualDays: null },
      ONTIME: null,
      NONE: null,
    });
  });

  it('the public page of a parcel carries the same likelyLate, and says it to the recipient (decision 152)', async () => {
    const late: Record<string, unknown> = {};
    for (const tid of ['CARRIER', 'HISTORY', 'PREDICTED', 'ONTIME']) {
      const r = await call(env.app, 'GET', `/v1/track/${a.profile.uid}_${tid}`);
      expect(r.statusCode).toBe(200);
      late[tid] = r.body.payload[0].likelyLate;
    }
    expect(late).toEqual({
      CARRIER: { source: 'carrier', usualDays: null },
      HISTORY: { source: 'history', usualDays: 21 },
      PREDICTED: null,
      ONTIME: null,
    });
    expect(likelyLateForRecipient({ source: 'history', usualDays: 21 })).toEqual({
      title: 'Likely to arrive late',
      detail: "Parcels like this one usually take 21 days to arrive, so it may come after the carrier's date.",
    });
    expect(likelyLateForRecipient({ source: 'carrier', usualDays: null })?.title).toBe('Running late');
    expect(likelyLateForRecipient(null)).toBeNull();
  });
});
