// The soak's server (bench/soak.bench.ts, and bench/outside.bench.ts): the whole platform in one process on PGlite,
// started by `node` as `npm start` starts it (Node's own type stripping, no tsx loader in this process or its threads),
// apart from the load generator. It samples its own memory every 10 s and answers the bench over the IPC channel:
// - it sends { t: 'ready', url, session } once it listens with a signed-up, topped-up account;
// - on { t: 'account', email, trackings } it signs up and tops up another account with that many trackings (no
//   refresh due) and answers { t: 'account', session };
// - on { t: 'stats', reset } it answers { t: 'stats', thread, counts }: the database thread's statement and
//   transaction timings (decision 164) and what the platform did (status changes, notifications by channel and state);
// - on { t: 'finish' } it sends { t: 'report', ... } (the samples, the full-collection figures, the checkpoints
//   stored) and exits.
// BENCH_SERVER_CONFIG (JSON) adds settings to its configuration (the outside bench: the sandbox's pace, the metrics
// token, webhooks to the loopback receiver).
// The breakdown (decision 156): the main thread's and the database thread's process.memoryUsage() (each thread its
// own V8 heap), PGlite's WebAssembly memory, /proc/self/status (VmRSS, RssAnon, RssFile), /proc/self/smaps_rollup,
// and at the end the largest mappings of /proc/self/smaps.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../apps/server/src/config.ts';
import { closeContext, createContext } from '../apps/server/src/bootstrap.ts';
import { createLogger } from '../apps/server/src/lib/logger.ts';
import { buildApp } from '../apps/server/src/app.ts';
import { startWorkers } from '../apps/server/src/jobs/registry.ts';
import { rowsOf } from '../apps/server/src/db/client.ts';
import type { ThreadMemory } from '../apps/server/src/db/pglite-thread.ts';

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
/** Trackings in the account before the load starts (the adds bring about 3,000 more in ten minutes: about 10,000). */
const SEED = Number(process.env.BENCH_SOAK_SEED ?? 7000);
const SAMPLE_MS = 10_000;
const MB = 2 ** 20;
const round = (bytes: number) => Math.round(bytes / MB);

function fullGc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/** kB fields of a /proc file ("Name:   1234 kB"), in MB. */
function procFields(file: string, names: string[]): Record<string, number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  const out: Record<string, number> = {};
  for (const n of names) {
    const m = new RegExp(`^${n}:\\s+(\\d+) kB`, 'm').exec(text);
    if (m) out[n] = Math.round(Number(m[1]) / 1024);
  }
  return out;
}

export interface SoakSample {
  at: number;
  /** MB: the process (/proc/self/status, smaps_rollup). */
  proc: Record<string, number>;
  /** MB: process.memoryUsage() of the main thread. */
  main: Record<'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers', number>;
  /** MB: the database thread's (decision 115) own isolate, and PGlite's WebAssembly memory. */
  thread?: Record<keyof ThreadMemory, number>;
}

/** The largest mappings of /proc/self/smaps by resident size: what the rest of the RSS is (decision 156). */
function largestMappings(wasmBytes: number | undefined, top = 12): Array<Record<string, string | number>> {
  let text: string;
  try {
    text = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return [];
  }
  const maps: Array<{ range: string; perms: string; name: string; sizeKb: number; rssKb: number }> = [];
  let cur: (typeof maps)[number] | undefined;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+-[0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      cur = { range: head[1]!, perms: head[2]!, name: head[3] || '[anon]', sizeKb: 0, rssKb: 0 };
      maps.push(cur);
      continue;
    }
    const f = /^(Size|Rss):\s+(\d+) kB/.exec(line);
    if (f && cur) cur[f[1] === 'Size' ? 'sizeKb' : 'rssKb'] = Number(f[2]);
  }
  const byName = new Map<string, number>();
  for (const m of maps) if (m.name !== '[anon]') byName.set(m.name, (byName.get(m.name) ?? 0) + m.rssKb);
  const anon = maps.filter((m) => m.name === '[anon]' || m.name.startsWith('[heap'));
  const small = anon.filter((m) => m.sizeKb < 1024);
  return [
    ...anon
      .filter((m) => m.sizeKb >= 1024)
      .sort((a, b) => b.rssKb - a.rssKb)
      .slice(0, top)
      .map((m) => ({
        mapping: `${m.name} ${m.perms}${wasmBytes && m.sizeKb * 1024 === wasmBytes ? ' (PGlite WebAssembly memory)' : ''}`,
        'size MB': Math.round(m.sizeKb / 1024),
        'RSS MB': Math.round(m.rssKb / 1024),
      })),
    {
      mapping: `${small.length} anonymous mappings under 1 MB`,
      'size MB': Math.round(small.reduce((a, m) => a + m.sizeKb, 0) / 1024),
      'RSS MB': Math.round(small.reduce((a, m) => a + m.rssKb, 0) / 1024),
    },
    ...[...byName.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([name, kb]) => ({ mapping: `file ${name}`, 'RSS MB': Math.round(kb / 1024) })),
  ];
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'shiptrail-soak-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  SESSION_SECRET: 'soak-secret-soak-secret-soak-secret-0001',
  LOG_LEVEL: 'silent',
  CARRIER_SANDBOX_PACE: '0.05',
  ...(JSON.parse(process.env.BENCH_SERVER_CONFIG ?? '{}') as Record<string, string>),
  ...(process.env.PGLITE_SHARED_BUFFERS_MB ? { PGLITE_SHARED_BUFFERS_MB: process.env.PGLITE_SHARED_BUFFERS_MB } : {}),
  ...(process.env.PGLITE_STATISTICS_TARGET ? { PGLITE_STATISTICS_TARGET: process.env.PGLITE_STATISTICS_TARGET } : {}),
} as NodeJS.ProcessEnv);
const ctx = await createContext(config, createLogger(config));
const app = await buildApp(ctx, { logger: false });
const url = await app.listen({ port: 0, host: '127.0.0.1' });
await startWorkers(ctx);

