// Delivery performance at scale (issue 32, decisions 133 and 136): one account with BENCH_ANALYTICS_N trackings (default
// 1,000,000) seeded straight into the embedded database (PGlite) with their scans, and each analytics statement
// timed beside the floor: a trivial indexed query (one tracking by its number) in the same run; then a small account
// (BENCH_ANALYTICS_SMALL_N, default 200 trackings) on the same platform, whose figures read only its own rows.
// Standalone: `npx tsx bench/analytics.bench.ts` writes bench/results/analytics.json; `npm run bench -- analytics`
// runs it too. BENCH_ANALYTICS_PG=postgres://... runs it on PostgreSQL instead. BENCH_ANALYTICS_DIR=/path keeps the
// PGlite data directory: a second run finds the account seeded and only times the statements.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../apps/server/src/config.ts';
import { closeContext, createContext } from '../apps/server/src/bootstrap.ts';
import { createLogger } from '../apps/server/src/lib/logger.ts';
import type { AppContext } from '../apps/server/src/context.ts';
import { findUserById } from '../apps/server/src/modules/accounts/accounts.repository.ts';
import { performance as performanceFigures } from '../apps/server/src/modules/trackings/performance.ts';
import { exceptionCauses, performanceByCarrier, stalledTrackings } from '../apps/server/src/modules/trackings/trackings.repository.ts';
import { courierPerformance } from '../apps/server/src/modules/shipments/shipments.repository.ts';
import type { BenchResult } from './lib/types.ts';

const N = Number(process.env.BENCH_ANALYTICS_N ?? 1_000_000);
/** The company's own shipments (3 courier scans each), for the couriers' figures. */
const SHIPMENTS = Number(process.env.BENCH_ANALYTICS_SHIPMENTS ?? 50_000);
const RUNS = Number(process.env.BENCH_ANALYTICS_RUNS ?? 5);
/** A small account beside the large one: the figures are driven by the account (decision 136). */
const SMALL_N = Number(process.env.BENCH_ANALYTICS_SMALL_N ?? 200);
const log = (...a: unknown[]) => console.error('[analytics.bench]', ...a);
const DAY = 86_400_000;

async function rows<T>(ctx: AppContext, q: ReturnType<typeof sql>): Promise<T[]> {
  const r = (await ctx.db.execute(q)) as unknown as { rows?: T[] };
  return r.rows ?? (r as unknown as T[]);
}

/**
 * N trackings over the last 365 days: 70% delivered (1 to 6 days after the first scan, one in ten after a failed
 * attempt, a third with a promise), 20% in transit, 5% exceptions (12 causes), 5% pending with no scan; 5 origins and
 * 7 destinations. Scans: the first, one in transit, then the delivery or exception: about 2.9 per tracking.
 */
