// Trackings: the API (list 100, add one) beside a bare Fastify route, on PGlite and PostgreSQL, with 1k
// and 1M trackings stored; and the refresh engine against the carrier sandbox beside the sandbox's raw
// capacity. Ratios matter more than absolutes (ARCHITECTURE §6): every figure has its baseline from the same run.
//
// BENCH_TRACKINGS_ONLY=add runs the add alone (decision 184): 1k trackings on each database, no 1M seed, no list,
// refresh, bare-Fastify or token-cache-off round; the floor's add and the API's in alternation (F A A F ...,
// BENCH_ADD_PAIRS pairs, default 2, BENCH_SECONDS each). Each round's start and end are logged on the monotonic clock
// in µs, the clock of a `--cpu-prof` profile's samples, so a profile of the process (its database thread's too) can
// be cut into its rounds with bench/profile-summary.ts. With it, BENCH_TRACKINGS_POSTGRES_ONLY=1 leaves PGlite out
// (BENCH_TRACKINGS_PGLITE_ONLY=1 leaves PostgreSQL out, with it or without).
// BENCH_TRACKINGS_ONLY=refresh runs the refresh engine's round alone at 1k, BENCH_REFRESH_ROUNDS times (default 1) on
// each database (the same two options leave one out): to compare two commits' engines on one machine at one load;
// BENCH_REFRESH_BIG=1 follows each 1k round with one at BIG and logs the pair's difference in points.
// Any of these without writing bench/results: `BENCH_OUT_DIR=/tmp/x npm run bench -- trackings`.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { executeNamed, rowsOf } from '../apps/server/src/db/client.ts';
import { freshDatabase, startPostgres, type PrivatePostgres } from './lib/postgres.ts';
import type { BenchResult } from './lib/types.ts';
import { percentileMs as pct } from './lib/stats.ts';
import { cpuMeter, parentOf } from './lib/cpu.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const BIG = Number(process.env.BENCH_BIG ?? 1_000_000);
const BIG_LABEL = BIG >= 1e6 ? `${BIG / 1e6}M` : String(BIG);
/**
 * The 1M case on PGlite (decision 173): seeded once into a data directory kept between runs (BENCH_PGLITE_BIG_DIR), copied
 * for each use. BENCH_PGLITE_BIG=0 leaves it out.
 */
const PGLITE_BIG = process.env.BENCH_PGLITE_BIG !== '0';
/** Rows a seed statement inserts: each chunk is its own statement and transaction (its triggers' work included). */
const SEED_CHUNK = 100_000;
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REFRESH_N = Number(process.env.BENCH_REFRESH_N ?? 2000);
/** The add alone at 1k (see the header). */
const ONLY_ADD = process.env.BENCH_TRACKINGS_ONLY === 'add';
const ONLY_REFRESH = process.env.BENCH_TRACKINGS_ONLY === 'refresh';
const REFRESH_ROUNDS = Math.max(1, Number(process.env.BENCH_REFRESH_ROUNDS ?? 1));
/** With BENCH_TRACKINGS_ONLY=refresh: each 1k round followed by one at BIG, the pair's points logged. */
const REFRESH_BIG = process.env.BENCH_REFRESH_BIG === '1';
const ADD_PAIRS = Number(process.env.BENCH_ADD_PAIRS ?? 2);
/**
 * BENCH_ADD_ACCOUNTS=N (with BENCH_TRACKINGS_ONLY=add): the adds go to N accounts in turn, the API's and the floor's
 * alike (decision 190). One account by default: every add then waits for the account's lock (decision 189).
 */
const ADD_ACCOUNTS = Math.max(1, Number(process.env.BENCH_ADD_ACCOUNTS ?? 1));
const PGLITE_ONLY = process.env.BENCH_TRACKINGS_PGLITE_ONLY === '1';
const POSTGRES_ONLY = process.env.BENCH_TRACKINGS_POSTGRES_ONLY === '1';

const log = (...a: unknown[]) => console.error('[trackings.bench]', ...a);

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Requests answered. */
  count: number;
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
      p50: r.latency.p50,
      p99: r.latency.p99,
      non2xx: r.non2xx + r.errors,
      count: r.requests.total,
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

