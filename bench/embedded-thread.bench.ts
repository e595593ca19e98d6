// The embedded default under background work (issue 29, decision 115): a person's list of 100 trackings, asked one
// request at a time over HTTP, and the event loop's delay, while the platform works on PGlite: a refresh round of
// 2,000 trackings against the carrier sandbox, a 5,000-row CSV import, and a burst of 300 webhook deliveries; each
// beside the idle floor measured in the same process. Run twice, each in a fresh process so its RSS is its own:
// PGlite in the main thread (SHIPTRAIL_PGLITE_THREAD=main, the old path, kept for this comparison only) and in its
// own thread (the default). Target (design §6): list p99 < 150 ms, event-loop delay < 100 ms, RSS < 400 MB.
//
// `npm run bench -- embedded-thread`, or `npx tsx bench/embedded-thread.bench.ts` (prints JSON and writes
// bench/results/embedded-thread.json).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { eq, sql } from 'drizzle-orm';
import { inTransitEvent } from './lib/rows.ts';
import type { BenchResult } from './lib/types.ts';
import { percentileMs as pct } from './lib/stats.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const REFRESH_N = Number(process.env.BENCH_REFRESH_N ?? 2000);
const IMPORT_N = Number(process.env.BENCH_IMPORT_N ?? 5000);
const HOOKS_N = Number(process.env.BENCH_HOOKS_N ?? 300);
const log = (...a: unknown[]) => console.error('[embedded-thread.bench]', ...a);

type Mode = 'main' | 'worker';
interface Phase {
  phase: string;
  work: string;
  seconds: number;
  probes: number;
  p50: number;
  p99: number;
  max: number;
  loopP99: number;
  loopMax: number;
  /**
   * In the database thread (after only): top-level background statements and a person's (decision 164), queue included,
   * transactions' hold of PGlite, ms, and the statements each transaction ran (each a round trip between the threads
   * while it holds PGlite, decision 178).
   */
  thread?: string;
}
interface ChildReport {
  mode: Mode;
  phases: Phase[];
  rssMbAfter: number;
  rssMbPeak: number;
}

