// The delivery summary of each tracking (decision 136): first, newest and delivery scan, failed attempt and the span of
// its exception scans, kept by the database whenever scans are written, and backfilled for trackings stored before
// migration 0020. The delivery performance figures read it (performance*.test.ts prove the figures unchanged).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client.ts';
import * as repo from '../../src/modules/trackings/trackings.repository.ts';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { userIdOf } from './fixtures.ts';
import { DAY, newTracking, scan } from '../rows-by-sql.ts';
import { ACROSS_MIGRATION_TIMEOUT_MS, acrossMigration } from '../db/across-migration.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const at = (ms: number) => new Date(ms);

type Summary = {
  first_scan_at: Date | null;
  newest_scan_at: Date | null;
  delivered_at: Date | null;
  failed_attempt: boolean;
  first_exception_at: Date | null;
  last_exception_at: Date | null;
  origin_region: string;
  destination_region: string;
  version: string;
};

async function summaryOf(id: string): Promise<Summary> {
  const r = await env.ctx.db.execute(sql`
    select first_scan_at, newest_scan_at, delivered_at, failed_attempt, first_exception_at, last_exception_at,
      origin_region, destination_region, xmin::text as version
    from trackings where id = ${id}::uuid`);
  const row = rowsOf<Record<string, unknown>>(r)[0]!;
  const time = (v: unknown) => (v === null ? null : new Date(v as string));
  return {
    first_scan_at: time(row.first_scan_at),
    newest_scan_at: time(row.newest_scan_at),
    delivered_at: time(row.delivered_at),
    failed_attempt: row.failed_attempt as boolean,
    first_exception_at: time(row.first_exception_at),
    last_exception_at: time(row.last_exception_at),
    origin_region: String(row.origin_region),
    destination_region: String(row.destination_region),
    version: String(row.version),
  };
}

const lane = { origin: 'Memphis, TN 38118', destination: 'Toronto, ON M5V 2T6, CA' };
const opened = (userId: string, tid: string, status: string, createdAt = Date.now()) =>
  newTracking(env, userId, tid, { status, createdAt, ...lane });

describe('the delivery summary of a tracking', () => {
  it('is kept from the scans: out of order, re-stored, a failed attempt and exceptions, in the batch path', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const id = await opened(ua, 'SUM1', 'Delivered');
    const other = await opened(ua, 'SUM2', 'InTransit');
    const t0 = Date.parse('2026-10-01T08:00:00Z');
    let s = await summaryOf(id);
    expect(s).toMatchObject({ first_scan_at: null, newest_scan_at: null, delivered_at: null, failed_attempt: false });
    // The lane's regions come from the places (decision 133's rule).
    expect([s.origin_region, s.destination_region]).toEqual(['TN', 'ON']);

    // The newest scans first (a pushed delivery before the poll's history), with another tracking in the same statement.
    const late = [scan(id, 'Delivered', t0 + 3 * DAY), scan(id, 'InTransit', t0 + DAY), scan(other, 'InTransit', t0 + 2 * DAY)];
    expect(Object.fromEntries(await repo.insertCheckpointsCounted(env.ctx.db, late))).toEqual({ [id]: 2, [other]: 1 });
    s = await summaryOf(id);
    expect(s).toMatchObject({ first_scan_at: at(t0 + DAY), newest_scan_at: at(t0 + 3 * DAY), delivered_at: at(t0 + 3 * DAY) });
    expect((await summaryOf(other)).newest_scan_at).toEqual(at(t0 + 2 * DAY));

    // Then the older ones: first becomes the oldest, newest stays, the failed attempt and the exception count.
    const early = [
      scan(id, 'InfoReceived', t0),
      scan(id, 'Exception', t0 + 1.5 * DAY, 'Weather delay'),
      scan(id, 'Exception', t0 + 0.5 * DAY, 'Address incorrect'),
      scan(id, 'FailAttempt', t0 + 2.5 * DAY),
    ];
    expect(await repo.insertCheckpoints(env.ctx.db, early)).toBe(4);
    s = await summaryOf(id);
    const expected = {
      first_scan_at: at(t0),
      newest_scan_at: at(t0 + 3 * DAY),
      delivered_at: at(t0 + 3 * DAY),
      failed_attempt: true,
      first_exception_at: at(t0 + 0.5 * DAY),
      last_exception_at: at(t0 + 1.5 * DAY),
    };
    expect(s).toMatchObject(expected);

    // The same scans stored again (a re-fetch): nothing is new, the summary is the same and the row is not even rewritten.
    expect(await repo.insertCheckpointsCounted(env.ctx.db, [...late, ...early])).toEqual(new Map());
    const again = await summaryOf(id);
    expect(again).toMatchObject(expected);
    expect(again.version).toBe(s.version);

    // A second delivery scan (a redelivery): the delivery is the newest one; an older one changes nothing.
    await repo.insertCheckpoints(env.ctx.db, [scan(id, 'Delivered', t0 + 4 * DAY, 'Redelivered')]);
    await repo.insertCheckpoints(env.ctx.db, [scan(id, 'Delivered', t0 + 2 * DAY, 'Delivered early?')]);
    expect(await summaryOf(id)).toMatchObject({ ...expected, newest_scan_at: at(t0 + 4 * DAY), delivered_at: at(t0 + 4 * DAY) });
  });

  it('follows a status going back: a delivered parcel moved to another carrier leaves the figures and counts as stalled', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const added = Date.now() - 10 * DAY;
    const id = await opened(ua, 'SUMBACK1', 'Delivered', added);
    const deliveredAt = Date.now() - 2 * DAY;
    await repo.insertCheckpoints(env.ctx.db, [scan(id, 'InfoReceived', deliveredAt - 2 * DAY), scan(id, 'Delivered', deliveredAt)]);
    const before = await call(env.app, 'GET', '/v1/trackings/performance?days=7', { token: a.apiKey });
    expect(before.body.payload).toMatchObject({ delivered: 1, stalled: { count: 0 } });

    // The account says the number was another carrier's: the scans go, the status is back to Pending (the refresh
    // engine itself never moves a Delivered parcel: it is final).
    const r = await call(env.app, 'PUT', '/v1/trackings/update', { token: a.apiKey, body: { tid: 'SUMBACK1', courier: 'usps' } });
    expect(r.statusCode).toBe(200);
    expect(await summaryOf(id)).toMatchObject({ first_scan_at: null, newest_scan_at: null, delivered_at: null, failed_attempt: false });
    const after = await call(env.app, 'GET', '/v1/trackings/performance?days=7', { token: a.apiKey });
    expect(after.body.payload).toMatchObject({ delivered: 0, stalled: { count: 1, parcels: [{ tid: 'SUMBACK1', lastScanAt: null }] } });
  });

  it('is recomputed when some scans are removed', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const id = await opened(ua, 'SUMDEL1', 'InTransit');
    const t0 = Date.parse('2026-10-05T08:00:00Z');
    await repo.insertCheckpoints(env.ctx.db, [
      scan(id, 'InfoReceived', t0),
      scan(id, 'FailAttempt', t0 + DAY),
      scan(id, 'Exception', t0 + 2 * DAY),
      scan(id, 'InTransit', t0 + 3 * DAY),
    ]);
    await env.ctx.db.execute(sql`delete from checkpoints where tracking_id = ${id}::uuid and status in ('FailAttempt', 'InTransit')`);
    expect(await summaryOf(id)).toMatchObject({
      first_scan_at: at(t0),
      newest_scan_at: at(t0 + 2 * DAY),
      failed_attempt: false,
      first_exception_at: at(t0 + 2 * DAY),
      last_exception_at: at(t0 + 2 * DAY),
    });
  });
});

