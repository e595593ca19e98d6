// The stalled count of issue 32 from a per-day rollup (decision 157): `open_heard_days`, the open parcels of each
// account per UTC day of `last_heard_at`, kept by the database from `trackings` in the writer's statement. The figures
// themselves are proved by performance-figures.test.ts and performance.test.ts, unchanged; this file proves what is
// kept after each kind of write (equal to a count from trackings), the count's part day, the backfill of migration
// 0029, and writers of one row at once on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/client.ts';
import * as repo from '../../src/modules/trackings/trackings.repository.ts';
import { createTestEnv, type TestEnv } from '../helpers.ts';
import { DAY, HOUR, iso, newAccount, newTracking, overlapping, scan } from '../rows-by-sql.ts';
import { ACROSS_MIGRATION_TIMEOUT_MS, acrossMigration } from '../db/across-migration.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const T0 = Date.parse('2026-10-05T08:00:00Z');
const opened = (userId: string, tid: string, status: string, createdAt: number) => newTracking(env, userId, tid, { status, createdAt });

type Day = [day: string, parcels: number];

/** The account's open_heard_days rows, and the same days counted from trackings (the backfill's count). */
async function keptAndCounted(userId: string): Promise<{ kept: Day[]; counted: Day[] }> {
  const shape = (r: unknown) => rowsOf<Record<string, unknown>>(r).map((x): Day => [String(x.day), Number(x.parcels)]);
  const kept = await env.ctx.db.execute(
    sql`select day::text as day, parcels from open_heard_days where user_id = ${userId}::uuid order by day`,
  );
  const counted = await env.ctx.db.execute(sql`
    select (last_heard_at at time zone 'UTC')::date::text as day, count(*)::int as parcels from trackings
    where user_id = ${userId}::uuid and status not in ('Delivered', 'Expired') group by 1 order by 1`);
  return { kept: shape(kept), counted: shape(counted) };
}

async function expectKept(userId: string, days: Day[]) {
  const { kept, counted } = await keptAndCounted(userId);
  expect(kept).toEqual(counted);
  expect(kept).toEqual(days);
}

