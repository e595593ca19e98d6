// Soak: the whole platform in one process on PGlite (API, worker with the refresh scheduler, carrier sandbox) under
// a steady mixed load for BENCH_SOAK_SECONDS (600 by default): users listing their trackings, new trackings being
// added, the sandbox moving every parcel along its journey. Resident memory and the JavaScript heap are sampled
// every 10 s; the result compares the first minute with the last. The heap is also read after a full collection,
// twice (at the end of the 2nd minute and 5 s before the end): what is still referenced, not what the collector has
// not reached yet. `npm run bench -- soak`.
import { mkdtempSync, rmSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../apps/server/src/config.ts';
import { closeContext, createContext, createLogger } from '../apps/server/src/bootstrap.ts';
import { buildApp } from '../apps/server/src/app.ts';
import { startWorkers } from '../apps/server/src/jobs/registry.ts';
import { rowsOf } from '../apps/server/src/db/client.ts';
import type { BenchResult } from './lib/types.ts';

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const SAMPLE_MS = 10_000;

/** A full garbage collection, without starting node with --expose-gc. */
function fullGc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}
const heapAfterGcMb = () => {
  fullGc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

export default async function soakBench(): Promise<BenchResult[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'shiptrail-soak-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    SESSION_SECRET: 'soak-secret-soak-secret-soak-secret-0001',
    LOG_LEVEL: 'silent',
    CARRIER_SANDBOX_PACE: '0.05',
  } as NodeJS.ProcessEnv);
  const ctx = await createContext(config, createLogger(config));
  const app = await buildApp(ctx, { logger: false });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  await startWorkers(ctx);
  try {
    const signup = await app.inject({
      method: 'POST',
      url: '/v1/user/general/signup',
      payload: { email: 'soak@example.com', password: 'password123', repassword: 'password123', terms: true },
    });
    const session = signup.json().payload.sessionToken as string;
    const userId = rowsOf<{ id: string }>(await ctx.db.execute(sql`select id from users where email = 'soak@example.com'`))[0]!.id;
    await ctx.db.execute(
      sql`insert into ledger_entries (user_id, amount_cents, kind, ref) values (${userId}, 1000000000, 'topup', 'soak')`,
    );
    await ctx.db.execute(sql`update billing_accounts set balance_cents = balance_cents + 1000000000 where user_id = ${userId}`);
    const headers = { 'sm-api-token': session, 'content-type': 'application/json', 'sm-http-status': 'real' };

    const samples: Array<{ at: number; rssMb: number; heapMb: number }> = [];
    const sample = () => {
      const m = process.memoryUsage();
      samples.push({ at: Date.now(), rssMb: m.rss / 2 ** 20, heapMb: m.heapUsed / 2 ** 20 });
    };
    sample();
    const sampler = setInterval(sample, SAMPLE_MS);
    // The embedded database's WebAssembly memory (PGlite's Module): it grows when PostgreSQL needs more and never
    // shrinks, and it is part of the RSS but not of the JavaScript heap.
    const wasmMb = () =>
      ((ctx.database.pglite as unknown as { Module?: { HEAPU8?: Uint8Array } } | undefined)?.Module?.HEAPU8?.byteLength ?? NaN) / 2 ** 20;
    const collected: Array<{ heap: number; wasm: number }> = [];
    const gcTimers = [Math.min(120, SECONDS / 2), SECONDS - 5].map((at) =>
      setTimeout(() => collected.push({ heap: heapAfterGcMb(), wasm: wasmMb() }), at * 1000),
    );
    // Sandbox UPS numbers: each added parcel then moves along its journey (refreshes, checkpoints, status events).
    let n = 0;
    const ups = () => `1ZSOAK${String(n++).padStart(10, '0')}`;
    const [lists, adds] = await Promise.all([
      autocannon({ url: `${url}/v1/trackings/get?numRecords=50`, headers, connections: 2, overallRate: 40, duration: SECONDS }),
      autocannon({
        url,
        connections: 1,
        overallRate: 5,
        duration: SECONDS,
        requests: [
          {
            method: 'POST',
            path: '/v1/trackings/add',
            headers,
            setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify({ tid: ups(), courier: 'ups' }) }),
          },
        ],
      }),
    ]);
    clearInterval(sampler);
    for (const t of gcTimers) clearTimeout(t);
    sample();
    const minute = (from: number, to: number) => samples.filter((s) => s.at >= from && s.at < to);
    const start = samples[0]!.at;
    const end = samples[samples.length - 1]!.at;
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const first = minute(start + 60_000, start + 120_000);
    const last = minute(end - 60_000, end + 1);
    const rssFirst = avg(first.map((s) => s.rssMb));
    const rssLast = avg(last.map((s) => s.rssMb));
    const heapFirst = avg(first.map((s) => s.heapMb));
    const heapLast = avg(last.map((s) => s.heapMb));
    const [cp] = rowsOf<{ n: number }>(await ctx.db.execute(sql`select count(*)::int as n from checkpoints`));
    return [
      {
        name: 'soak: memory under a steady mixed load',
        setup: `PGlite, one process, ${Math.round(SECONDS / 60)} min`,
        metrics: {
          'list req/s': Math.round(lists.requests.average),
          'list p99 ms': lists.latency.p99,
          adds: adds.requests.total,
          'non-2xx': lists.non2xx + adds.non2xx + lists.errors + adds.errors,
          'checkpoints stored': cp?.n ?? 0,
          'RSS MB, 2nd minute': Math.round(rssFirst),
          'RSS MB, last minute': Math.round(rssLast),
          'RSS growth': `${(((rssLast - rssFirst) / rssFirst) * 100).toFixed(1)}%`,
          'heap MB, 2nd minute': Math.round(heapFirst),
          'heap MB, last minute': Math.round(heapLast),
          'heap MB after full GC, 2nd minute': collected[0] === undefined ? 'n/a' : Math.round(collected[0].heap),
          'heap MB after full GC, end': collected[1] === undefined ? 'n/a' : Math.round(collected[1].heap),
          'database WebAssembly memory MB, 2nd minute': collected[0] === undefined ? 'n/a' : Math.round(collected[0].wasm),
          'database WebAssembly memory MB, end': collected[1] === undefined ? 'n/a' : Math.round(collected[1].wasm),
        },
        note: 'lists of 50 at 40 req/s over 2 connections, adds at 5/s of sandbox UPS numbers that then move along their journeys (pace 0.05); the first minute is warm-up, so the 2nd minute is compared with the last',
      },
    ];
  } finally {
    await app.close();
    await closeContext(ctx);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
