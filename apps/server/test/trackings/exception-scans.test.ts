// The exception figures of a period at 1M trackings (decision 147): one narrow row per Exception scan in
// `exception_scans`, kept by the database from `checkpoints` in the writer's statement, the carrier's words cut to a
// bounded length. The figures themselves are proved by performance*.test.ts, unchanged; this file proves what is
// kept, that a long message is stored (not refused by an index), and how the period is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/client.ts';
import { EXCEPTION_CAUSE_CHARS } from '../../src/db/schema.ts';
import * as repo from '../../src/modules/trackings/trackings.repository.ts';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { userIdOf } from './fixtures.ts';
import { DAY, iso, newTracking, scan } from '../rows-by-sql.ts';
import { ACROSS_MIGRATION_TIMEOUT_MS, acrossMigration } from '../db/across-migration.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const opened = (userId: string, tid: string) =>
  newTracking(env, userId, tid, { status: 'Exception', origin: 'Memphis, TN', destination: 'Austin, TX' });

/** The account's exception rows: tracking, time, cause, in time order. */
async function keptOf(userId: string): Promise<Array<[string, string, string]>> {
  const r = await env.ctx.db.execute(sql`
    select tracking_id, time, cause from exception_scans where user_id = ${userId}::uuid order by time, cause`);
  return rowsOf<{ tracking_id: string; time: string; cause: string }>(r).map((x) => [x.tracking_id, iso(Date.parse(x.time)), x.cause]);
}

describe('exception_scans: kept by the database from the scans', () => {
  it('holds each exception scan once, trimmed, with its account; goes with its scan and its tracking', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const t = Date.now() - 5 * DAY;
    const id = await opened(ua, 'EX1');
    const other = await opened(ua, 'EX2');
    await repo.insertCheckpoints(env.ctx.db, [
      scan(id, 'InTransit', t),
      scan(id, 'Exception', t + 1000, '  Address incorrect '),
      scan(id, 'Exception', t + 2000, ''),
    ]);
    // Stored again (a re-fetch): skipped by the fingerprint, no second row.
    await repo.insertCheckpoints(env.ctx.db, [scan(id, 'Exception', t + 1000, '  Address incorrect ')]);
    await repo.insertCheckpoints(env.ctx.db, [scan(other, 'Exception', t + 3000, 'Damaged')]);
    expect(await keptOf(ua)).toEqual([
      [id, iso(t + 1000), 'Address incorrect'],
      [id, iso(t + 2000), ''],
      [other, iso(t + 3000), 'Damaged'],
    ]);
    const figures = await repo.exceptionCauses(env.ctx.db, ua, new Date(t - DAY), new Date(t + DAY), 10);
    expect(figures).toEqual({
      count: 3,
      parcels: 2,
      causes: [
        { cause: 'Address incorrect', count: 1 },
        { cause: 'Damaged', count: 1 },
        { cause: 'No reason given', count: 1 },
      ],
    });
    // One scan removed, then every scan of a tracking (a carrier change), then a tracking deleted.
    await env.ctx.db.execute(sql`delete from checkpoints where tracking_id = ${id}::uuid and time = ${iso(t + 2000)}::timestamptz`);
    expect(await keptOf(ua)).toEqual([
      [id, iso(t + 1000), 'Address incorrect'],
      [other, iso(t + 3000), 'Damaged'],
    ]);
    await repo.deleteCheckpoints(env.ctx.db, id);
    expect(await keptOf(ua)).toEqual([[other, iso(t + 3000), 'Damaged']]);
    expect(await repo.deleteTracking(env.ctx.db, ua, 'EX2')).toBe(true);
    expect(await keptOf(ua)).toEqual([]);
    expect((await repo.exceptionCauses(env.ctx.db, ua, new Date(t - DAY), new Date(t + DAY), 10)).count).toBe(0);
  });

  it('stores a message of any length, the cause cut to its first characters', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const t = Date.now() - 2 * DAY;
    const id = await opened(ua, 'EXL');
    // 40,000 characters that do not compress: far beyond btree's ~2.7 kB per index entry.
    const long = Array.from({ length: 4000 }, (_, i) => `${(i * 7919) % 9973}`.padStart(4, '0') + '-x-').join('') + ' the end';
    expect(long.length).toBeGreaterThan(28_000);
    const other = `${long.slice(0, EXCEPTION_CAUSE_CHARS)} but another ending`;
    expect(await repo.insertCheckpoints(env.ctx.db, [scan(id, 'Exception', t, long), scan(id, 'Exception', t + 1000, other)])).toBe(2);
    // The scan keeps the whole message; the cause is its first EXCEPTION_CAUSE_CHARS characters.
    const stored = rowsOf<{ message: string }>(
      await env.ctx.db.execute(sql`select message from checkpoints where tracking_id = ${id}::uuid order by time`),
    );
    expect(stored[0]!.message).toBe(long);
    const kept = await keptOf(ua);
    expect(kept.map((k) => k[2])).toEqual([long.slice(0, EXCEPTION_CAUSE_CHARS), long.slice(0, EXCEPTION_CAUSE_CHARS)]);
    const figures = await repo.exceptionCauses(env.ctx.db, ua, new Date(t - DAY), new Date(t + DAY), 10);
    expect(figures).toEqual({ count: 2, parcels: 1, causes: [{ cause: long.slice(0, EXCEPTION_CAUSE_CHARS), count: 2 }] });
  });

  it('follows a scan changed and a tracking moved to another account', async () => {
    const a = await signUp(env.app);
    const b = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const ub = await userIdOf(env, b.email);
    const t = Date.now() - 3 * DAY;
    const id = await opened(ua, 'EXM');
    await repo.insertCheckpoints(env.ctx.db, [scan(id, 'InTransit', t), scan(id, 'Exception', t + 1000, 'Damaged')]);
    await env.ctx.db.execute(
      sql`update checkpoints set status = 'Exception', message = 'Weather delay' where tracking_id = ${id}::uuid and status = 'InTransit'`,
    );
    await env.ctx.db.execute(sql`update checkpoints set message = 'Damaged box' where tracking_id = ${id}::uuid and message = 'Damaged'`);
    expect(await keptOf(ua)).toEqual([
      [id, iso(t), 'Weather delay'],
      [id, iso(t + 1000), 'Damaged box'],
    ]);
    await env.ctx.db.execute(
      sql`update checkpoints set status = 'InTransit' where tracking_id = ${id}::uuid and message = 'Weather delay'`,
    );
    expect(await keptOf(ua)).toEqual([[id, iso(t + 1000), 'Damaged box']]);
    await env.ctx.db.execute(sql`update trackings set user_id = ${ub}::uuid where id = ${id}::uuid`);
    expect(await keptOf(ua)).toEqual([]);
    expect(await keptOf(ub)).toEqual([[id, iso(t + 1000), 'Damaged box']]);
  });

  it('a period of an account is one range of exception_scans_user_time_idx, answered from the index alone', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const plan = await env.ctx.db.transaction(async (tx) => {
      // Only the index paths: the question is whether the index alone can answer, not what a tiny table prefers.
      await tx.execute(sql`set local enable_seqscan = off`);
      await tx.execute(sql`set local enable_bitmapscan = off`);
      const r = await tx.execute(sql`
        explain (format json) select e.tracking_id, e.cause from exception_scans e
        where e.user_id = ${ua}::uuid and e.time >= ${iso(Date.now() - 90 * DAY)}::timestamptz and e.time < ${iso(Date.now())}::timestamptz`);
      return JSON.stringify(rowsOf<Record<string, unknown>>(r));
    });
    expect(plan).toContain('Index Only Scan');
    expect(plan).toContain('exception_scans_user_time_idx');
  });
});