interface OpenOptions {
  databaseUrl?: string;
  extraEnv?: Record<string, string>;
  /** A PGlite data directory to open (a copy of the kept 1M one); removed at close, as a fresh one is. */
  dataDir?: string;
  /** Log in to this account (the one the directory was seeded for) instead of signing up a new one. */
  email?: string;
  /** PostgreSQL: the new database is a copy of this one (the seeded 1M one). */
  template?: string;
}

const PASSWORD = 'password123';

async function openApp(opts: OpenOptions = {}) {
  const databaseUrl = opts.databaseUrl ? await freshDatabase(opts.databaseUrl, 'trackings', opts.template) : undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'shiptrail-bench-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    SESSION_SECRET: 'bench-secret-bench-secret-bench-secret-00',
    LOG_LEVEL: 'silent',
    QUEUE_POLL_SECONDS: '0.5',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...opts.extraEnv,
  } as NodeJS.ProcessEnv);
  const ctx = await createContext(config, createLogger(config));
  const app = await buildApp(ctx, { logger: false });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const email = opts.email ?? `bench${Date.now()}@example.com`;
  const res = opts.email
    ? await app.inject({ method: 'POST', url: '/v1/user/general/login', payload: { email, password: PASSWORD } })
    : await app.inject({
        method: 'POST',
        url: '/v1/user/general/signup',
        payload: { email, password: PASSWORD, repassword: PASSWORD, terms: true },
      });
  const session = res.json().payload?.sessionToken as string;
  if (!session) throw new Error(`no session for ${email}: ${res.body}`);
  const [u] = await rows<{ id: string }>(ctx, sql`select id from users where email = ${email}`);
  const userId = u!.id;
  // Enough balance for every add the bench makes (a kept directory's account is topped up again at each use).
  const ref = `bench-${Date.now()}`;
  await ctx.db.execute(sql`insert into ledger_entries (user_id, amount_cents, kind, ref) values (${userId}, 1000000000, 'topup', ${ref})`);
  await ctx.db.execute(sql`update billing_accounts set balance_cents = balance_cents + 1000000000 where user_id = ${userId}`);
  return {
    ctx,
    url,
    session,
    userId,
    email,
    dataDir,
    /** Closes the app and the database; keep = leave the PGlite directory on disk (to be kept). */
    async close(keep = false) {
      await app.close();
      await closeContext(ctx);
      if (!keep) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type App = Awaited<ReturnType<typeof openApp>>;

async function rows<T>(ctx: AppContext, q: ReturnType<typeof sql>): Promise<T[]> {
  const r = (await ctx.db.execute(q)) as unknown as { rows?: T[] };
  return r.rows ?? (r as unknown as T[]);
}

interface Seeded {
  /** Seconds for the whole seed: the trackings, the checkpoints, VACUUM ANALYZE. */
  seconds: number;
  /** Seconds per 100k trackings inserted (the inserts alone, their indexes and triggers included). */
  per100k: number;
}

/**
 * Trackings from..to straight into the database, generated inside it (generate_series), SEED_CHUNK rows a statement,
 * through the real table: every index and trigger of `trackings` runs as it does for the API's writes (the
 * open_heard_days rollup by its statement trigger; delivery_days counts none: no seeded parcel has a delivery scan).
 * Then 4 checkpoints for each of the account's newest 1000 (the checkpoints' triggers keep the trackings' summary
 * columns and, through them, the rollups) and VACUUM ANALYZE. The same rows on PGlite and PostgreSQL.
 */
async function seed(ctx: AppContext, userId: string, from: number, to: number): Promise<Seeded> {
  const t0 = performance.now();
  for (let a = from; a <= to; a += SEED_CHUNK) {
    const b = Math.min(to, a + SEED_CHUNK - 1);
    await ctx.db.execute(sql`
      insert into trackings (user_id, tid, courier, status, origin, destination, created_at, updated_at, next_check_at)
      select ${userId}::uuid, 'SEED' || g, (array['ups','usps','fedex','canadapost'])[1 + g % 4],
             (array['InTransit','Delivered','Pending','InfoReceived'])[1 + g % 4], 'Memphis, TN', 'Austin, TX',
             now() - interval '1 day' - (g || ' seconds')::interval, now() - (g || ' seconds')::interval, null
      from generate_series(${a}::int, ${b}::int) g`);
    if (to - from >= SEED_CHUNK) log(`seeded ${b - from + 1} of ${to - from + 1} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const inserts = (performance.now() - t0) / 1000;
  await ctx.db.execute(sql`delete from checkpoints`);
  await ctx.db.execute(sql`
    insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
    select t.id, 'InTransit', 'Memphis, TN', 'Departed FedEx hub', t.created_at + (k || ' hours')::interval, md5(t.id::text || k)
    from (select id, created_at from trackings where user_id = ${userId}::uuid order by created_at desc, id desc limit 1000) t, generate_series(1, 4) k`);
  // VACUUM too, not only ANALYZE: otherwise autovacuum wakes on the fresh rows during the first load measured
  // (it made the floor, measured first, half as fast as the API measured after it).
  await ctx.db.execute(sql`vacuum analyze`);
  await checkRollups(ctx, userId);
  return { seconds: (performance.now() - t0) / 1000, per100k: (inserts * 100_000) / (to - from + 1) };
}

/** The rollups the triggers keep agree with the rows they count (a seed that bypassed them would fail here). */
async function checkRollups(ctx: AppContext, userId: string) {
  const [r] = await rows<{ open: string; counted: string; delivered: string; days: string }>(
    ctx,
    sql`select (select count(*) from trackings where user_id = ${userId}::uuid and status not in ('Delivered', 'Expired')) as open,
               (select coalesce(sum(parcels), 0) from open_heard_days where user_id = ${userId}::uuid) as counted,
               (select count(*) from trackings where user_id = ${userId}::uuid and status = 'Delivered' and delivered_at is not null) as delivered,
               (select coalesce(sum(delivered), 0) from delivery_days where user_id = ${userId}::uuid) as days`,
  );
  if (Number(r!.open) !== Number(r!.counted) || Number(r!.delivered) !== Number(r!.days))
    throw new Error(`rollups disagree with the seeded rows: ${JSON.stringify(r)}`);
}

/**
 * The PGlite data directory with BIG trackings, kept between runs (decision 173): made once (sign-up, seed, closed
 * cleanly), then copied for each use, since a run writes to the database it opens. Its name carries a hash of the
 * migrations and of the seed, so a change to either makes it again. BENCH_PGLITE_BIG_DIR names another place.
 */
async function keptBigDirectory(): Promise<{ dir: string; email: string; seeded: Seeded; kept: boolean }> {
  const drizzle = path.join(REPO, 'apps/server/drizzle');
  const hash = createHash('sha256');
  for (const f of readdirSync(drizzle)
    .filter((f) => f.endsWith('.sql'))
    .sort())
    hash.update(f).update(readFileSync(path.join(drizzle, f)));
  hash.update(seed.toString()).update(String(BIG));
  const key = hash.digest('hex').slice(0, 12);
  const dir = process.env.BENCH_PGLITE_BIG_DIR ?? path.join(tmpdir(), `shiptrail-bench-pglite-${BIG_LABEL}-${key}`);
  const meta = path.join(dir, 'bench-seed.json');
  if (existsSync(meta)) return { dir, ...(JSON.parse(readFileSync(meta, 'utf8')) as { email: string; seeded: Seeded }), kept: true };
  // Made beside its final place and renamed once closed: an interrupted seed leaves no directory that looks done.
  const making = `${dir}.making-${process.pid}`;
  rmSync(making, { recursive: true, force: true });
  mkdirSync(making, { recursive: true });
  const app = await openApp({ dataDir: making });
  try {
    const seeded = await seed(app.ctx, app.userId, 1, BIG);
    await app.ctx.db.execute(sql`checkpoint`);
    await app.close(true);
    writeFileSync(path.join(making, 'bench-seed.json'), JSON.stringify({ email: app.email, seeded }));
    rmSync(dir, { recursive: true, force: true });
    renameSync(making, dir);
    return { dir, email: app.email, seeded, kept: false };
  } catch (err) {
    await app.close().catch(() => undefined);
    throw err;
  }
}

const bigPostgres = new Map<string, Promise<{ name: string; email: string; seeded: Seeded }>>();

/**
 * PostgreSQL's BIG database, seeded once a run (per server) and closed; each use is a new database made from it as a
 * template (a file copy on the server), logged in to its account, as PGlite's kept directory is copied.
 */
async function openBigPostgres(adminUrl: string, extraEnv: Record<string, string> = {}) {
  if (!bigPostgres.has(adminUrl)) {
    bigPostgres.set(
      adminUrl,
      (async () => {
        const app = await openApp({ databaseUrl: adminUrl });
        const name = new URL(app.ctx.config.DATABASE_URL!).pathname.slice(1);
        try {
          const seeded = await seed(app.ctx, app.userId, 1, BIG);
          return { name, email: app.email, seeded };
        } finally {
          await app.close();
        }
      })(),
    );
  }
  const big = await bigPostgres.get(adminUrl)!;
  const t0 = performance.now();
  const app = await openApp({ databaseUrl: adminUrl, template: big.name, email: big.email, extraEnv });
  const how = `seeded in ${big.seeded.seconds.toFixed(0)} s (${big.seeded.per100k.toFixed(1)} s per 100k), copied in ${((performance.now() - t0) / 1000).toFixed(0)} s`;
  return { app, how };
}

/** An app on a copy of the kept BIG directory, logged in to its account. */
async function openBigCopy(extraEnv: Record<string, string> = {}) {
  const big = await keptBigDirectory();
  const t0 = performance.now();
  const copy = mkdtempSync(path.join(tmpdir(), 'shiptrail-bench-big-'));
  cpSync(big.dir, copy, { recursive: true });
  const copySeconds = (performance.now() - t0) / 1000;
  const app = await openApp({ dataDir: copy, email: big.email, extraEnv });
  const how = big.kept
    ? `seeded in ${big.seeded.seconds.toFixed(0)} s (${big.seeded.per100k.toFixed(1)} s per 100k) by an earlier run, copied in ${copySeconds.toFixed(0)} s`
    : `seeded in ${big.seeded.seconds.toFixed(0)} s (${big.seeded.per100k.toFixed(1)} s per 100k)`;
  return { app, how };
}

/**
 * The floor: a minimal route in the same process, on the same database pool, that runs only the best single
 * statement for the same work and sends its result (no auth, no plugins, no validation). List: the page
 * statement the API uses (repo.listPageJson). Add: one statement that inserts the tracking, books the
 * charge and moves the balance (the API also enqueues the refresh job and checks the balance first), sent as a
 * named statement as the API's add is (executeNamed: prepared once per connection on PostgreSQL, decision 184).
 */
async function floorRoutes(app: App) {
  const f = Fastify({ logger: false });
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
  // The number comes in the body, built one by one by the load generator as the API's are (floorAdds): the same
  // request and the same work for the generator in this thread; no validation, no detection.
  f.post('/floor/add', async (req) => {
    const { tid, account } = req.body as { tid: string; account?: string };
    const userId = account ?? app.userId;
    const r = await executeNamed(
      app.ctx.db,
      sql`with t as (insert into trackings (user_id, tid, courier, next_check_at) values (${userId}::uuid, ${tid}, 'ups', now()) returning id, tid),
               l as (insert into ledger_entries (user_id, amount_cents, kind, ref, description) select ${userId}::uuid, -5, 'tracking', t.id::text, t.tid from t returning amount_cents)
          update billing_accounts set balance_cents = balance_cents + (select amount_cents from l), updated_at = now() where user_id = ${userId}::uuid returning balance_cents`,
    );
    return {
      code: 201,
      status: 'success',
      message: 'OK',
      payload: { tid, balance: rowsOf<{ balance_cents: number }>(r)[0]?.balance_cents },
    };
  });
  const url = await f.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => f.close() };
}

/** Adds of a new number `${prefix}N` (UPS) each, built one by one, to `path` on `url` with `headers`. */
function adds(
  url: string,
  path: string,
  headers: Record<string, string>,
  prefix: string,
  turns: Array<{ headers?: Record<string, string>; body?: object }> = [{}],
) {
  let n = 0;
  return (opts: Partial<autocannon.Options> = {}) =>
    load({
      url,
      requests: [
        {
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json', ...headers },
          setupRequest: (req: autocannon.Request) => {
            const i = n++;
            const turn = turns.length ? turns[i % turns.length]! : {};
            return {
              ...req,
              headers: { ...req.headers, ...turn.headers },
              body: JSON.stringify({ tid: `${prefix}${i}`, courier: 'ups', ...turn.body }),
            };
          },
        },
      ],
      ...opts,
    });
}

/** Load on the API's add: with the account's session (or `accounts`' in turn) and real HTTP statuses. */
const apiAdds = (app: App, prefix: string, accounts: Account[] = []) =>
  adds(
    app.url,
    '/v1/trackings/add',
    { 'sm-api-token': app.session, 'sm-http-status': 'real' },
    prefix,
    accounts.map((a) => ({ headers: { 'sm-api-token': a.session } })),
  );

/** Load on the floor's add: the same requests as the API's (a new number in each body, `accounts` in turn), without a session. */
const floorAdds = (url: string, prefix: string, accounts: Account[] = []) =>
  adds(
    url,
    '/floor/add',
    {},
    prefix,
    accounts.map((a) => ({ body: { account: a.userId } })),
  );

type Account = { session: string; userId: string };

/** `n` accounts for BENCH_ADD_ACCOUNTS: the app's own and n - 1 signed up beside it, each topped up as openApp does. */
async function accountsOf(app: App, n: number): Promise<Account[]> {
  const out: Account[] = [{ session: app.session, userId: app.userId }];
  for (let i = 1; i < n; i++) {
    const email = `bench${Date.now()}-${i}@example.com`;
    const res = await fetch(`${app.url}/v1/user/general/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD, repassword: PASSWORD, terms: true }),
    });
    const session = ((await res.json()) as { payload?: { sessionToken?: string } }).payload?.sessionToken;
    if (!session) throw new Error(`no session for ${email}`);
    const [u] = await rows<{ id: string }>(app.ctx, sql`select id from users where email = ${email}`);
    await app.ctx.db.execute(
      sql`insert into ledger_entries (user_id, amount_cents, kind, ref) values (${u!.id}, 1000000000, 'topup', ${`bench-${email}`})`,
    );
    await app.ctx.db.execute(sql`update billing_accounts set balance_cents = balance_cents + 1000000000 where user_id = ${u!.id}`);
    out.push({ session, userId: u!.id });
  }
  return out;
}

