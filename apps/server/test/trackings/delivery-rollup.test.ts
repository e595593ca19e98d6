// The last figures of issue 32 at 1M trackings (decision 142): the stalled parcels counted from a plain
// `last_heard_at` column (an index-only scan), and the transit figures of long periods from a daily rollup kept by
// the database beside the delivery summary (decision 136). The figures themselves are proved by
// performance*.test.ts, unchanged; this file proves what is kept and how it is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/client.ts';
import * as repo from '../../src/modules/trackings/trackings.repository.ts';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { userIdOf } from './fixtures.ts';
import { DAY, HOUR, iso, newTracking, scan } from '../rows-by-sql.ts';
import { ACROSS_MIGRATION_TIMEOUT_MS, acrossMigration } from '../db/across-migration.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const MEMPHIS_TORONTO: [string, string] = ['Memphis, TN 38118', 'Toronto, ON M5V 2T6, CA'];
const opened = (
  userId: string,
  tid: string,
  status: string,
  createdAt: number,
  courier = 'ups',
  [origin, destination] = MEMPHIS_TORONTO,
  promisedBy: number | null = null,
) => newTracking(env, userId, tid, { status, createdAt, courier, origin, destination, promisedBy });

async function lastHeardOf(id: string): Promise<string> {
  const r = await env.ctx.db.execute(sql`select last_heard_at from trackings where id = ${id}::uuid`);
  return new Date(rowsOf<{ last_heard_at: string }>(r)[0]!.last_heard_at).toISOString();
}

describe('stalled parcels: last_heard_at', () => {
  it('is the newest scan, else the adding, kept by the database as scans come and go', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const added = Date.parse('2026-10-01T08:00:00Z');
    const id = await opened(ua, 'LH1', 'InTransit', added);
    expect(await lastHeardOf(id)).toBe(iso(added));
    await repo.insertCheckpoints(env.ctx.db, [scan(id, 'InfoReceived', added + DAY), scan(id, 'InTransit', added + 3 * DAY)]);
    expect(await lastHeardOf(id)).toBe(iso(added + 3 * DAY));
    // An older scan arriving late changes nothing; removing the newest goes back to the one before.
    await repo.insertCheckpoints(env.ctx.db, [scan(id, 'InTransit', added + 2 * DAY)]);
    expect(await lastHeardOf(id)).toBe(iso(added + 3 * DAY));
    await env.ctx.db.execute(sql`delete from checkpoints where tracking_id = ${id}::uuid and time = ${iso(added + 3 * DAY)}::timestamptz`);
    expect(await lastHeardOf(id)).toBe(iso(added + 2 * DAY));
    await repo.deleteCheckpoints(env.ctx.db, id);
    expect(await lastHeardOf(id)).toBe(iso(added));
  });

  it('the count of an account’s stalled parcels can be answered by an index-only scan (no heap page per parcel)', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    for (let i = 0; i < 5; i++) await opened(ua, `LHC${i}`, 'InTransit', Date.now() - (10 + i) * DAY);
    const plan = await env.ctx.db.transaction(async (tx) => {
      // Only the index paths: the question is whether the index alone can answer, not what a tiny table prefers.
      await tx.execute(sql`set local enable_seqscan = off`);
      await tx.execute(sql`set local enable_bitmapscan = off`);
      const r = await tx.execute(sql`
        explain (format json) select count(*) from trackings t
        where t.user_id = ${ua}::uuid and t.status not in ('Delivered', 'Expired') and t.last_heard_at < ${iso(Date.now() - 3 * DAY)}::timestamptz`);
      return JSON.stringify(rowsOf<Record<string, unknown>>(r));
    });
    expect(plan).toContain('Index Only Scan');
    expect(plan).toContain('trackings_user_open_heard_idx');
    expect((await repo.stalledTrackings(env.ctx.db, ua, new Date(Date.now() - 3 * DAY), 50)).count).toBe(5);
  });
});

