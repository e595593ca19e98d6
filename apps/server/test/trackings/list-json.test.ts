// The list page is built as JSON by the database in one statement (repo.listPageJson). It must be exactly the
// TrackingView that views.ts builds from the same rows: same fields, formats (ISO-8601 UTC, milliseconds),
// nulls, order and sandbox flags. This compares the two over rows made to hit every branch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desc, eq, inArray, sql } from 'drizzle-orm';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { checkpoints, trackings } from '../../src/db/schema.ts';
import { trackingView } from '../../src/modules/trackings/views.ts';
import { add, list, userIdOf } from './fixtures.ts';

describe('the list page built by the database', () => {
  let env: TestEnv;
  let a: Awaited<ReturnType<typeof signUp>>;
  let userId: string;
  beforeAll(async () => {
    // Canada Post with credentials (pointing nowhere): its trackings are not sandbox ones.
    env = await createTestEnv({ CANADAPOST_BASE_URL: 'http://127.0.0.1:9', CANADAPOST_USERNAME: 'u', CANADAPOST_PASSWORD: 'p' });
    a = await signUp(env.app);
    userId = await userIdOf(env, a.email);
    for (const [tid, courier] of [
      ['1Z5R89390350075608', 'ups'],
      ['9400111206206406260015', 'usps'],
      ['986578788800', 'fedex'],
      ['0073938000549204', 'canadapost'],
    ]) {
      expect(
        (
          await add(env, a.session, {
            tid,
            courier,
            title: 'Gift "for" Ada\u00e9',
            customer: 'Ada',
            notify: { email: 'ada@example.com', phone: '+12135550101' },
          })
        ).statusCode,
      ).toBe(201);
    }
    // Rows the API would not make on its own: microsecond times, an expected date, a stored newest
    // checkpoint with a null location, text with quotes, newlines and non-ASCII, and many checkpoints.
    await env.ctx.db.execute(sql`
      insert into trackings (user_id, tid, courier, status, origin, destination, expected, last_checkpoint, note, created_at, updated_at)
      values (${userId}::uuid, 'RAW1', 'ups', 'InTransit', 'Memphis, TN', 'Montréal, QC', '2026-12-01 17:30:00.123456+00',
              '{"status":"InTransit","location":null,"message":"Départ \\"hub\\"","time":"2026-11-20T10:00:00.000Z"}'::jsonb,
              e'line one\\nline two', now() - interval '1 hour' + interval '0.000789 second', '2026-11-20 10:00:00.999999+00'),
             (${userId}::uuid, 'RAW2', 'fedex', 'Pending', '', '', null, null, '', now() - interval '2 hours', now() - interval '2 hours')`);
    const [raw1] = await env.ctx.db.select({ id: trackings.id }).from(trackings).where(eq(trackings.tid, 'RAW1'));
    await env.ctx.db.execute(sql`
      insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
      select ${raw1!.id}::uuid, 'InTransit', case when k % 2 = 0 then null else 'Memphis, TN' end, 'Arrived ' || k, '2026-11-19 08:00:00.123456+00'::timestamptz + (k || ' minutes')::interval, 'fp' || k
      from generate_series(1, 12) k`);
  });
  afterAll(() => env.close());

  async function expected(tids?: string[]) {
    const rows = await env.ctx.db
      .select()
      .from(trackings)
      .where(tids ? inArray(trackings.tid, tids) : eq(trackings.userId, userId))
      .orderBy(desc(trackings.createdAt), desc(trackings.id));
    const cps = await env.ctx.db.select().from(checkpoints).orderBy(desc(checkpoints.time), desc(checkpoints.id));
    return rows.map((r) =>
      trackingView(
        r,
        cps.filter((c) => c.trackingId === r.id),
        a.profile.uid,
        r.courier !== 'canadapost',
      ),
    );
  }

  it('is the same JSON as the view built in JS, for every row', async () => {
    const r = await list(env, a.session, '?numRecords=100');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.body).toMatchObject({ code: 200, status: 'success', message: 'OK' });
    const want = await expected();
    expect(want).toHaveLength(6);
    expect(r.body.payload).toEqual(JSON.parse(JSON.stringify(want)));
    const raw1 = r.body.payload.find((t: { tid: string }) => t.tid === 'RAW1');
    expect(raw1.expected).toBe('2026-12-01T17:30:00.123Z');
    expect(raw1.updatedAt).toBe('2026-11-20T10:00:00.999Z');
    expect(raw1.checkpoints).toHaveLength(12);
    expect(raw1.checkpoints[0]).toEqual({ status: 'InTransit', location: null, message: 'Arrived 12', time: '2026-11-19T08:12:00.123Z' });
  });

  it('filters and pages like before, and refuses an unknown cursor with the same message', async () => {
    const first = await list(env, a.session, '?numRecords=2');
    expect(first.body.payload.map((t: { tid: string }) => t.tid)).toEqual((await expected()).slice(0, 2).map((t) => t.tid));
    const next = await list(env, a.session, `?numRecords=2&lastTid=${first.body.payload[1].tid}`);
    expect(next.body.payload).toEqual(JSON.parse(JSON.stringify((await expected()).slice(2, 4))));
    const fedex = await list(env, a.session, '?courier=fedex&status=Pending');
    expect(fedex.body.payload).toEqual(
      JSON.parse(JSON.stringify((await expected()).filter((t) => t.courier === 'fedex' && t.status === 'Pending'))),
    );
    expect(fedex.body.payload.every((t: { courier: string; status: string }) => t.courier === 'fedex' && t.status === 'Pending')).toBe(
      true,
    );
    expect(fedex.body.payload.some((t: { tid: string }) => t.tid === 'RAW2')).toBe(true);
    const bad = await list(env, a.session, '?lastTid=NOPE123');
    expect(bad.statusCode).toBe(400);
    expect(bad.body.message).toBe('lastTid is not one of your trackings (was it deleted?): start again without lastTid');
    const empty = await list(env, (await signUp(env.app)).session);
    expect(empty.body.payload).toEqual([]);
  });
});