/** The monotonic clock in µs: the clock of a V8 CPU profile's timestamps (bench/profile-summary.ts cuts a profile by it). */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * BENCH_TRACKINGS_ONLY=add: the API's add and the floor's at 1k trackings, in alternation (F A, A F, ...), after a
 * second of each to warm up. Each round is logged with its start and end (monotonicUs) for a profile.
 */
async function addAlone(kind: string, databaseUrl: string | undefined, out: BenchResult[]) {
  const app = await openApp({ databaseUrl });
  const floor = await floorRoutes(app);
  try {
    const s = await seed(app.ctx, app.userId, 1, 1000);
    const accounts = ADD_ACCOUNTS > 1 ? await accountsOf(app, ADD_ACCOUNTS) : [];
    const api = apiAdds(app, 'BENCHA', accounts);
    const floorAdd = floorAdds(floor.url, 'BENCHAF', accounts);
    await floorAdd({ duration: 1 });
    await api({ duration: 1 });
    // PostgreSQL's CPU: its postmaster's and every process the postmaster started.
    const postmaster = databaseUrl
      ? parentOf((await rows<{ pid: number }>(app.ctx, sql`select pg_backend_pid() as pid`))[0]!.pid)
      : undefined;
    const rounds: Record<'floor' | 'api', Load[]> = { floor: [], api: [] };
    const cpu: Record<'floor' | 'api', Array<Record<string, number>>> = { floor: [], api: [] };
    const shares: number[] = [];
    for (let i = 0; i < ADD_PAIRS; i++) {
      for (const which of i % 2 ? (['api', 'floor'] as const) : (['floor', 'api'] as const)) {
        const t0 = monotonicUs();
        const meter = cpuMeter(postmaster);
        const r = await (which === 'api' ? api() : floorAdd());
        const perRequest = meter(Math.max(1, r.count));
        log(
          `round ${kind} ${which} ${i} from ${t0} to ${monotonicUs()} us: ${r.rps}/s p50 ${r.p50} ms p99 ${r.p99} ms, ${r.count} requests, CPU µs per request ${JSON.stringify(perRequest)}`,
        );
        rounds[which].push(r);
        cpu[which].push(perRequest);
      }
      shares.push(rounds.api[i]!.rps / rounds.floor[i]!.rps);
    }
    // CPU per request by thread, the median over the rounds (µs): what the API costs beside the floor whatever the machine's load.
    const cpuOf = (k: 'floor' | 'api') =>
      ['MainThread', 'WorkerThread', 'PostgreSQL']
        .filter((t) => cpu[k][0]![t] !== undefined)
        .map((t) => `${t === 'MainThread' ? 'main' : t === 'WorkerThread' ? 'database thread' : t} ${median(cpu[k].map((c) => c[t]!))}`)
        .join(', ');
    const list = (k: 'floor' | 'api', f: (r: Load) => number) => rounds[k].map(f).join(', ');
    out.push({
      name: 'add a tracking alone: the API and its floor in alternation',
      setup: `${kind}, 1k trackings (seeded in ${s.seconds.toFixed(1)} s)${ADD_ACCOUNTS > 1 ? `, adds to ${ADD_ACCOUNTS} accounts in turn` : ''}`,
      metrics: {
        'API req/s': list('api', (r) => r.rps),
        'floor req/s': list('floor', (r) => r.rps),
        'share of floor, median of pairs': `${(100 * median(shares)).toFixed(0)}%`,
        'API p50 / p99 ms': list('api', (r) => r.p50) + ' / ' + list('api', (r) => r.p99),
        'floor p50 / p99 ms': list('floor', (r) => r.p50) + ' / ' + list('floor', (r) => r.p99),
        'API CPU µs per request': cpuOf('api'),
        'floor CPU µs per request': cpuOf('floor'),
        errors: [...rounds.api, ...rounds.floor].reduce((n, r) => n + r.non2xx, 0),
      },
      note: `${ADD_PAIRS} pairs of ${SECONDS} s rounds at ${CONNECTIONS} connections, floor and API in alternation (F A, A F, ...); floor = the same process's route running only the best single SQL statement for the work (no auth, no plugins); CPU per request = the median over the rounds of each thread's CPU time (main: the server and the load generator; database thread: PGlite's) and the PostgreSQL server's processes', over the requests answered`,
    });
  } finally {
    await floor.close();
    await app.close();
  }
}