/** delivery_days as kept by the triggers, and as computed again from trackings (the migration's backfill query). */
async function rollupAndRecount(userId: string) {
  const kept = await env.ctx.db.execute(sql`
    select day::text, courier, origin_region, destination_region, transit_hour, delivered, promised, on_time, first_attempt
    from delivery_days where user_id = ${userId}::uuid order by 1, 2, 3, 4, 5`);
  const recount = await env.ctx.db.execute(sql`
    select (t.delivered_at at time zone 'UTC')::date::text as day, t.courier, t.origin_region, t.destination_region,
      coalesce(floor(date_part('epoch', t.delivered_at - t.first_scan_at) / 3600)::int, -1) as transit_hour,
      count(*)::int as delivered, (count(*) filter (where t.promised_by is not null))::int as promised,
      (count(*) filter (where t.delivered_at <= t.promised_by))::int as on_time,
      (count(*) filter (where not t.failed_attempt))::int as first_attempt
    from trackings t where t.user_id = ${userId}::uuid and t.status = 'Delivered' and t.delivered_at is not null
    group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`);
  return { kept: rowsOf<Record<string, unknown>>(kept), recount: rowsOf<Record<string, unknown>>(recount) };
}

describe('the transit figures of long periods: the delivery_days rollup', () => {
  it('is kept by the database as parcels are delivered, redelivered, go back, change carrier or lane, or are deleted', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const t0 = Date.parse('2026-10-05T08:00:00Z');
    const p1 = await opened(ua, 'RU1', 'InTransit', t0, 'ups', ['Memphis, TN 38118', 'Austin, TX 78701'], t0 + 3 * DAY);
    const p2 = await opened(ua, 'RU2', 'InTransit', t0);
    const p3 = await opened(ua, 'RU3', 'InTransit', t0, 'fedex');
    await repo.insertCheckpoints(env.ctx.db, [scan(p1, 'InfoReceived', t0), scan(p1, 'Delivered', t0 + 2 * DAY + 5 * HOUR)]);
    await repo.insertCheckpoints(env.ctx.db, [
      scan(p2, 'InfoReceived', t0 + HOUR),
      scan(p2, 'FailAttempt', t0 + DAY),
      scan(p2, 'Delivered', t0 + 2 * DAY + 5 * HOUR),
    ]);
    await repo.insertCheckpoints(env.ctx.db, [scan(p3, 'InfoReceived', t0), scan(p3, 'Delivered', t0 + 4 * DAY)]);
    // Scans first, status after (as the refresh engine writes them): nothing counts before the status says Delivered.
    expect((await rollupAndRecount(ua)).kept).toEqual([]);
    await env.ctx.db.execute(sql`update trackings set status = 'Delivered' where user_id = ${ua}::uuid`);
    let r = await rollupAndRecount(ua);
    expect(r.kept).toEqual(r.recount);
    expect(r.kept).toEqual([
      {
        day: '2026-10-07',
        courier: 'ups',
        origin_region: 'TN',
        destination_region: 'ON',
        transit_hour: 52,
        delivered: 1,
        promised: 0,
        on_time: 0,
        first_attempt: 0,
      },
      {
        day: '2026-10-07',
        courier: 'ups',
        origin_region: 'TN',
        destination_region: 'TX',
        transit_hour: 53,
        delivered: 1,
        promised: 1,
        on_time: 1,
        first_attempt: 1,
      },
      {
        day: '2026-10-09',
        courier: 'fedex',
        origin_region: 'TN',
        destination_region: 'ON',
        transit_hour: 96,
        delivered: 1,
        promised: 0,
        on_time: 0,
        first_attempt: 1,
      },
    ]);
    // A redelivery moves the parcel to its newest delivery scan's day and hour; a promise moved before it makes it late.
    await repo.insertCheckpoints(env.ctx.db, [scan(p1, 'Delivered', t0 + 3 * DAY + 2 * HOUR)]);
    // Another lane, another carrier, a status going back, a deleted parcel.
    await env.ctx.db.execute(sql`update trackings set destination = 'Lyon, FR' where id = ${p2}::uuid`);
    await env.ctx.db.execute(sql`update trackings set status = 'InTransit' where id = ${p3}::uuid`);
    r = await rollupAndRecount(ua);
    expect(r.kept).toEqual(r.recount);
    expect(r.kept.map((x) => [x.day, x.destination_region, x.transit_hour, x.on_time])).toEqual([
      ['2026-10-07', 'FR', 52, 0],
      ['2026-10-08', 'TX', 74, 0],
    ]);
    await env.ctx.db.execute(sql`update trackings set courier = 'usps' where id = ${p1}::uuid`);
    await env.ctx.db.execute(sql`delete from trackings where id = ${p2}::uuid`);
    r = await rollupAndRecount(ua);
    expect(r.kept).toEqual(r.recount);
    expect(r.kept.map((x) => [x.courier, x.delivered])).toEqual([['usps', 1]]);
  });

  it('gives the exact counts, histogram and order of the exact statement, and percentiles within the hour', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const now = Date.now();
    const lanes: Array<[string, string]> = [
      ['Memphis, TN 38118', 'Austin, TX 78701'],
      ['Toronto, ON M5V 2T6', 'Boston, MA'],
      ['Reno, NV', 'Miami, FL'],
    ];
    // 60 parcels over 20 days, three carriers and three lanes, transits from 7 hours to 11 days, some promised.
    for (let i = 0; i < 60; i++) {
      const deliveredAt = now - (i % 20) * DAY - (i % 9) * HOUR - 1_000 * i;
      const transit = (7 + ((i * 37) % 260)) * HOUR + i * 61_000;
      const id = await opened(
        ua,
        `RX${i}`,
        'InTransit',
        deliveredAt - transit,
        ['ups', 'fedex', 'usps'][i % 3]!,
        lanes[i % 3 === 0 ? i % 2 : 2]!,
        i % 4 === 0 ? deliveredAt + (i % 8 === 0 ? HOUR : -HOUR) : null,
      );
      await repo.insertCheckpoints(env.ctx.db, [
        scan(id, 'InfoReceived', deliveredAt - transit),
        ...(i % 5 === 0 ? [scan(id, 'FailAttempt', deliveredAt - HOUR)] : []),
        scan(id, 'Delivered', deliveredAt),
      ]);
    }
    await env.ctx.db.execute(sql`update trackings set status = 'Delivered' where user_id = ${ua}::uuid`);
    // Bounds inside a day at both ends (a period in an account's time zone), and one within a day.
    for (const [from, to] of [
      [now - 15.3 * DAY, now + HOUR],
      [now - 30 * DAY, now - 2.6 * DAY],
      [now - 5.2 * DAY, now - 4.9 * DAY],
    ] as const) {
      const exact = await repo.exactPerformanceByCarrier(env.ctx.db, ua, new Date(from), new Date(to));
      const rolled = await repo.performanceByCarrier(env.ctx.db, ua, new Date(from), new Date(to), 0);
      expect(exact.length).toBeGreaterThan(0);
      const strip = (rows: repo.TransitRow[]) => rows.map(({ p50Seconds: _a, p90Seconds: _b, ...rest }) => rest);
      expect(strip(rolled)).toEqual(strip(exact));
      for (const [i, e] of exact.entries()) {
        expect(Math.abs(rolled[i]!.p50Seconds! - e.p50Seconds!)).toBeLessThanOrEqual(3600);
        expect(Math.abs(rolled[i]!.p90Seconds! - e.p90Seconds!)).toBeLessThanOrEqual(3600);
      }
      // Under the limit, the figures are the exact ones.
      expect(await repo.performanceByCarrier(env.ctx.db, ua, new Date(from), new Date(to))).toEqual(exact);
    }
  });

  it('percentiles from whole hours: as percentile_cont, each time placed evenly inside its hour', () => {
    expect(repo.percentileOfHours(new Map(), 0.5)).toBeNull();
    expect(repo.percentileOfHours(new Map([[-1, 3]]), 0.5)).toBeNull();
    // One parcel in hour 10: the middle of the hour.
    expect(repo.percentileOfHours(new Map([[10, 1]]), 0.5)).toBe(10.5 * 3600);
    // Hours 1 (2 parcels) and 5 (2 parcels): the ranks are 1.25, 1.75, 5.25, 5.75 hours; the median is between 1.75 and 5.25.
    expect(
      repo.percentileOfHours(
        new Map([
          [5, 2],
          [1, 2],
        ]),
        0.5,
      ),
    ).toBe(3.5 * 3600);
    expect(
      repo.percentileOfHours(
        new Map([
          [5, 2],
          [1, 2],
        ]),
        0.9,
      ),
    ).toBeCloseTo((5.25 + 0.7 * 0.5) * 3600, 6);
  });
});