async function child(mode: Mode): Promise<ChildReport> {
  process.env.SHIPTRAIL_PGLITE_THREAD = mode;
  const { loadConfig } = await import('../apps/server/src/config.ts');
  const { closeContext, createContext } = await import('../apps/server/src/bootstrap.ts');
  const { createLogger } = await import('../apps/server/src/lib/logger.ts');
  const { buildApp } = await import('../apps/server/src/app.ts');
  const { runDueRefreshes } = await import('../apps/server/src/modules/trackings/refresh.ts');
  const { startJobWorkers } = await import('../apps/server/src/jobs/registry.ts');
  const { fanOutStatusEvent } = await import('../apps/server/src/modules/notifications/fanout.ts');
  const { trackingEvents, trackings, users } = await import('../apps/server/src/db/schema.ts');

  let rssPeak = process.memoryUsage.rss();
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 250);
  const seen = new Set<string>();
  const rx = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string') seen.add(id);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => rx.listen(0, '127.0.0.1', r));
  const rxUrl = `http://127.0.0.1:${(rx.address() as { port: number }).port}/hook`;

  const dataDir = mkdtempSync(path.join(tmpdir(), 'shiptrail-bench-thread-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    SESSION_SECRET: 'bench-secret-bench-secret-bench-secret-02',
    LOG_LEVEL: 'silent',
    QUEUE_POLL_SECONDS: '0.5',
    PUBLIC_URL: 'http://bench.local',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    UPS_RATE_LIMIT: 'off',
    USPS_RATE_LIMIT: 'off',
    FEDEX_RATE_LIMIT: 'off',
    CANADAPOST_RATE_LIMIT: 'off',
    CARRIER_SANDBOX_PACE: '10',
  } as NodeJS.ProcessEnv);
  const ctx = await createContext(config, createLogger(config));
  const app = await buildApp(ctx, { logger: false });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const rows = async <T>(q: ReturnType<typeof sql>) => {
    const r = (await ctx.db.execute(q)) as unknown as { rows?: T[] };
    return r.rows ?? (r as unknown as T[]);
  };
  const signUp = async (email: string) => {
    const r = await app.inject({
      method: 'POST',
      url: '/v1/user/general/signup',
      payload: { email, password: 'password123', repassword: 'password123', terms: true },
    });
    const token = r.json().payload.sessionToken as string;
    const [u] = await rows<{ id: string }>(sql`select id from users where email = ${email}`);
    await ctx.db.execute(
      sql`insert into ledger_entries (user_id, amount_cents, kind, ref) values (${u!.id}, 1000000000, 'topup', ${`bench-${email}`})`,
    );
    await ctx.db.execute(sql`update billing_accounts set balance_cents = balance_cents + 1000000000 where user_id = ${u!.id}`);
    return { token, id: u!.id };
  };
  try {
    // The person: 1,000 trackings, the newest 1,000 with 4 checkpoints each (as the trackings bench seeds them).
    const person = await signUp('person@example.com');
    await ctx.db.execute(sql`
      insert into trackings (user_id, tid, courier, status, origin, destination, created_at, updated_at, next_check_at)
      select ${person.id}::uuid, 'SEED' || g, (array['ups','usps','fedex','canadapost'])[1 + g % 4],
             (array['InTransit','Delivered','Pending','InfoReceived'])[1 + g % 4], 'Memphis, TN', 'Austin, TX',
             now() - interval '1 day' - (g || ' seconds')::interval, now() - (g || ' seconds')::interval, null
      from generate_series(1, 1000) g`);
    await ctx.db.execute(sql`
      insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
      select t.id, 'InTransit', 'Memphis, TN', 'Departed FedEx hub', t.created_at + (k || ' hours')::interval, md5(t.id::text || k)
      from trackings t, generate_series(1, 4) k where t.user_id = ${person.id}::uuid`);
    await ctx.db.execute(sql`vacuum analyze`);
    // The platform's other account, whose parcels move.
    const busy = await signUp('busy@example.com');
    // Every job worker, as `npm start` runs them (the refresh rounds are driven below, one at a time).
    await startJobWorkers(ctx);

    const probe = async () => {
      const t = performance.now();
      const r = await fetch(`${url}/v1/trackings/get?numRecords=100`, { headers: { 'sm-api-token': person.token } });
      await r.arrayBuffer();
      if (!r.ok) throw new Error(`list answered ${r.status}`);
      return performance.now() - t;
    };
    for (let i = 0; i < 20; i++) await probe();

    const phases: Phase[] = [];
    /** Runs `work` while the person lists, one request at a time 20 ms apart; the same for `minProbes` at least. */
    const measure = async (phase: string, work: () => Promise<string>, minProbes = 0) => {
      const lat: number[] = [];
      await ctx.database.thread?.stats(true);
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      let running = true;
      const prober = (async () => {
        while (running || lat.length < minProbes) {
          lat.push(await probe());
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const t0 = performance.now();
      const what = await work();
      const seconds = (performance.now() - t0) / 1000;
      running = false;
      await prober;
      loop.disable();
      const st = await ctx.database.thread?.stats(true);
      const thread =
        st &&
        `statements ${st.statement.n}, p50 / p99 / max ${st.statement.p50} / ${st.statement.p99} / ${st.statement.max}; a person's statements ${st.urgentStatement.n}, p50 / p99 / max ${st.urgentStatement.p50} / ${st.urgentStatement.p99} / ${st.urgentStatement.max}; transactions ${st.transaction.n}, held p50 / p99 / max ${st.transaction.p50} / ${st.transaction.p99} / ${st.transaction.max}, statements in each p50 / max ${st.transactionStatements.p50} / ${st.transactionStatements.max}`;
      const p: Phase = {
        ...(thread ? { thread } : {}),
        phase,
        work: what,
        seconds: Math.round(seconds * 10) / 10,
        probes: lat.length,
        p50: pct(lat, 50),
        p99: pct(lat, 99),
        max: pct(lat, 100),
        loopP99: Math.round(loop.percentile(99) / 1e6),
        loopMax: Math.round(loop.max / 1e6),
      };
      log(mode, JSON.stringify(p));
      phases.push(p);
    };

    await measure('idle', async () => 'nothing else', 100);

    await measure('refresh round', async () => {
      const couriers = ['ups', 'usps', 'fedex', 'canadapost'] as const;
      const per = Math.ceil(REFRESH_N / couriers.length);
      const numbers = (c: (typeof couriers)[number], i: number) => {
        const d = (len: number) => String(100000 + i).padStart(len, '7');
        return c === 'ups' ? `1ZBENCH${d(11)}` : c === 'usps' ? `94001${d(17)}` : c === 'fedex' ? `7${d(11)}` : `00739${d(11)}`;
      };
      for (const c of couriers) {
        const values = Array.from({ length: per }, (_, i) => sql`(${busy.id}, ${numbers(c, i)}, ${c}, now() - interval '1 second')`);
        for (let i = 0; i < values.length; i += 500)
          await ctx.db.execute(
            sql`insert into trackings (user_id, tid, courier, next_check_at) values ${sql.join(values.slice(i, i + 500), sql`, `)}`,
          );
      }
      const t0 = performance.now();
      let fetched = 0;
      while (fetched < per * couriers.length) {
        const s = await runDueRefreshes(ctx);
        if (s.fetched === 0) break;
        fetched += s.fetched;
      }
      return `${fetched} trackings refreshed, ${Math.round(fetched / ((performance.now() - t0) / 1000))}/s`;
    });

    await measure('CSV import', async () => {
      const csv = ['tid,courier', ...Array.from({ length: IMPORT_N }, (_, i) => `IMP${String(i).padStart(7, '0')},ups`)].join('\n');
      const t0 = performance.now();
      const r = await fetch(`${url}/v1/trackings/import`, {
        method: 'POST',
        headers: { 'sm-api-token': busy.token, 'content-type': 'text/csv', 'sm-http-status': 'real' },
        body: csv,
      });
      const body = (await r.json()) as { payload?: { added?: number; imported?: number } };
      if (!r.ok) throw new Error(`import answered ${r.status}: ${JSON.stringify(body).slice(0, 200)}`);
      return `${IMPORT_N} rows in ${Math.round(performance.now() - t0)} ms (${JSON.stringify(body.payload).slice(0, 80)})`;
    });

    await measure('webhook burst', async () => {
      const triggers = { InTransit: true, Delivered: true, Exception: true, Expired: true, InfoReceived: true, OutForDelivery: true };
      const saved = await app.inject({
        method: 'POST',
        url: '/v1/user/general/update',
        headers: { 'sm-api-token': busy.token, 'sm-http-status': 'real' },
        payload: { settings: { receiveNotification: { webhook: { triggers, endpoint: rxUrl } } } },
      });
      if (saved.statusCode !== 200) throw new Error(saved.body);
      const ts = await ctx.db
        .insert(trackings)
        .values(
          Array.from({ length: HOOKS_N }, (_, j) => ({
            userId: busy.id,
            tid: `1ZHOOK${String(j).padStart(10, '0')}`,
            courier: 'ups',
            status: 'Pending',
          })),
        )
        .returning({ id: trackings.id });
      const [u] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.id, busy.id));
      const t0 = performance.now();
      const before = seen.size;
      let next = 0;
      // Status changes as the trackings module makes them (event + fan-out in one transaction), 8 at a time.
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < ts.length) {
            const t = ts[next++]!;
            await ctx.db.transaction(async (tx) => {
              const [e] = await tx.insert(trackingEvents).values(inTransitEvent(t.id, u!.id)).returning({ id: trackingEvents.id });
              await tx.update(trackings).set({ status: 'InTransit' }).where(eq(trackings.id, t.id));
              await fanOutStatusEvent(tx, ctx, e!.id);
            });
          }
        }),
      );
      const deadline = Date.now() + 120_000;
      while (seen.size - before < HOOKS_N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const got = seen.size - before;
      return `${HOOKS_N} status changes, ${got} webhooks delivered, ${Math.round(got / ((performance.now() - t0) / 1000))}/s`;
    });

    // No new work, but the jobs the phases queued (refreshes of the imported trackings, deliveries) may still be running.
    await measure('after the work (its jobs draining)', async () => 'no new work', 100);
    const rssMbAfter = Math.round(process.memoryUsage.rss() / 2 ** 20);
    return { mode, phases, rssMbAfter, rssMbPeak: Math.round(Math.max(rssPeak, process.memoryUsage.rss()) / 2 ** 20) };
  } finally {
    clearInterval(sampler);
    await app.close();
    await closeContext(ctx);
    rx.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One fresh process per mode: its RSS is its own, and nothing of the other mode's JIT or heap carries over. */
function runChild(mode: Mode): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', mode], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as ChildReport);
      else reject(new Error(`the ${mode} child exited ${code}: ${out.slice(-500)}`));
    });
  });
}