describe('open_heard_days: kept by the database from trackings', () => {
  it('follows parcels added, heard of again, delivered, expired, reopened and deleted, equal to a count from trackings', async () => {
    const ua = await newAccount(env);
    const p1 = await opened(ua, 'OH1', 'Pending', T0);
    const p2 = await opened(ua, 'OH2', 'InTransit', T0 + HOUR);
    const p3 = await opened(ua, 'OH3', 'InTransit', T0 - DAY);
    // Added delivered or expired: never open, never counted.
    await opened(ua, 'OH4', 'Delivered', T0);
    await opened(ua, 'OH5', 'Expired', T0);
    await expectKept(ua, [
      ['2026-10-04', 1],
      ['2026-10-05', 2],
    ]);
    // Scans move a parcel to its newest scan's day (the summary's trigger writes last_heard_at); an older scan does not.
    await repo.insertCheckpoints(env.ctx.db, [scan(p1, 'InfoReceived', T0 + 2 * DAY), scan(p1, 'InTransit', T0 + 3 * DAY)]);
    await repo.insertCheckpoints(env.ctx.db, [scan(p1, 'InTransit', T0 + DAY)]);
    await expectKept(ua, [
      ['2026-10-04', 1],
      ['2026-10-05', 1],
      ['2026-10-08', 1],
    ]);
    // Delivered leaves the count (and its empty day goes); Expired too; back in transit comes back on its day.
    await env.ctx.db.execute(sql`update trackings set status = 'Delivered' where id = ${p3}::uuid`);
    await env.ctx.db.execute(sql`update trackings set status = 'Expired' where id = ${p2}::uuid`);
    await expectKept(ua, [['2026-10-08', 1]]);
    await env.ctx.db.execute(sql`update trackings set status = 'InTransit' where id = ${p3}::uuid`);
    await expectKept(ua, [
      ['2026-10-04', 1],
      ['2026-10-08', 1],
    ]);
    // A removed scan moves it back; a status change that keeps it open, and updates of other columns, change nothing.
    await env.ctx.db.execute(sql`delete from checkpoints where tracking_id = ${p1}::uuid and time = ${iso(T0 + 3 * DAY)}::timestamptz`);
    await env.ctx.db.execute(sql`update trackings set status = 'Exception', next_check_at = now(), failures = 2 where id = ${p1}::uuid`);
    await expectKept(ua, [
      ['2026-10-04', 1],
      ['2026-10-07', 1],
    ]);
    await env.ctx.db.execute(sql`delete from trackings where id = ${p1}::uuid`);
    await expectKept(ua, [['2026-10-04', 1]]);
  });

  it('nets a statement of many parcels per day, and follows a tracking given to another account', async () => {
    const ua = await newAccount(env);
    const ub = await newAccount(env);
    // One statement: 30 parcels over 3 days, 10 of them delivered.
    await env.ctx.db.execute(sql`
      insert into trackings (user_id, tid, courier, status, created_at, next_check_at)
      select ${ua}::uuid, 'OHM' || g, 'ups', case when g % 3 = 0 then 'Delivered' else 'InTransit' end,
        ${iso(T0)}::timestamptz - (g % 3 + g % 2) * interval '1 day', null
      from generate_series(1, 30) g`);
    await expectKept(ua, [
      ['2026-10-02', 5],
      ['2026-10-03', 10],
      ['2026-10-04', 5],
    ]);
    // One statement moving parcels between days both ways, and one that delivers some and reopens others.
    await env.ctx.db.execute(sql`
      update trackings set created_at = created_at + case when right(tid, 1)::int % 2 = 0 then interval '1 day' else -interval '1 day' end
      where user_id = ${ua}::uuid`);
    await env.ctx.db.execute(sql`
      update trackings set status = case status when 'Delivered' then 'InTransit' else 'Delivered' end
      where user_id = ${ua}::uuid and substring(tid from 4)::int <= 12`);
    const { kept, counted } = await keptAndCounted(ua);
    expect(kept).toEqual(counted);
    expect(kept.reduce((n, [, p]) => n + p, 0)).toBe(20 - 8 + 4);
    // Given to another account (nothing in the server does it): its parcels leave one account's days for the other's.
    await env.ctx.db.execute(sql`update trackings set user_id = ${ub}::uuid where user_id = ${ua}::uuid and tid in ('OHM13', 'OHM14')`);
    for (const u of [ua, ub]) {
      const r = await keptAndCounted(u);
      expect(r.kept).toEqual(r.counted);
    }
    expect((await keptAndCounted(ub)).kept).toEqual([
      ['2026-10-02', 1],
      ['2026-10-04', 1],
    ]);
  });

  it('goes with its account: deleting an account with open parcels deletes its days', async () => {
    const ua = await newAccount(env);
    await opened(ua, 'OHD1', 'InTransit', T0);
    await opened(ua, 'OHD2', 'Pending', T0 - 2 * DAY);
    await expectKept(ua, [
      ['2026-10-03', 1],
      ['2026-10-05', 1],
    ]);
    await env.ctx.db.execute(sql`delete from users where id = ${ua}::uuid`);
    expect((await keptAndCounted(ua)).kept).toEqual([]);
  });
});

describe('the stalled count from open_heard_days', () => {
  it('equals a count of the parcels for a cut-off at, after and before a UTC midnight, and leaves other accounts out', async () => {
    const ua = await newAccount(env);
    const other = await newAccount(env);
    const midnight = Date.parse('2026-10-10T00:00:00Z');
    // Open parcels heard of at midnight, just before and after it, and over the days before; a delivered one.
    const times = [midnight, midnight - 1, midnight + 1, midnight + 5 * HOUR, midnight - 3 * DAY, midnight - 9 * DAY + 7 * HOUR];
    for (const [i, t] of times.entries()) await opened(ua, `OHS${i}`, 'InTransit', t);
    await opened(ua, 'OHSD', 'Delivered', midnight - 5 * DAY);
    await opened(other, 'OHSO', 'InTransit', midnight - 5 * DAY);
    for (const cut of [midnight, midnight + 1, midnight + 2, midnight + 6 * HOUR, midnight - 1, midnight - 2 * DAY, midnight - 20 * DAY]) {
      const direct = rowsOf<{ n: number }>(
        await env.ctx.db.execute(sql`
          select count(*)::int as n from trackings where user_id = ${ua}::uuid and status not in ('Delivered', 'Expired')
            and last_heard_at < ${iso(cut)}::timestamptz`),
      )[0]!.n;
      const stalled = await repo.stalledTrackings(env.ctx.db, ua, new Date(cut), 50);
      expect({ cut: iso(cut), count: stalled.count }).toEqual({ cut: iso(cut), count: direct });
      expect(stalled.rows.length).toBe(direct);
    }
    expect((await repo.stalledTrackings(env.ctx.db, ua, new Date(midnight + 6 * HOUR), 50)).count).toBe(6);
    expect((await repo.stalledTrackings(env.ctx.db, ua, new Date(midnight), 50)).count).toBe(3);
  });

  it('counts the whole days before the cut-off from the rollup, not from the parcels', async () => {
    // The rollup is what is read: a row written by hand (which the triggers never do) shows in the count.
    const ua = await newAccount(env);
    await opened(ua, 'OHR1', 'InTransit', T0 - 5 * DAY);
    expect((await repo.stalledTrackings(env.ctx.db, ua, new Date(T0), 50)).count).toBe(1);
    await env.ctx.db.execute(sql`update open_heard_days set parcels = parcels + 1000 where user_id = ${ua}::uuid`);
    expect((await repo.stalledTrackings(env.ctx.db, ua, new Date(T0), 50)).count).toBe(1001);
    await env.ctx.db.execute(sql`update open_heard_days set parcels = parcels - 1000 where user_id = ${ua}::uuid`);
  });
});