// ------------------------------------------------------------------ the migrations on a database with parcels

/** A copy of the migrations up to and including `lastTag`. */

/** Parcels stored before the rollup: two delivered the same day and hour, one with a promise, one late, one open. */
const BEFORE = sql`
  with u as (
    insert into users (uid, email, api_key_hash, api_key_enc, webhook_secret, referral_code, version, user_type)
    values ('rubf', 'rollup-backfill@example.com', 'x', 'x', 'x', 'rubf', '1', 'company') returning id
  ), t as (
    insert into trackings (user_id, tid, courier, status, origin, destination, promised_by, created_at)
    select u.id, v.tid, 'ups', v.status, 'Austin, TX 78701', 'Lyon, FR', v.promised::timestamptz, '2026-08-30T00:00:00Z' from u,
      (values ('RB1', 'Delivered', '2026-09-05T00:00:00Z'), ('RB2', 'Delivered', '2026-09-03T00:00:00Z'),
              ('RB3', 'InTransit', null)) v(tid, status, promised)
    returning id, tid
  )
  insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
  select t.id, s.status, null, s.status, s.time::timestamptz, s.status || s.time from t join (values
    ('RB1', 'InfoReceived', '2026-09-01T10:00:00Z'), ('RB1', 'Delivered', '2026-09-04T10:30:00Z'),
    ('RB2', 'InfoReceived', '2026-09-01T10:10:00Z'), ('RB2', 'FailAttempt', '2026-09-03T10:00:00Z'),
    ('RB2', 'Delivered', '2026-09-04T10:50:00Z'), ('RB3', 'InfoReceived', '2026-09-01T10:00:00Z')) s(tid, status, time)
  on s.tid = t.tid`;