export default async function embeddedThreadBench(): Promise<BenchResult[]> {
  const reports: ChildReport[] = [];
  for (const mode of ['main', 'worker'] as const) reports.push(await runChild(mode));
  const out: BenchResult[] = [];
  for (const r of reports) {
    const setup = r.mode === 'main' ? 'PGlite in the main thread (before)' : 'PGlite in its own thread (after)';
    const idle = r.phases.find((p) => p.phase === 'idle')!;
    for (const p of r.phases) {
      out.push({
        name: `list 100 while: ${p.phase}`,
        setup,
        metrics: {
          'list p50 / p99 / max ms': `${p.p50} / ${p.p99} / ${p.max}`,
          'idle floor p50 / p99 ms': `${idle.p50} / ${idle.p99}`,
          'event loop delay p99 / max ms': `${p.loopP99} / ${p.loopMax}`,
          probes: p.probes,
          seconds: p.seconds,
        },
        note: p.thread ? `${p.work}; in the database thread (ms): ${p.thread}` : p.work,
      });
    }
    out.push({
      name: 'process RSS',
      setup,
      metrics: { 'RSS after the run MB': r.rssMbAfter, 'peak RSS MB': r.rssMbPeak },
      note: 'the whole process: server, job workers, embedded database (and its thread), the probe and the webhook receiver',
    });
  }
  return out;
}

if (process.argv.includes('--child')) {
  const mode = process.argv[process.argv.indexOf('--child') + 1] as Mode;
  const r = await child(mode);
  console.log(JSON.stringify(r));
  process.exit(0);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await embeddedThreadBench();
  const machine = {
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? '',
    loadAverage: os.loadavg().map((x) => Math.round(x * 10) / 10),
  };
  writeFileSync(
    path.join(here, 'results', 'embedded-thread.json'),
    JSON.stringify({ when: new Date().toISOString(), machine, results }, null, 2) + '\n',
  );
  console.log(JSON.stringify(results, null, 2));
  process.exit(0);
}
