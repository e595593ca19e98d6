// Billing: does adding a tracking (a charge on the account's ledger) slow down as the ledger grows? The
// add-tracking latency (p50, p99) with 1k and with 1M ledger rows in the one account, on PostgreSQL when its
// binaries are installed (else PGlite), and their ratio. The balance is kept beside the ledger, so the target is
// a flat line: 1M within 1.2x of 1k.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../apps/server/src/config.ts';
import { closeContext, createContext } from '../apps/server/src/bootstrap.ts';
import { createLogger } from '../apps/server/src/lib/logger.ts';
import { buildApp } from '../apps/server/src/app.ts';
import type { AppContext } from '../apps/server/src/context.ts';
import { freshDatabase, startPostgres, type PrivatePostgres } from './lib/postgres.ts';
import type { BenchResult } from './lib/types.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const BIG = Number(process.env.BENCH_LEDGER_BIG ?? 1_000_000);
const TARGET_RATIO = 1.2;
const log = (...a: unknown[]) => console.error('[billing.bench]', ...a);

async function rows<T>(ctx: AppContext, q: ReturnType<typeof sql>): Promise<T[]> {
  const r = (await ctx.db.execute(q)) as unknown as { rows?: T[] };
  return r.rows ?? (r as unknown as T[]);
}

/** An app on a fresh database (PGlite in a directory, or a new database on `adminUrl`'s server) with a signed-up account. */
export async function openApp(adminUrl: string | undefined) {
  const databaseUrl = adminUrl ? await freshDatabase(adminUrl, 'billing') : undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'shiptrail-bench-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    SESSION_SECRET: 'bench-secret-bench-secret-bench-secret-00',
    LOG_LEVEL: 'silent',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
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
  const session = signup.json().payload.sessionToken as string;
  const [u] = await rows<{ id: string }>(ctx, sql`select id from users where email = ${email}`);
  return {
    ctx,
    url,
    session,
    userId: u!.id,
    async close() {
      await app.close();
      await closeContext(ctx);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Ledger rows for the account, numbered from..to, in one statement that moves the kept balance by their sum in
 * the same statement (as every ledger write does), so the balance stays the ledger's sum. Each is a $10 credit,
 * which also pays for every add the bench makes.
 */
async function seedLedger(ctx: AppContext, userId: string, from: number, to: number): Promise<number> {
  const t0 = performance.now();
  await ctx.db.execute(sql`
    with ins as (
      insert into ledger_entries (user_id, amount_cents, kind, ref, description)
      select ${userId}::uuid, 1000, 'promo', 'bench-' || g, 'bench seed' from generate_series(${from}::int, ${to}::int) g
      returning amount_cents
    )
    update billing_accounts set balance_cents = balance_cents + (select coalesce(sum(amount_cents), 0) from ins) where user_id = ${userId}::uuid`);
  await ctx.db.execute(sql`analyze ledger_entries`);
  return (performance.now() - t0) / 1000;
}

async function addRound(app: Awaited<ReturnType<typeof openApp>>, prefix: string) {
  const headers = { 'sm-api-token': app.session, 'content-type': 'application/json', 'sm-http-status': 'real' };
  let n = 0;
  const opts = (duration: number) => ({
    url: app.url,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: 'POST' as const,
        path: '/v1/trackings/add',
        headers,
        setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify({ tid: `${prefix}${n++}`, courier: 'ups' }) }),
      },
    ],
  });
  await autocannon(opts(1)); // warm-up: JIT, pool, plan cache
  const r = await autocannon(opts(SECONDS));
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors };
}

export default async function billingBench(): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const server: PrivatePostgres | { skipped: string } = await startPostgres().catch((err: Error) => ({ skipped: err.message }));
  const kind = 'skipped' in server ? 'PGlite' : server.version;
  const app = await openApp('skipped' in server ? undefined : server.url);
  try {
    const [{ n: existing } = { n: 0 }] = await rows<{ n: number }>(
      app.ctx,
      sql`select count(*)::int as n from ledger_entries where user_id = ${app.userId}::uuid`,
    );
    await seedLedger(app.ctx, app.userId, 1, 1000 - existing);
    const small = await addRound(app, 'BILLA');
    const [{ n: atSmall } = { n: 0 }] = await rows<{ n: number }>(
      app.ctx,
      sql`select count(*)::int as n from ledger_entries where user_id = ${app.userId}::uuid`,
    );
    const seeded = await seedLedger(app.ctx, app.userId, 1001, BIG);
    const [{ n: atBig } = { n: 0 }] = await rows<{ n: number }>(
      app.ctx,
      sql`select count(*)::int as n from ledger_entries where user_id = ${app.userId}::uuid`,
    );
    const big = await addRound(app, 'BILLB');
    const ratio = big.p50 / small.p50;
    // One statement, one snapshot: adds the load generator left in flight still commit after the round ends, and
    // one of them between two separate reads made this say false while every add is all-or-nothing.
    const [both] = await rows<{ kept: string | number; sum: string | number }>(
      app.ctx,
      sql`select (select balance_cents from billing_accounts where user_id = ${app.userId}::uuid) as kept, (select coalesce(sum(amount_cents), 0) from ledger_entries where user_id = ${app.userId}::uuid) as sum`,
    );
    const consistent = Number(both!.kept) === Number(both!.sum);
    for (const [setup, r] of [
      [`${kind}, ${atSmall.toLocaleString('en-US')} ledger rows in the account (1k before the round)`, small],
      [`${kind}, ${atBig.toLocaleString('en-US')} ledger rows in the account (seeded in ${seeded.toFixed(0)} s)`, big],
    ] as const)
      out.push({
        name: 'add a tracking as the ledger grows (charge under the account lock)',
        setup,
        metrics: { 'p50 ms': r.p50, 'p99 ms': r.p99, 'req/s': r.rps, errors: r.errors },
      });
    out.push({
      name: 'ledger growth: add-tracking p50 at 1M ledger rows / at 1k',
      setup: kind,
      metrics: {
        ratio: Number(ratio.toFixed(2)),
        target: `<= ${TARGET_RATIO}`,
        verdict: ratio <= TARGET_RATIO ? 'within' : 'over',
        'balance == ledger sum': String(consistent),
      },
      note: `${CONNECTIONS} connections for ${SECONDS} s each, all adds on the one account`,
    });
    log(`p50 ${small.p50} ms at 1k, ${big.p50} ms at ${atBig}: ratio ${ratio.toFixed(2)}; balance == ledger sum: ${consistent}`);
  } finally {
    await app.close();
    if (!('skipped' in server)) server.stop();
  }
  return out;
}
