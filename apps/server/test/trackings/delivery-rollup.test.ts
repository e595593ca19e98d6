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

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

async function newTracking(userId: string, tid: string, status: string, createdAt: number, courier = 'ups'): Promise<string> {
  const r = await env.ctx.db.execute(sql`
    insert into trackings (user_id, tid, courier, status, origin, destination, created_at, next_check_at)
    values (${userId}::uuid, ${tid}, ${courier}, ${status}, 'Memphis, TN 38118', 'Toronto, ON M5V 2T6, CA', ${iso(createdAt)}::timestamptz, null)
    returning id`);
  return rowsOf<{ id: string }>(r)[0]!.id;
}

const scan = (trackingId: string, status: string, time: number): repo.NewCheckpoint => ({
  trackingId,
  status,
  location: null,
  message: status,
  time: new Date(time),
  fingerprint: `${status}-${time}`,
});

async function lastHeardOf(id: string): Promise<string> {
  const r = await env.ctx.db.execute(sql`select last_heard_at from trackings where id = ${id}::uuid`);
  return new Date(rowsOf<{ last_heard_at: string }>(r)[0]!.last_heard_at).toISOString();
}

describe('stalled parcels: last_heard_at', () => {
  it('is the newest scan, else the adding, kept by the database as scans come and go', async () => {
    const a = await signUp(env.app);
    const ua = await userIdOf(env, a.email);
    const added = Date.parse('2026-10-01T08:00:00Z');
    const id = await newTracking(ua, 'LH1', 'InTransit', added);
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
    for (let i = 0; i < 5; i++) await newTracking(ua, `LHC${i}`, 'InTransit', Date.now() - (10 + i) * DAY);
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