// ------------------------------------------------------------------ the backfill

/** A copy of the migrations up to and including `lastTag`: the database as it was before the summary. */

/** Rows stored before the summary existed: a delivered parcel, one with an exception, one with no scan. */
const BEFORE = sql`
  with u as (
    insert into users (uid, email, api_key_hash, api_key_enc, webhook_secret, referral_code, version, user_type)
    values ('sumbf', 'summary-backfill@example.com', 'x', 'x', 'x', 'sumbf', '1', 'company') returning id
  ), t as (
    insert into trackings (user_id, tid, courier, status, origin, destination)
    select u.id, v.tid, 'ups', v.status, 'Austin, TX 78701', 'Lyon, FR' from u,
      (values ('BF1', 'Delivered'), ('BF2', 'Exception'), ('BF3', 'Pending')) v(tid, status)
    returning id, tid
  )
  insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
  select t.id, s.status, null, s.status, s.time::timestamptz, s.status || s.time from t join (values
    ('BF1', 'InfoReceived', '2026-09-01T10:00:00Z'), ('BF1', 'FailAttempt', '2026-09-03T10:00:00Z'),
    ('BF1', 'Delivered', '2026-09-04T10:00:00Z'), ('BF1', 'InTransit', '2026-09-02T10:00:00Z'),
    ('BF2', 'InfoReceived', '2026-09-05T10:00:00Z'), ('BF2', 'Exception', '2026-09-06T10:00:00Z'),
    ('BF2', 'Exception', '2026-09-08T10:00:00Z')) s(tid, status, time) on s.tid = t.tid`;

const SUMMARIES = sql`
  select tid, first_scan_at, newest_scan_at, delivered_at, failed_attempt, first_exception_at, last_exception_at,
    origin_region, destination_region
  from trackings order by tid`;

function expectBackfilled(rows: Array<Record<string, unknown>>) {
  const time = (v: unknown) => (v === null ? null : new Date(v as string).toISOString());
  expect(
    rows.map((r) => [
      r.tid,
      time(r.first_scan_at),
      time(r.newest_scan_at),
      time(r.delivered_at),
      r.failed_attempt,
      time(r.first_exception_at),
      time(r.last_exception_at),
      r.origin_region,
      r.destination_region,
    ]),
  ).toEqual([
    ['BF1', '2026-09-01T10:00:00.000Z', '2026-09-04T10:00:00.000Z', '2026-09-04T10:00:00.000Z', true, null, null, 'TX', 'FR'],
    [
      'BF2',
      '2026-09-05T10:00:00.000Z',
      '2026-09-08T10:00:00.000Z',
      null,
      false,
      '2026-09-06T10:00:00.000Z',
      '2026-09-08T10:00:00.000Z',
      'TX',
      'FR',
    ],
    ['BF3', null, null, null, false, null, null, 'TX', 'FR'],
  ]);
}

describe('the delivery summary backfill (migration 0020)', () => {
  it(
    'gives the trackings stored before the migration their summary',
    async () => {
      expectBackfilled(await acrossMigration('0017_courier_approach', BEFORE, SUMMARIES));
    },
    ACROSS_MIGRATION_TIMEOUT_MS,
  );
});