async function apiRound(
  label: string,
  app: App,
  bare: { url: string },
  out: BenchResult[],
  prefix: string,
): Promise<{ list: Load; add: Load }> {
  // Real HTTP statuses, so autocannon counts failures as non-2xx (by default /v1 answers 200 with the code inside).
  const headers = { 'sm-api-token': app.session, 'content-type': 'application/json', 'sm-http-status': 'real' };
  const floor = await floorRoutes(app);
  try {
    // Warm-up: JIT, connection pool, plan cache.
    await load({ url: `${app.url}/v1/trackings/get?numRecords=100`, headers, duration: 1 });
    await load({ url: `${floor.url}/floor/list`, duration: 1 });
    const b = await load({ url: `${bare.url}/bare` });
    const addOnce = apiAdds(app, prefix);
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
    const floorAdd = await floorAdds(floor.url, `${prefix}F`)();
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
          'p50 ms': r.p50,
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
      `list ${list.rps}/s (cache off ${listNoCache.rps}, floor ${floorList.rps}) p50 ${list.p50}ms p99 ${list.p99}ms, add ${add.rps}/s (cache off ${addNoCache.rps}, floor ${floorAdd.rps}), bare ${b.rps}/s`,
    );
    return { list, add };
  } finally {
    await floor.close();
  }
}

