// A store for @fastify/rate-limit kept in PostgreSQL (rate_limit_windows), so a route's limit per client
// address holds across every api process instead of multiplying by their number.
import { sql } from 'drizzle-orm';
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { rowsOf, type Queryable } from '../db/client.ts';
import { rateLimitWindows } from '../db/schema.ts';
import { sweepAttempts } from './attempts.repository.ts';

type Result = { current: number; ttl: number };
type Callback = (err: Error | null, res?: Result) => void;
type RouteOptions = { routeInfo: { method: string; url?: string } };

// Expired windows are dropped now and then by the requests themselves: no job needed, bounded table.
const SWEEP_EVERY = 500;

/** One fixed window per key: count and reset time in one upsert; answers how many hits and the ms left. */
export async function hitWindow(db: Queryable, key: string, windowMs: number): Promise<Result> {
  const r = await db.execute<{ count: number; ttl: number | string }>(sql`
    insert into ${rateLimitWindows} as w (key, count, reset_at)
    values (${key}, 1, clock_timestamp() + make_interval(secs => ${windowMs}::float8 / 1000))
    on conflict (key) do update set
      count = case when w.reset_at <= clock_timestamp() then 1 else w.count + 1 end,
      reset_at = case when w.reset_at <= clock_timestamp() then excluded.reset_at else w.reset_at end
    returning count, greatest(0, extract(epoch from (reset_at - clock_timestamp())) * 1000) as ttl`);
  const row = rowsOf<{ count: number; ttl: number | string }>(r)[0]!;
  return { current: Number(row.count), ttl: Math.ceil(Number(row.ttl)) };
}

/** The store class @fastify/rate-limit instantiates (`store` option), bound to a database. */
export function sharedRateLimitStore(db: Queryable): FastifyRateLimitStoreCtor {
  let hits = 0;
  class SharedRateLimitStore {
    private readonly prefix: string;
    constructor(_options?: unknown, prefix = 'route:') {
      this.prefix = prefix;
    }

    incr(key: string, cb: Callback, timeWindow: number): void {
      if (++hits % SWEEP_EVERY === 0) void sweepAttempts(db).catch(() => {});
      hitWindow(db, this.prefix + key, timeWindow).then(
        (res) => cb(null, res),
        (err: Error) => cb(err),
      );
    }

    child(routeOptions: RouteOptions): SharedRateLimitStore {
      // The plugin passes the route as `routeInfo` (its typings say otherwise); each route counts apart.
      return new SharedRateLimitStore(undefined, `route:${routeOptions.routeInfo.method}${routeOptions.routeInfo.url ?? ''}:`);
    }
  }
  return SharedRateLimitStore as unknown as FastifyRateLimitStoreCtor;
}