describe('the transit statement reads indexes alone (decision 157)', () => {
  it('the whole days of a period can be answered by an index-only range of delivery_days_read_idx', async () => {
    // Whether the planner takes it on a table of a few rows depends on ties with the primary key (equal costs, the
    // visibility map), so this checks what makes the index-only range possible: the index leads with the account and
    // the day and holds every column the transit statement reads from delivery_days (at 1M rows the plan takes it:
    // decision 157).
    const [row] = rowsOf<{ def: string }>(
      await env.ctx.db.execute(sql`select indexdef as def from pg_indexes where indexname = 'delivery_days_read_idx'`),
    );
    const columns = /\(([^)]*)\)\s*$/
      .exec(row?.def ?? '')?.[1]
      ?.split(',')
      .map((c) => c.trim().replace(/"/g, ''));
    expect(columns?.slice(0, 2)).toEqual(['user_id', 'day']);
    const read = [
      'courier',
      'origin_region',
      'destination_region',
      'service',
      'transit_hour',
      'delivered',
      'promised',
      'on_time',
      'first_attempt',
    ];
    expect(new Set(columns)).toEqual(new Set(['user_id', 'day', ...read]));
  });
});

// ------------------------------------------------------------------ the migration on a database with parcels

/** Parcels stored before the rollup: open ones on two days (one with a scan), one delivered, one expired. */
const BEFORE = sql`
  with u as (
    insert into users (uid, email, api_key_hash, api_key_enc, webhook_secret, referral_code, version, user_type)
    values ('ohbf', 'open-heard-backfill@example.com', 'x', 'x', 'x', 'ohbf', '1', 'company') returning id
  ), t as (
    insert into trackings (user_id, tid, courier, status, created_at)
    select u.id, v.tid, 'ups', v.status, v.created::timestamptz from u,
      (values ('OB1', 'InTransit', '2026-09-01T10:00:00Z'), ('OB2', 'Pending', '2026-09-01T23:59:59Z'),
              ('OB3', 'InTransit', '2026-08-30T00:00:00Z'), ('OB4', 'Delivered', '2026-09-01T10:00:00Z'),
              ('OB5', 'Expired', '2026-09-01T10:00:00Z')) v(tid, status, created)
    returning id, tid
  )
  insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
  select t.id, 'InTransit', null, 'InTransit', '2026-09-03T05:00:00Z', 'x' from t where t.tid = 'OB3'`;

const KEPT = sql`select day::text as day, parcels from open_heard_days order by day`;

describe('migration 0029 on a database with parcels', () => {
  it(
    'counts the open parcels stored before it',
    async () => {
      const rows = await acrossMigration<Record<string, unknown>>('0028_courier_days_triggers', BEFORE, KEPT);
      expect(rows).toEqual([
        { day: '2026-09-01', parcels: 2 },
        { day: '2026-09-03', parcels: 1 },
      ]);
    },
    ACROSS_MIGRATION_TIMEOUT_MS,
  );
});

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

// PostgreSQL only: PGlite has one connection, so its writers never overlap.
describe.skipIf(!onPostgres)('open_heard_days under writers at once (PostgreSQL)', () => {
  const add = `insert into trackings (user_id, tid, courier, status, created_at) values ($1::uuid, $2, 'ups', 'InTransit', $3::timestamptz)`;

  it('two transactions adding parcels of the same account and day both commit, and the day counts both', async () => {
    const ua = await newAccount(env);
    await overlapping(env, [add, [ua, 'OHP1', iso(T0)]], [add, [ua, 'OHP2', iso(T0 + HOUR)]]);
    await expectKept(ua, [['2026-10-05', 2]]);
  });

  it('a parcel joining a day while another transaction empties it (the row removed) is counted in a new row', async () => {
    const ua = await newAccount(env);
    const p = await opened(ua, 'OHQ1', 'InTransit', T0);
    await overlapping(env, [`update trackings set status = 'Delivered' where id = $1::uuid`, [p]], [add, [ua, 'OHQ2', iso(T0 + HOUR)]]);
    await expectKept(ua, [['2026-10-05', 1]]);
  });
});