const ROLLUP = sql`
  select t.tid, t.last_heard_at, d.day::text, d.transit_hour, d.delivered, d.promised, d.on_time, d.first_attempt
  from trackings t left join delivery_days d on d.user_id = t.user_id and t.status = 'Delivered'
  order by t.tid`;

function expectBackfilled(rows: Array<Record<string, unknown>>) {
  expect(
    rows.map((r) => [
      r.tid,
      new Date(r.last_heard_at as string).toISOString(),
      r.day,
      r.transit_hour,
      r.delivered,
      r.promised,
      r.on_time,
      r.first_attempt,
    ]),
  ).toEqual([
    ['RB1', '2026-09-04T10:30:00.000Z', '2026-09-04', 72, 2, 2, 1, 1],
    ['RB2', '2026-09-04T10:50:00.000Z', '2026-09-04', 72, 2, 2, 1, 1],
    ['RB3', '2026-09-01T10:00:00.000Z', null, null, null, null, null, null],
  ]);
}

describe('migrations 0021-0023 on a database with parcels', () => {
  it(
    'give last_heard_at and the rollup of the parcels delivered before them',
    async () => {
      expectBackfilled(await acrossMigration('0020_delivery_summary_triggers', BEFORE, ROLLUP));
    },
    ACROSS_MIGRATION_TIMEOUT_MS,
  );
});