type Round = { list: Load; add: Load };

/** The list's p50 at 1k and at BIG, measured in alternation (ABBA pairs), so that the machine's load drifts over both. */
interface Alternated {
  p50Small: number[];
  p50Big: number[];
  p99Small: number[];
  p99Big: number[];
  /** Median over the pairs of (BIG p50 / 1k p50). */
  ratio: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function alternateLists(small: App, big: App, pairs = 4, seconds = 3): Promise<Alternated> {
  const list = (app: App) =>
    load({ url: `${app.url}/v1/trackings/get?numRecords=100`, headers: { 'sm-api-token': app.session }, duration: seconds });
  await list(small);
  await list(big);
  const a: Alternated = { p50Small: [], p50Big: [], p99Small: [], p99Big: [], ratio: 0 };
  for (let i = 0; i < pairs; i++) {
    const [x, y] = i % 2 ? [await list(big), await list(small)].reverse() : [await list(small), await list(big)];
    a.p50Small.push(x!.p50);
    a.p99Small.push(x!.p99);
    a.p50Big.push(y!.p50);
    a.p99Big.push(y!.p99);
  }
  a.ratio = median(a.p50Big.map((b, i) => b / a.p50Small[i]!));
  log(`alternated list p50 1k ${a.p50Small.join(',')} / ${BIG_LABEL} ${a.p50Big.join(',')}: ratio ${a.ratio.toFixed(2)}`);
  return a;
}

/**
 * The API at 1k and at BIG trackings, each in its own database (PGlite's BIG one a copy of its kept directory), both
 * open at once: first the two lists in alternation (before any add, which would put light new rows at the top of
 * the page), then each size's round.
 */
async function apiBench(kind: 'PGlite' | string, databaseUrl: string | undefined, out: BenchResult[], withBig: boolean) {
  const bare = await bareFastify();
  const small = await openApp({ databaseUrl });
  let big: App | undefined;
  try {
    const s1 = await seed(small.ctx, small.userId, 1, 1000);
    const smallLabel = `${kind}, 1k trackings (seeded in ${s1.seconds.toFixed(1)} s)`;
    if (!withBig) {
      out.push({ name: `list/add with ${BIG_LABEL} trackings`, setup: kind, metrics: {}, note: 'skipped (BENCH_PGLITE_BIG=0)' });
      return { small: await apiRound(smallLabel, small, bare, out, 'BENCHA') };
    }
    let how: string;
    if (databaseUrl) ({ app: big, how } = await openBigPostgres(databaseUrl));
    else ({ app: big, how } = await openBigCopy());
    const alternated = await alternateLists(small, big);
    const smallRound = await apiRound(smallLabel, small, bare, out, 'BENCHA');
    const bigRound = await apiRound(`${kind}, ${BIG_LABEL} trackings (${how})`, big, bare, out, 'BENCHB');
    return { small: smallRound, big: bigRound, alternated };
  } finally {
    await big?.close();
    await small.close();
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

/**
 * Rate limits lifted; journeys at a tenth of the usual pace: a refreshed tracking's next check is 2 minutes away, so
 * no tracking comes due again while the round runs and each is counted once.
 */
const REFRESH_ENV = {
  UPS_RATE_LIMIT: 'off',
  USPS_RATE_LIMIT: 'off',
  FEDEX_RATE_LIMIT: 'off',
  CANADAPOST_RATE_LIMIT: 'off',
  CARRIER_SANDBOX_PACE: '10',
};

/**
 * The refresh engine with 1k or BIG trackings already stored in the account (not due: the seed leaves them without
 * a next check), then REFRESH_N due ones. Returns the engine's share of the sandbox's raw rate, in %.
 */
async function refreshBench(kind: string, databaseUrl: string | undefined, out: BenchResult[], big: boolean): Promise<number> {
  let app: App;
  let stored: string;
  if (big) {
    const opened = databaseUrl ? await openBigPostgres(databaseUrl, REFRESH_ENV) : await openBigCopy(REFRESH_ENV);
    app = opened.app;
    stored = `${BIG_LABEL} stored (${opened.how})`;
  } else {
    app = await openApp({ databaseUrl, extraEnv: REFRESH_ENV });
    await seed(app.ctx, app.userId, 1, 1000);
    stored = '1k stored';
  }
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
      setup: `${kind}, ${stored}, ${fetched} refreshed over 4 carriers`,
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
    log(kind, stored, `refresh engine ${engine}/s, sandbox raw ${rawRate}/s`);
    return (100 * engine) / rawRate;
  } finally {
    await app.close();
  }
}

/**
 * Issue 29's growth targets, from the rounds of one run: the list's p50 at BIG within 1.5x of its p50 at 1k, and the
 * refresh engine's share of the sandbox's raw rate at BIG within 10 points of its share at 1k.
 */
function growth(
  kind: string,
  api: { small?: Round; big?: Round; alternated?: Alternated },
  share1k: number,
  shareBig: number | undefined,
  out: BenchResult[],
) {
  const { small, big, alternated: alt } = api;
  if (!small || !big || !alt || shareBig === undefined) return;
  const points = shareBig - share1k;
  out.push({
    name: `growth: ${BIG_LABEL} trackings against 1k, same run`,
    setup: kind,
    metrics: {
      [`list 100 p50 ms, 1k / ${BIG_LABEL}, alternated`]: `${alt.p50Small.join(', ')} / ${alt.p50Big.join(', ')}`,
      [`list 100 p99 ms, 1k / ${BIG_LABEL}, alternated`]: `${alt.p99Small.join(', ')} / ${alt.p99Big.join(', ')}`,
      'list p50 ratio': Number(alt.ratio.toFixed(2)),
      'list target <= 1.5': alt.ratio <= 1.5 ? 'within' : 'missed',
      'list p50 ratio, rounds above': Number((big.list.p50 / small.list.p50).toFixed(2)),
      'add p50 ratio, rounds above': Number((big.add.p50 / small.add.p50).toFixed(2)),
      [`refresh share of raw, 1k / ${BIG_LABEL}`]: `${share1k.toFixed(1)}% / ${shareBig.toFixed(1)}%`,
      'refresh points': Number(points.toFixed(1)),
      'refresh target within 10 points': Math.abs(points) <= 10 ? 'within' : 'missed',
    },
    note: 'list p50 ratio = the median over 4 pairs of 3 s rounds at 10 connections, 1k and 1M in alternation (ABBA), both databases open at once; the rounds above ran one after the other, so the load can differ between them; the refresh shares from the refresh rounds above (each share against the raw rate measured in its own round)',
  });
}

export default async function trackingsBench(): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  if (ONLY_ADD) {
    if (!POSTGRES_ONLY) await addAlone('PGlite', undefined, out);
    if (!PGLITE_ONLY) await onOwnPostgres(out, (pg) => addAlone(pg.version, pg.url, out));
    return out;
  }
  if (ONLY_REFRESH) {
    const rounds = async (kind: string, url: string | undefined) => {
      for (let i = 0; i < REFRESH_ROUNDS; i++) {
        const small = await refreshBench(kind, url, out, false);
        if (!REFRESH_BIG) continue;
        const big = await refreshBench(kind, url, out, true);
        log(
          kind,
          `round ${i + 1}: share of raw ${small.toFixed(1)}% at 1k, ${big.toFixed(1)}% at ${BIG_LABEL}: ${(small - big).toFixed(1)} points`,
        );
      }
    };
    if (!POSTGRES_ONLY) await rounds('PGlite', undefined);
    if (!PGLITE_ONLY) await onOwnPostgres(out, (pg) => rounds(pg.version, pg.url));
    return out;
  }
  const pgliteApi = await apiBench('PGlite', undefined, out, PGLITE_BIG);
  const pgliteShare = await refreshBench('PGlite', undefined, out, false);
  const pgliteShareBig = PGLITE_BIG ? await refreshBench('PGlite', undefined, out, true) : undefined;
  growth('PGlite', pgliteApi, pgliteShare, pgliteShareBig, out);
  if (PGLITE_ONLY) return out;
  await onOwnPostgres(out, async (pg) => {
    const pgApi = await apiBench(pg.version, pg.url, out, true);
    const pgShare = await refreshBench(pg.version, pg.url, out, false);
    const pgShareBig = await refreshBench(pg.version, pg.url, out, true);
    growth(pg.version, pgApi, pgShare, pgShareBig, out);
  });
  return out;
}

/** `work` on a PostgreSQL server of the bench's own, stopped after it; noted as skipped when none could start. */
async function onOwnPostgres(out: BenchResult[], work: (pg: PrivatePostgres) => Promise<void>): Promise<void> {
  const pg: PrivatePostgres | { skipped: string } = await startPostgres().catch((err: Error) => ({
    skipped: `could not start PostgreSQL: ${err.message}`,
  }));
  if ('skipped' in pg) {
    out.push({ name: 'PostgreSQL half', metrics: {}, note: `skipped: ${pg.skipped}` });
    return;
  }
  try {
    await work(pg);
  } finally {
    pg.stop();
  }
}