/** A signed-up account with a balance of $10M: its session token and id. */
async function account(email: string): Promise<{ session: string; userId: string }> {
  const signup = await app.inject({
    method: 'POST',
    url: '/v1/user/general/signup',
    payload: { email, password: 'password123', repassword: 'password123', terms: true },
  });
  const session = signup.json().payload.sessionToken as string;
  const userId = rowsOf<{ id: string }>(await ctx.db.execute(sql`select id from users where email = ${email}`))[0]!.id;
  await ctx.db.execute(
    sql`insert into ledger_entries (user_id, amount_cents, kind, ref) values (${userId}, 1000000000, 'topup', ${email})`,
  );
  await ctx.db.execute(sql`update billing_accounts set balance_cents = balance_cents + 1000000000 where user_id = ${userId}`);
  return { session, userId };
}
const { session, userId } = await account('soak@example.com');
// Sandbox UPS numbers already in the account, their first refreshes spread over the first five minutes: they move along
// their journeys during the soak as the added ones do.
await ctx.db.execute(sql`
  insert into trackings (user_id, tid, courier, next_check_at)
  select ${userId}::uuid, '1ZSEED' || lpad(g::text, 10, '0'), 'ups', now() + (g % 300) * interval '1 second'
  from generate_series(1, ${SEED}::int) g`);

/** MB resident of PGlite's WebAssembly memory (the mapping of its size) and of the C heap ([heap]), from smaps. */
function residentParts(wasmBytes: number | undefined): Record<string, number> {
  let text: string;
  try {
    text = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return {};
  }
  let wasmKb = 0;
  let brkKb = 0;
  let cur: 'wasm' | 'brk' | undefined;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const size = parseInt(head[2]!, 16) - parseInt(head[1]!, 16);
      cur = head[3] === '[heap]' ? 'brk' : !head[3] && wasmBytes && size === wasmBytes ? 'wasm' : undefined;
      continue;
    }
    const rss = cur && /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    if (cur === 'wasm') wasmKb += Number(rss[1]);
    else brkKb += Number(rss[1]);
  }
  return { WasmRss: Math.round(wasmKb / 1024), BrkHeapRss: Math.round(brkKb / 1024) };
}

const thread = ctx.database.thread;
async function sample(gc = false): Promise<SoakSample> {
  if (gc) fullGc();
  const t = await thread?.memory(gc);
  const m = process.memoryUsage();
  return {
    at: Date.now(),
    proc: {
      ...procFields('/proc/self/status', ['VmRSS', 'RssAnon', 'RssFile', 'VmHWM']),
      ...residentParts(t?.wasmMemory),
      ...Object.fromEntries(
        Object.entries(procFields('/proc/self/smaps_rollup', ['Private_Dirty', 'Shared_Clean', 'Anonymous'])).map(([k, v]) => [
          `smaps ${k}`,
          v,
        ]),
      ),
    },
    main: {
      rss: round(m.rss),
      heapTotal: round(m.heapTotal),
      heapUsed: round(m.heapUsed),
      external: round(m.external),
      arrayBuffers: round(m.arrayBuffers),
    },
    thread: t && (Object.fromEntries(Object.entries(t).map(([k, v]) => [k, round(v)])) as SoakSample['thread']),
  };
}

const samples: SoakSample[] = [await sample()];
const sampler = setInterval(() => void sample().then((s) => samples.push(s)), SAMPLE_MS);
// What is still referenced, not what the collectors have not reached yet: at the end of the 2nd minute and at the end.
const collected: SoakSample[] = [];
const gcTimer = setTimeout(() => void sample(true).then((s) => collected.push(s)), Math.min(120, SECONDS / 2) * 1000);

