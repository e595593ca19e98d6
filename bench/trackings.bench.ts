// Trackings: the API (list 100, add one) beside a bare Fastify route, on PGlite and PostgreSQL, with 1k
// and 1M trackings stored; and the refresh engine against the carrier sandbox beside the sandbox's raw
// capacity. Ratios matter more than absolutes (ARCHITECTURE §6): every figure has its baseline from the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../apps/server/src/config.ts';
import { closeContext, createContext } from '../apps/server/src/bootstrap.ts';
import { createLogger } from '../apps/server/src/lib/logger.ts';
import { buildApp } from '../apps/server/src/app.ts';
import type { AppContext } from '../apps/server/src/context.ts';
import { runDueRefreshes } from '../apps/server/src/modules/trackings/refresh.ts';
import { carriersOf } from '../apps/server/src/modules/carriers/carriers.service.ts';
import type { CourierSlug } from '../apps/server/src/modules/carriers/types.ts';
import { listPageJson } from '../apps/server/src/modules/trackings/trackings.repository.ts';
import { rawSuccess } from '../apps/server/src/lib/http.ts';
import { freshDatabase, startPostgres, type PrivatePostgres } from './lib/postgres.ts';
import type { BenchResult } from './lib/types.ts';
import { percentileMs as pct } from './lib/stats.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const BIG = Number(process.env.BENCH_BIG ?? 1_000_000);
/** 1M rows into PGlite takes minutes; set BENCH_PGLITE_BIG=1 to include it. */
const PGLITE_BIG = process.env.BENCH_PGLITE_BIG === '1';
const REFRESH_N = Number(process.env.BENCH_REFRESH_N ?? 2000);

const log = (...a: unknown[]) => console.error('[trackings.bench]', ...a);

interface Load {
  rps: number;
  p99: number;
  non2xx: number;
  /** Peak resident set of this process (the server, its database when embedded, and the load generator) during the load, MB. */
  rssMb: number;
}

async function load(opts: Partial<autocannon.Options> & { url: string }): Promise<Load> {
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 250);
  try {
    const r = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...opts });
    return {
      rps: Math.round(r.requests.average),
      p99: r.latency.p99,
      non2xx: r.non2xx + r.errors,
      rssMb: Math.round(Math.max(peak, process.memoryUsage.rss()) / 2 ** 20),
    };
  } finally {
    clearInterval(sampler);
  }
}

