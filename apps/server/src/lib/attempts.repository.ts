// Attempt counters every api process shares (rows of rate_limit_windows): login throttling and the per-account
// import limits. Each take is one statement, so two processes (or two requests) cannot both pass a check that
// only one of them may pass. Times come from the caller's clock (ctx.now), which tests can move.
import { sql } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../db/client.ts';
import { rateLimitWindows } from '../db/schema.ts';

/** Granted, or refused with how long until the next attempt may pass. */
export type Take = { ok: true } | { ok: false; waitMs: number };

const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;
const ms = (n: number) => sql`make_interval(secs => ${n}::float8 / 1000)`;

async function waitFor(db: Queryable, key: string, now: Date, delay: ReturnType<typeof sql>): Promise<number> {
  const r = await db.execute<{ wait_ms: string | number | null }>(sql`
    select greatest(0, extract(epoch from (${delay}) - ${at(now)}) * 1000) as wait_ms
    from ${rateLimitWindows} w where key = ${key}`);
  // The row may have expired and gone in between: then the caller may try again at once, say one second.
  return Math.max(1000, Math.ceil(Number(rowsOf<{ wait_ms: string | number | null }>(r)[0]?.wait_ms ?? 1000)));
}

/** A fixed window: at most `max` attempts per `windowMs` for `key`. */
export async function takeWindow(db: Queryable, key: string, max: number, windowMs: number, now: Date): Promise<Take> {
  const r = await db.execute(sql`
    insert into ${rateLimitWindows} as w (key, count, reset_at) values (${key}, 1, ${at(now)} + ${ms(windowMs)})
    on conflict (key) do update set
      count = case when w.reset_at <= ${at(now)} then 1 else w.count + 1 end,
      reset_at = case when w.reset_at <= ${at(now)} then excluded.reset_at else w.reset_at end
    where w.reset_at <= ${at(now)} or w.count < ${max}
    returning count`);
  if (rowsOf(r).length > 0) return { ok: true };
  return { ok: false, waitMs: await waitFor(db, key, now, sql`w.reset_at`) };
}

export interface BackoffRule {
  /** Attempts that pass at once. */
  free: number;
  /** The wait after the free ones; it doubles with each further attempt, up to `maxDelayMs`. */
  baseMs: number;
  maxDelayMs: number;
  /** A key with no attempt for this long starts over. */
  forgetMs: number;
}

/**
 * Exponential backoff: the row's reset_at is when the key is forgotten (last attempt + forgetMs), so the last
 * attempt is reset_at - forgetMs and the sweep of expired windows drops forgotten keys.
 */
export async function takeBackoff(db: Queryable, key: string, rule: BackoffRule, now: Date): Promise<Take> {
  const last = sql`(w.reset_at - ${ms(rule.forgetMs)})`;
  const delay = sql`least(${rule.maxDelayMs}::float8, ${rule.baseMs}::float8 * power(2, least(w.count - ${rule.free}, 40)))`;
  const r = await db.execute(sql`
    insert into ${rateLimitWindows} as w (key, count, reset_at) values (${key}, 1, ${at(now)} + ${ms(rule.forgetMs)})
    on conflict (key) do update set
      count = case when w.reset_at <= ${at(now)} then 1 else w.count + 1 end,
      reset_at = excluded.reset_at
    where w.reset_at <= ${at(now)} or w.count < ${rule.free}
      or ${at(now)} >= ${last} + make_interval(secs => ${delay} / 1000)
    returning count`);
  if (rowsOf(r).length > 0) return { ok: true };
  return { ok: false, waitMs: await waitFor(db, key, now, sql`${last} + make_interval(secs => ${delay} / 1000)`) };
}

/** Give back one attempt taken for `key` (the work it guarded turned out not to count). */
export async function releaseAttempt(db: Queryable, key: string): Promise<void> {
  await db.execute(sql`update ${rateLimitWindows} set count = count - 1 where key = ${key} and count > 0`);
}

/** Forget `key` (a successful login clears its failures; a finished import frees its slot). */
export async function forgetAttempts(db: Queryable, key: string): Promise<void> {
  await db.execute(sql`delete from ${rateLimitWindows} where key = ${key}`);
}

/** Drop the windows that no longer limit anything (a minute past their end). */
export async function sweepAttempts(db: Queryable): Promise<void> {
  await db.execute(sql`delete from ${rateLimitWindows} where reset_at < clock_timestamp() - interval '1 minute'`);
}