// BENCH_SOAK_PROBE=FILE (decision 172): every minute, PostgreSQL's memory contexts inside PGlite summed by name
// (pg_backend_memory_contexts), the statements the thread keeps prepared, and the WebAssembly memory resident, as
// JSON lines in FILE; BENCH_SOAK_HEAP_AT=5,10 also writes a heap snapshot of the main thread at those minutes.
const probeFile = process.env.BENCH_SOAK_PROBE;
if (probeFile) {
  const t0 = Date.now();
  const probe = async () => {
    const contexts = rowsOf<{ name: string; n: number; total: number; used: number }>(
      await ctx.db.execute(sql`
        select name, count(*)::int as n, sum(total_bytes)::bigint::float8 as total, sum(used_bytes)::bigint::float8 as used
        from pg_backend_memory_contexts group by name order by 3 desc`),
    );
    const t = await thread?.memory();
    const vacuumed = rowsOf<{ relname: string }>(
      await ctx.db.execute(sql`select relname from pg_stat_user_tables where last_vacuum > now() - interval '60 seconds'`),
    ).map((r) => r.relname);
    const line = {
      vacuumed,
      minute: Math.round((Date.now() - t0) / 6000) / 10,
      wasmRss: residentParts(t?.wasmMemory).WasmRss,
      prepared: (await thread?.stats())?.prepared,
      totalKb: Math.round(contexts.reduce((a, c) => a + Number(c.total), 0) / 1024),
      contexts: contexts.slice(0, 25).map((c) => [c.name, c.n, Math.round(Number(c.total) / 1024), Math.round(Number(c.used) / 1024)]),
    };
    appendFileSync(probeFile, JSON.stringify(line) + '\n');
  };
  setInterval(() => void probe().catch((err) => appendFileSync(probeFile, JSON.stringify({ error: String(err) }) + '\n')), 60_000);
  for (const minute of (process.env.BENCH_SOAK_HEAP_AT ?? '').split(',').filter(Boolean).map(Number))
    setTimeout(() => v8.writeHeapSnapshot(`${probeFile}.${minute}.heapsnapshot`), minute * 60_000);
}

/** Another person: an account with `n` trackings of their own, none due for a refresh (they are what is listed). */
async function otherAccount(email: string, n: number): Promise<string> {
  const other = await account(email);
  await ctx.db.execute(sql`
    insert into trackings (user_id, tid, courier, status, created_at, updated_at, next_check_at)
    select ${other.userId}::uuid, '1ZOTHR' || lpad(g::text, 10, '0'), 'ups', 'InTransit',
           now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval, null
    from generate_series(1, ${n}::int) g`);
  await ctx.db.execute(sql`
    insert into checkpoints (tracking_id, status, location, message, time, fingerprint)
    select t.id, 'InTransit', 'Memphis, TN', 'Departed FedEx hub', t.created_at + (k || ' hours')::interval, md5(t.id::text || k)
    from trackings t, generate_series(1, 4) k where t.user_id = ${other.userId}::uuid`);
  return other.session;
}

/** What the platform did so far: status changes, and notifications by channel and state. */
async function counts(): Promise<Record<string, number>> {
  const [events] = rowsOf<{ n: number }>(await ctx.db.execute(sql`select count(*)::int as n from tracking_events`));
  const byState = rowsOf<{ channel: string; status: string; n: number }>(
    await ctx.db.execute(sql`select channel, status, count(*)::int as n from notifications group by 1, 2`),
  );
  return { statusChanges: events?.n ?? 0, ...Object.fromEntries(byState.map((r) => [`${r.channel} ${r.status}`, r.n])) };
}

process.on('message', (m: { t: string; email?: string; trackings?: number; reset?: boolean }) => {
  if (m.t === 'account') return void otherAccount(m.email!, m.trackings ?? 0).then((s) => process.send!({ t: 'account', session: s }));
  if (m.t === 'stats')
    return void Promise.all([thread?.stats(!!m.reset), counts()]).then(([st, c]) => process.send!({ t: 'stats', thread: st, counts: c }));
  if (m.t !== 'finish') return;
  void (async () => {
    clearInterval(sampler);
    clearTimeout(gcTimer);
    samples.push(await sample());
    collected.push(await sample(true));
    if (probeFile) writeFileSync(`${probeFile}.samples.json`, JSON.stringify(samples));
    const wasmBytes = (await thread?.memory())?.wasmMemory;
    const [cp] = rowsOf<{ n: number }>(await ctx.db.execute(sql`select count(*)::int as n from checkpoints`));
    const [tr] = rowsOf<{ n: number }>(await ctx.db.execute(sql`select count(*)::int as n from trackings`));
    process.send!({
      t: 'report',
      samples,
      collected,
      mappings: largestMappings(wasmBytes),
      checkpoints: cp?.n ?? 0,
      trackings: tr?.n ?? 0,
    });
    await app.close();
    await closeContext(ctx);
    rmSync(dataDir, { recursive: true, force: true });
    process.disconnect();
    // Whatever handle is left (the sandbox's keep-alive sockets) must not keep it: a CPU profile (--cpu-prof) is
    // written at exit, and a kill would lose it.
    setTimeout(() => process.exit(0), 2000).unref();
  })();
});
process.send!({ t: 'ready', url, session });