async function bareFastify(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify({ logger: false });
  app.get('/bare', async () => ({ code: 200, status: 'success', message: 'OK', payload: { hello: 'world' } }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

async function openApp(adminUrl: string | undefined, extraEnv: Record<string, string> = {}) {
  const databaseUrl = adminUrl ? await freshDatabase(adminUrl, 'trackings') : undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'shiptrail-bench-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    SESSION_SECRET: 'bench-secret-bench-secret-bench-secret-00',
    LOG_LEVEL: 'silent',
    QUEUE_POLL_SECONDS: '0.5',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...extraEnv,
  } as NodeJS.ProcessEnv);
  const ctx = await createContext(config, createLogger(config));
  const app = await buildApp(ctx, { logger: false });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const email = `bench${Date.now()}@example.com`;
  const signup = await app.inject({
    method: 'POST',
    url: '/v1/user/general/signup',
    payload: { email, password: 'password123', repassword: 'password123', terms: true },
  });
  const body = signup.json();
  const session = body.payload.sessionToken as string;
  const [u] = await rows<{ id: string }>(ctx, sql`select id from users where email = ${email}`);
  const userId = u!.id;
  // Enough balance for every add the bench makes.
  await ctx.db.execute(sql`insert into ledger_entries (user_id, amount_cents, kind, ref) values (${userId}, 1000000000, 'topup', 'bench')`);
  await ctx.db.execute(sql`update billing_accounts set balance_cents = balance_cents + 1000000000 where user_id = ${userId}`);
  return {
    ctx,
    url,
    session,
    userId,
    async close() {
      await app.close();
      await closeContext(ctx);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function rows<T>(ctx: AppContext, q: ReturnType<typeof sql>): Promise<T[]> {
  const r = (await ctx.db.execute(q)) as unknown as { rows?: T[] };
  return r.rows ?? (r as unknown as T[]);
}

/** Trackings straight into the database (generate_series), plus 4 checkpoints for each of the newest 1000. */
async function seed(ctx: AppContext, userId: string, from: number, to: number) {
  const t0 = performance.now();
  await ctx.db.execute(sql`
    insert into trackings (user_id, tid, courier, status, origin, destination, created_at, updated_at, next_check_at)
    select ${userId}::uuid, 'SEED' || g, (array['ups','usps','fedex','canadapost'])[1 + g % 4],
           (array['InTransit','Delivered','Pending','InfoReceived'])[1 + g % 4], 'Memphis, TN', 'Austin, TX',
           now() - interval '1 day' - (g || ' seconds')::interval, now() - (g || ' seconds')::interval, null
    from generate_series(${from}::int, ${to}::int) g`);
  await ctx.db.execute(sql`delete from checkpoints`);
  await ctx.db.execute(sql`
    insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
    select t.id, 'InTransit', 'Memphis, TN', 'Departed FedEx hub', t.created_at + (k || ' hours')::interval, md5(t.id::text || k)
    from (select id, created_at from trackings where user_id = ${userId}::uuid order by created_at desc, id desc limit 1000) t, generate_series(1, 4) k`);
  // VACUUM too, not only ANALYZE: otherwise autovacuum wakes on the fresh rows during the first load measured
  // (it made the floor, measured first, half as fast as the API measured after it).
  await ctx.db.execute(sql`vacuum analyze`);
  return (performance.now() - t0) / 1000;
}

/**
 * The floor: a minimal route in the same process, on the same database pool, that runs only the best single
 * statement for the same work and sends its result (no auth, no plugins, no validation). List: the page
 * statement the API uses (repo.listPageJson). Add: one statement that inserts the tracking, books the
 * charge and moves the balance (the API also enqueues the refresh job and checks the balance first).
 */
async function floorRoutes(app: Awaited<ReturnType<typeof openApp>>, prefix: string) {
  const f = Fastify({ logger: false });
  let n = 0;
  f.get('/floor/list', async (_req, reply) => {
    const page = await listPageJson(app.ctx.db, {
      userId: app.userId,
      uid: 'bench',
      limit: 100,
      statuses: [],
      couriers: [],
      sandboxCouriers: ['ups', 'usps', 'fedex', 'canadapost'],
    });
    return reply.type('application/json; charset=utf-8').send(rawSuccess(page!));
  });
  f.post('/floor/add', async () => {
    const tid = `${prefix}F${n++}`;
    const r = await rows<{ balance_cents: number }>(
      app.ctx,
      sql`with t as (insert into trackings (user_id, tid, courier, next_check_at) values (${app.userId}::uuid, ${tid}, 'ups', now()) returning id, tid),
               l as (insert into ledger_entries (user_id, amount_cents, kind, ref, description) select ${app.userId}::uuid, -5, 'tracking', t.id::text, t.tid from t returning amount_cents)
          update billing_accounts set balance_cents = balance_cents + (select amount_cents from l), updated_at = now() where user_id = ${app.userId}::uuid returning balance_cents`,
    );
    return { code: 201, status: 'success', message: 'OK', payload: { tid, balance: r[0]?.balance_cents } };
  });
  const url = await f.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => f.close() };
}

async function apiRound(
  label: string,
  app: Awaited<ReturnType<typeof openApp>>,
  bare: { url: string },
  out: BenchResult[],
  prefix: string,
) {
  // Real HTTP statuses, so autocannon counts failures as non-2xx (by default /v1 answers 200 with the code inside).
  const headers = { 'sm-api-token': app.session, 'content-type': 'application/json', 'sm-http-status': 'real' };
  const floor = await floorRoutes(app, prefix);
  try {
    // Warm-up: JIT, connection pool, plan cache.
    await load({ url: `${app.url}/v1/trackings/get?numRecords=100`, headers, duration: 1 });
    await load({ url: `${floor.url}/floor/list`, duration: 1 });
    const b = await load({ url: `${bare.url}/bare` });
    let n = 0;
    const addOnce = () =>
      load({
        url: app.url,
        requests: [
          {
            method: 'POST',
            path: '/v1/trackings/add',
            headers,
            setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify({ tid: `${prefix}${n++}`, courier: 'ups' }) }),
          },
        ],
      });
    // Every list before any add: an add puts a new tracking (no checkpoints yet) at the top of the page, and
    // a page of those is lighter than a page of seeded ones with 4 checkpoints each.
    // "Token cache off" is the same app with AUTH_CACHE_SECONDS=0 (decision 086): every request hashes its
    // token and reads the session.
    const cacheSetting = app.ctx.config.AUTH_CACHE_SECONDS;
    const floorList = await load({ url: `${floor.url}/floor/list` });
    app.ctx.config.AUTH_CACHE_SECONDS = 0;
    const listNoCache = await load({ url: `${app.url}/v1/trackings/get?numRecords=100`, headers });
    app.ctx.config.AUTH_CACHE_SECONDS = cacheSetting;
    const list = await load({ url: `${app.url}/v1/trackings/get?numRecords=100`, headers });
    const floorAdd = await load({ url: floor.url, requests: [{ method: 'POST', path: '/floor/add' }] });
    app.ctx.config.AUTH_CACHE_SECONDS = 0;
    const addNoCache = await addOnce();
    app.ctx.config.AUTH_CACHE_SECONDS = cacheSetting;
    const add = await addOnce();
    const pct = (x: number, y: number) => `${((100 * x) / y).toFixed(0)}%`;
    for (const [name, r, off, fl] of [
      ['list 100 trackings (session)', list, listNoCache, floorList],
      ['add a tracking (charge + job, one transaction)', add, addNoCache, floorAdd],
    ] as const) {
      out.push({
        name,
        setup: label,
        metrics: {
          'req/s': r.rps,
          'p99 ms': r.p99,
          'token cache off req/s': off.rps,
          'floor req/s': fl.rps,
          'floor p99 ms': fl.p99,
          'share of floor': pct(r.rps, fl.rps),
          'bare Fastify req/s': b.rps,
          'share of bare': pct(r.rps, b.rps),
          'peak RSS MB': r.rssMb,
          errors: r.non2xx + off.non2xx + fl.non2xx,
        },
        note: 'floor = a route in the same process running only the best single SQL statement for the work (no auth, no plugins); token cache off = the same API with AUTH_CACHE_SECONDS=0; peak RSS = the bench process (server, embedded database and load generator) during the load',
      });
    }
    log(
      label,
      `list ${list.rps}/s (cache off ${listNoCache.rps}, floor ${floorList.rps}) p99 ${list.p99}ms, add ${add.rps}/s (cache off ${addNoCache.rps}, floor ${floorAdd.rps}), bare ${b.rps}/s`,
    );
  } finally {
    await floor.close();
  }
}

async function apiBench(kind: 'PGlite' | string, databaseUrl: string | undefined, out: BenchResult[], withBig: boolean) {
  const bare = await bareFastify();
  const app = await openApp(databaseUrl);
  try {
    const s1 = await seed(app.ctx, app.userId, 1, 1000);
    await apiRound(`${kind}, 1k trackings (seeded in ${s1.toFixed(1)} s)`, app, bare, out, 'BENCHA');
    if (withBig) {
      const s2 = await seed(app.ctx, app.userId, 1001, BIG);
      await apiRound(`${kind}, ${BIG >= 1e6 ? `${BIG / 1e6}M` : BIG} trackings (seeded in ${s2.toFixed(0)} s)`, app, bare, out, 'BENCHB');
    } else {
      out.push({
        name: 'list/add with 1M trackings',
        setup: kind,
        metrics: {},
        note: 'skipped on PGlite (generating 1M rows in embedded PGlite takes minutes; set BENCH_PGLITE_BIG=1); measured on PostgreSQL instead',
      });
    }
  } finally {
    await app.close();
    await bare.close();
  }
}

function numbersFor(courier: CourierSlug, i: number): string {
  const d = (len: number) => String(100000 + i).padStart(len, '7');
  switch (courier) {
    case 'ups':
      return `1ZBENCH${d(11)}`;
    case 'usps':
      return `94001${d(17)}`;
    case 'fedex':
      return `7${d(11)}`;
    case 'canadapost':
      return `00739${d(11)}`;
  }
}

async function refreshBench(kind: string, databaseUrl: string | undefined, out: BenchResult[]) {
  // Journeys at a tenth of the usual pace: a refreshed tracking's next check is 2 minutes away, so no tracking
  // comes due again while the round runs and each is counted once.
  const app = await openApp(databaseUrl, {
    UPS_RATE_LIMIT: 'off',
    USPS_RATE_LIMIT: 'off',
    FEDEX_RATE_LIMIT: 'off',
    CANADAPOST_RATE_LIMIT: 'off',
    CARRIER_SANDBOX_PACE: '10',
  });
  try {
    const couriers: CourierSlug[] = ['ups', 'usps', 'fedex', 'canadapost'];
    const per = Math.ceil(REFRESH_N / couriers.length);
    const byCourier = Object.fromEntries(couriers.map((c) => [c, Array.from({ length: per }, (_, i) => numbersFor(c, i))])) as Record<
      CourierSlug,
      string[]
    >;
    const client = carriersOf(app.ctx);

    // Raw: the carrier client against the sandbox, no database.
    await Promise.all(couriers.map((c) => client.track(c, byCourier[c].slice(0, 50))));
    const r0 = performance.now();
    const raw = await Promise.all(couriers.map((c) => client.track(c, byCourier[c])));
    const rawS = (performance.now() - r0) / 1000;
    const rawN = raw.flat().length;

    // Engine: the same numbers as due trackings, claimed, fetched, merged and scheduled.
    for (const c of couriers) {
      const values = byCourier[c].map((tid) => sql`(${app.userId}, ${tid}, ${c}, now() - interval '1 second')`);
      for (let i = 0; i < values.length; i += 500) {
        await app.ctx.db.execute(
          sql`insert into trackings (user_id, tid, courier, next_check_at) values ${sql.join(values.slice(i, i + 500), sql`, `)}`,
        );
      }
    }
    // A user's request while the engine works: one small list at a time, its latency beside the same request idle.
    const probe = async () => {
      const t = performance.now();
      const r = await fetch(`${app.url}/v1/trackings/get?numRecords=10`, { headers: { 'sm-api-token': app.session } });
      await r.arrayBuffer();
      return performance.now() - t;
    };
    const idle: number[] = [];
    for (let i = 0; i < 40; i++) idle.push(await probe());
    const busy: number[] = [];
    // Whether a slow request waited for the event loop (JavaScript running) or for the database.
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    let engineRunning = true;
    const prober = (async () => {
      while (engineRunning) {
        busy.push(await probe());
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const t0 = performance.now();
    let fetched = 0;
    let changed = 0;
    while (fetched < rawN) {
      const s = await runDueRefreshes(app.ctx);
      if (s.fetched === 0) break;
      fetched += s.fetched;
      changed += s.changed;
    }
    const engS = (performance.now() - t0) / 1000;
    engineRunning = false;
    await prober;
    loop.disable();
    const [cp] = await rows<{ n: string }>(app.ctx, sql`select count(*) as n from checkpoints`);
    const engine = Math.round(fetched / engS);
    const rawRate = Math.round(rawN / rawS);
    out.push({
      name: 'refresh engine vs carrier sandbox (rate limits lifted)',
      setup: `${kind}, ${fetched} trackings over 4 carriers`,
      metrics: {
        'engine trackings/s': engine,
        'sandbox raw trackings/s': rawRate,
        'share of raw': `${((100 * engine) / rawRate).toFixed(1)}%`,
        'status changes': changed,
        'checkpoints stored': Number(cp?.n ?? 0),
        'list 10 p50 / p99 ms, idle': `${pct(idle, 50)} / ${pct(idle, 99)}`,
        'list 10 p50 / p99 ms, engine running': `${pct(busy, 50)} / ${pct(busy, 99)}`,
        'event loop delay p99 / max ms': `${Math.round(loop.percentile(99) / 1e6)} / ${Math.round(loop.max / 1e6)}`,
      },
      note: 'raw = the carrier client against the sandbox, no database; engine = claim + fetch + merge checkpoints + status event and notifications + schedule, results of each carrier batch applied set-based, 200 to a transaction (50 on PGlite); list 10 = a user listing 10 trackings over HTTP one request at a time, idle and while the engine runs',
    });
    log(kind, `refresh engine ${engine}/s, sandbox raw ${rawRate}/s`);
  } finally {
    await app.close();
  }
}

export default async function trackingsBench(): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  await apiBench('PGlite', undefined, out, PGLITE_BIG);
  await refreshBench('PGlite', undefined, out);
  const pg: PrivatePostgres | { skipped: string } = await startPostgres().catch((err: Error) => ({
    skipped: `could not start PostgreSQL: ${err.message}`,
  }));
  if ('skipped' in pg) {
    out.push({ name: 'PostgreSQL half', metrics: {}, note: `skipped: ${pg.skipped}` });
    return out;
  }
  try {
    await apiBench(pg.version, pg.url, out, true);
    await refreshBench(pg.version, pg.url, out);
  } finally {
    pg.stop();
  }
  return out;
}