// ------------------------------------------------------------------ the migrations on a database with scans

/** Scans stored before the table: two exceptions (one with a long message), one other scan, on two accounts. */
const BEFORE = sql`
  with u as (
    insert into users (uid, email, api_key_hash, api_key_enc, webhook_secret, referral_code, version, user_type)
    values ('exbf1', 'exception-backfill-1@example.com', 'x', 'x', 'x', 'exbf1', '1', 'company'),
           ('exbf2', 'exception-backfill-2@example.com', 'y', 'y', 'y', 'exbf2', '1', 'company') returning id, uid
  ), t as (
    insert into trackings (user_id, tid, courier, status, origin, destination, created_at)
    select u.id, 'T-' || u.uid, 'ups', 'Exception', 'Austin, TX 78701', 'Lyon, FR', '2026-08-30T00:00:00Z' from u
    returning id, tid
  )
  insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
  select t.id, s.status, null, s.message, s.time::timestamptz, s.status || s.time from t join (values
    ('T-exbf1', 'InTransit', 'Departed', '2026-09-01T10:00:00Z'),
    ('T-exbf1', 'Exception', ' Damaged ', '2026-09-02T10:00:00Z'),
    ('T-exbf2', 'Exception', repeat('Held at customs; ', 300), '2026-09-03T10:00:00Z')) s(tid, status, message, time)
  on s.tid = t.tid`;

const KEPT = sql`
  select t.tid, e.time, e.cause, e.user_id = t.user_id as same_account
  from exception_scans e join trackings t on t.id = e.tracking_id order by e.time`;

describe('migrations 0024-0025 on a database with scans', () => {
  it(
    'give the exception scans stored before them',
    async () => {
      const rows = await acrossMigration<{ tid: string; time: string; cause: string; same_account: boolean }>(
        '0023_delivery_days_triggers',
        BEFORE,
        KEPT,
      );
      expect(rows.map((r) => [r.tid, iso(Date.parse(r.time)), r.cause, r.same_account])).toEqual([
        ['T-exbf1', '2026-09-02T10:00:00.000Z', 'Damaged', true],
        ['T-exbf2', '2026-09-03T10:00:00.000Z', 'Held at customs; '.repeat(300).slice(0, EXCEPTION_CAUSE_CHARS).trimEnd(), true],
      ]);
    },
    ACROSS_MIGRATION_TIMEOUT_MS,
  );
});
