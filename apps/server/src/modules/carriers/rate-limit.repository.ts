// SQL of the carrier limiter shared by every process (rate_limit_slots, rate_limit_windows).
import { sql } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../../db/client.ts';
import { rateLimitSlots, rateLimitWindows } from '../../db/schema.ts';

/** Make sure `key` has exactly `limit` slots (a changed limit drops or adds slots). */
export async function ensureSlots(db: Queryable, key: string, limit: number): Promise<void> {
  await db.execute(sql`
    insert into ${rateLimitSlots} (key, slot, granted_at)
    select ${key}, g, '1970-01-01T00:00:00Z'::timestamptz from generate_series(0, ${limit - 1}::int) g
    on conflict do nothing`);
  await db.execute(sql`delete from ${rateLimitSlots} where key = ${key} and slot >= ${limit}`);
}

/**
 * Try to take one grant: the oldest slot whose grant has left the window, unless the key is paused. Returns 0
 * when granted, else how many ms until a grant may be free (the pause, or the oldest grant leaving the window).
 * The database clock decides, so processes on machines whose clocks differ still share one window.
 */
export async function tryGrant(db: Queryable, key: string, intervalMs: number): Promise<number> {
  const pauseKey = `${key}#pause`;
  const r = await db.execute<{ granted: boolean; wait_ms: number | string | null }>(sql`
    with pause as (
      select greatest(0, extract(epoch from (reset_at - clock_timestamp())) * 1000) as ms
      from ${rateLimitWindows} where key = ${pauseKey} and reset_at > clock_timestamp()
    ),
    free as (
      select slot from ${rateLimitSlots}
      where key = ${key} and granted_at <= clock_timestamp() - make_interval(secs => ${intervalMs}::float8 / 1000)
        and not exists (select 1 from pause)
      order by granted_at limit 1
      for update skip locked
    ),
    took as (
      update ${rateLimitSlots} s set granted_at = clock_timestamp() from free
      where s.key = ${key} and s.slot = free.slot
      returning s.slot
    )
    select exists (select 1 from took) as granted,
      coalesce(
        (select ms from pause),
        (select greatest(1, extract(epoch from (min(granted_at) + make_interval(secs => ${intervalMs}::float8 / 1000) - clock_timestamp())) * 1000)
           from ${rateLimitSlots} where key = ${key})
      ) as wait_ms`);
  const row = rowsOf<{ granted: boolean; wait_ms: number | string | null }>(r)[0];
  if (row?.granted) return 0;
  return Math.max(1, Math.ceil(Number(row?.wait_ms ?? 1)));
}

/** Pause `key` for `ms` (a carrier's Retry-After); a longer pause already set stays. */
export async function pause(db: Queryable, key: string, ms: number): Promise<void> {
  await db.execute(sql`
    insert into ${rateLimitWindows} (key, count, reset_at) values (${`${key}#pause`}, 0, clock_timestamp() + make_interval(secs => ${ms}::float8 / 1000))
    on conflict (key) do update set reset_at = greatest(${rateLimitWindows}.reset_at, excluded.reset_at)`);
}