async function seed(ctx: AppContext, userId: string, n: number, prefix = 'AN', shipments = SHIPMENTS) {
  const t0 = performance.now();
  const step = 100_000;
  const at = prefix.length + 1;
  for (let from = 1; from <= n; from += step) {
    const to = Math.min(n, from + step - 1);
    await ctx.db.execute(sql`
      insert into trackings (user_id, tid, courier, status, origin, destination, promised_by, created_at, updated_at, next_check_at)
      select ${userId}::uuid, ${prefix} || g, (array['ups','usps','fedex','canadapost'])[1 + g % 4],
        case when g % 20 < 14 then 'Delivered' when g % 20 < 18 then 'InTransit' when g % 20 = 18 then 'Exception' else 'Pending' end,
        (array['Memphis, TN 38118','Louisville, KY','Toronto, ON M5V 2T6','Reno, NV','Chicago, IL'])[1 + g % 5],
        (array['Austin, TX 78701','Boston, MA','Ottawa, ON','Denver, CO','Miami, FL','Seattle, WA','Newark, NJ'])[1 + g % 7],
        case when g % 3 = 0 then now() - (g % 365) * interval '1 day' + interval '4 days' end,
        now() - (g % 365) * interval '1 day' - (g % 86400) * interval '1 second', now(), null
      from generate_series(${from}::int, ${to}::int) g`);
    await ctx.db.execute(sql`
      insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
      select t.id, s.status, 'Memphis, TN', s.message, s.time, md5(t.id::text || s.k)
      from (select id, created_at, substring(tid from ${at}::int)::int as g, status from trackings
            where user_id = ${userId}::uuid and tid in (select ${prefix} || x from generate_series(${from}::int, ${to}::int) x)) t
      cross join lateral (values
        (1, 'InfoReceived', 'Label created', t.created_at),
        (2, 'InTransit', 'Departed facility', t.created_at + interval '20 hours'),
        (3, case when t.status = 'Delivered' and t.g % 10 = 0 then 'FailAttempt' end, 'Receiver not available',
            t.created_at + (1 + t.g % 6) * interval '1 day' - interval '1 day'),
        (4, case t.status when 'Delivered' then 'Delivered' when 'Exception' then 'Exception' end,
            case t.status when 'Delivered' then 'Delivered, front door'
              else (array['Address incorrect','Damaged','Refused by recipient','Customs delay','Weather delay','Held at facility',
                          'Business closed','Missing documents','Lost','Returned to sender','Security delay','Unknown'])[1 + t.g % 12] end,
            t.created_at + (1 + t.g % 6) * interval '1 day' + (t.g % 7) * interval '1 hour')
      ) s(k, status, message, time)
      where t.status <> 'Pending' and s.status is not null`);
    log(`seeded ${to} trackings (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  // The company's own shipments: out for delivery, then delivered (one in eight after a failed attempt), by 40 couriers.
  await ctx.db.execute(sql`
    insert into shipments (company_id, tid, status, origin, destination, created_at)
    select ${userId}::uuid, 'SHMAN' || g, 'Delivered', '{}'::jsonb, '{}'::jsonb, now() - (g % 365) * interval '1 day'
    from generate_series(1, ${shipments}::int) g`);
  await ctx.db.execute(sql`
    insert into shipment_checkpoints (shipment_id, status, time, by_user_id, by_role, by_name)
    select s.id, c.status, s.created_at + c.after, ('00000000-0000-4000-8000-' || lpad((g % 40)::text, 12, '0'))::uuid, 'courier', 'Courier ' || g % 40
    from (select id, created_at, substring(tid from 6)::int as g from shipments where company_id = ${userId}::uuid) s
    cross join lateral (values ('OutForDelivery', interval '8 hours'),
      (case when s.g % 8 = 0 then 'FailAttempt' end, interval '10 hours'),
      ('Delivered', interval '1 day' * (s.g % 5 = 0)::int + interval '12 hours')) c(status, after)
    where c.status is not null`);
  await ctx.db.execute(sql`vacuum analyze`);
  return (performance.now() - t0) / 1000;
}

/** Median and worst of `RUNS` runs, ms (after one warm-up run). */
async function time(fn: () => Promise<unknown>): Promise<{ p50: number; max: number }> {
  await fn();
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: Math.round(ms[Math.floor(ms.length / 2)]!), max: Math.round(ms[ms.length - 1]!) };
}

export default async function analyticsBench(): Promise<BenchResult[]> {
  const pg = process.env.BENCH_ANALYTICS_PG;
  const kept = process.env.BENCH_ANALYTICS_DIR;
  const dataDir = kept ?? mkdtempSync(path.join(tmpdir(), 'shiptrail-analytics-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    SESSION_SECRET: 'bench-secret-bench-secret-bench-secret-00',
    LOG_LEVEL: 'silent',
    ...(pg ? { DATABASE_URL: pg } : {}),
  } as NodeJS.ProcessEnv);
  // Opening applies the migrations: on a data directory seeded by an older version, that includes the summary's
  // backfill (migration 0020), timed here.
  const opening = performance.now();
  const ctx = await createContext(config, createLogger(config));
  const openSeconds = (performance.now() - opening) / 1000;
  log(`opened (migrations applied) in ${openSeconds.toFixed(0)} s`);
  const setup = `${pg ? 'PostgreSQL' : 'PGlite'}, ${N >= 1e6 ? `${N / 1e6}M` : `${N / 1e3}k`} trackings, ${SHIPMENTS / 1e3}k shipments`;
  try {
    /** The account `uid`, seeded with `n` trackings the first time; the seconds its seeding took (0 when found). */
    const account = async (uid: string, n: number, prefix: string, shipments: number) => {
      const [found] = await rows<{ id: string }>(ctx, sql`select id from users where uid = ${uid}`);
      const [u] = found
        ? [found]
        : await rows<{ id: string }>(
            ctx,
            sql`insert into users (uid, email, api_key_hash, api_key_enc, webhook_secret, referral_code, version, user_type) values (${uid}, ${`${uid}@example.com`}, ${uid}, 'x', 'x', ${uid}, '1', 'company') returning id`,
          );
      const user = (await findUserById(ctx.db, u!.id))!;
      return { user, seconds: found ? 0 : await seed(ctx, user.id, n, prefix, shipments) };
    };
    const { user, seconds } = await account('benchan', N, 'AN', SHIPMENTS);
    const small = await account('benchsm', SMALL_N, 'SM', 0);
    log(`seeded in ${seconds.toFixed(0)} s`);
    const now = Date.now();
    const period = (days: number) => [new Date(now - days * DAY), new Date(now)] as const;
    const results: BenchResult[] = [];
    const measure = async (name: string, fn: () => Promise<unknown>) => {
      const t = await time(fn);
      log(name, t);
      results.push({ name, setup, metrics: { p50Ms: t.p50, maxMs: t.max, targetMs: 300 } });
    };
    await measure('floor: one tracking by its number (trackings_user_tid_uq)', () =>
      ctx.db.execute(sql`select id, status from trackings where user_id = ${user.id}::uuid and tid = ${`AN${Math.floor(N / 2)}`}`),
    );
    for (const days of [7, 30, 90]) {
      const [a, b] = period(days);
      await measure(`transit by carrier and lane, on time, first attempt, ${days} days`, () => performanceByCarrier(ctx.db, user.id, a, b));
    }
    for (const days of [30, 90]) {
      const [a, b] = period(days);
      await measure(`exceptions by cause, ${days} days`, () => exceptionCauses(ctx.db, user.id, a, b, 10));
    }
    await measure('stalled parcels (no scan for 3 days): count and the first 50', () =>
      stalledTrackings(ctx.db, user.id, new Date(now - 3 * DAY), 50),
    );
    // For comparison in the same run: the count as it was read before decision 157, one entry of
    // trackings_user_open_heard_idx per open parcel heard of before the cut-off (an index-only scan).
    await measure('stalled count from the parcels (the statement before decision 157, for comparison)', () =>
      ctx.db.execute(sql`
        select count(*)::int from trackings t where t.user_id = ${user.id}::uuid and t.status not in ('Delivered', 'Expired')
          and t.last_heard_at < ${new Date(now - 3 * DAY).toISOString()}::timestamptz`),
    );
    {
      const [a, b] = period(90);
      await measure('own couriers, 90 days', () => courierPerformance(ctx.db, user.id, a, b, 'UTC'));
      await measure('the whole page (GET /v1/trackings/performance, 90 days, all of the above)', () =>
        performanceFigures(ctx, user, { days: 90, stalledDays: 3, format: 'json' }),
      );
    }
    {
      // A small account on the big platform: its figures read its own rows, not the period's rows of every account.
      const [a, b] = period(90);
      const smallSetup = `${setup}; an account of ${SMALL_N} trackings beside the one of ${N}`;
      const measureSmall = async (name: string, fn: () => Promise<unknown>) => {
        const t = await time(fn);
        log(name, t);
        results.push({ name, setup: smallSetup, metrics: { p50Ms: t.p50, maxMs: t.max, targetMs: 300 } });
      };
      await measureSmall(`small account (${SMALL_N} trackings): transit by carrier and lane, on time, first attempt, 90 days`, () =>
        performanceByCarrier(ctx.db, small.user.id, a, b),
      );
      await measureSmall(`small account (${SMALL_N} trackings): exceptions by cause, 90 days`, () =>
        exceptionCauses(ctx.db, small.user.id, a, b, 10),
      );
      await measureSmall(`small account (${SMALL_N} trackings): stalled parcels`, () =>
        stalledTrackings(ctx.db, small.user.id, new Date(now - 3 * DAY), 50),
      );
      await measureSmall(`small account (${SMALL_N} trackings): the whole page, 90 days`, () =>
        performanceFigures(ctx, small.user, { days: 90, stalledDays: 3, format: 'json' }),
      );
    }
    const [count] = await rows<{ trackings: number; checkpoints: number }>(
      ctx,
      sql`select (select count(*) from trackings)::int as trackings, (select count(*) from checkpoints)::int as checkpoints`,
    );
    results.push({
      name: 'seeded',
      setup,
      metrics: {
        trackings: count!.trackings,
        checkpoints: count!.checkpoints,
        seedSeconds: Math.round(seconds),
        smallSeedSeconds: Math.round(small.seconds),
        openSeconds: Math.round(openSeconds),
      },
    });
    return results;
  } finally {
    await closeContext(ctx);
    if (!kept) rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const loadBefore = os.loadavg().map((x) => Math.round(x * 10) / 10);
  const results = await analyticsBench();
  const out = {
    what: 'Delivery performance statements (issue 32, decision 133) at scale, each beside the floor (a trivial indexed query) in the same run; median and worst of the runs after a warm-up, ms.',
    when: new Date().toISOString(),
    node: process.version,
    machine: `${os.cpus().length} CPU (${os.cpus()[0]?.model ?? ''}), shared with other work`,
    // The machine's load average (1, 5, 15 min) when the run started and when it ended: the figures are as much the
    // load's as the statements' (compare each with the floor of the same run).
    loadAverage: { start: loadBefore, end: os.loadavg().map((x) => Math.round(x * 10) / 10) },
    runs: RUNS,
    results,
  };
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'analytics.json');
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  log(`wrote ${file}`);
}
