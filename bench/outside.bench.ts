// Issue 29 measured from outside (decision 177): the embedded default in its own process, started by `node` as
// `npm start` runs it (bench/soak-server.ts, the soak's server), with the carrier sandbox at a pace where parcels move
// during the run. One account (a shop, with a balance, a webhook to a receiver here and an e-mail alert on every
// status) adds 2,000 sandbox tracking numbers through `POST /v1/trackings/add` over HTTP, BENCH_OUTSIDE_CONCURRENCY (4)
// at a time as a shop's import script would; meanwhile two persons list 100 trackings (`GET /v1/trackings/get`, what
// the web app calls), each one request at a time over loopback HTTP: another account with 100 trackings, and the shop
// itself. Phases: idle (the floor, before the adds), the adds, and BENCH_OUTSIDE_MOVE_SECONDS (60) after them while
// the parcels move (first refreshes, status changes, notifications). For each phase: list p50 / p99 / max and the
// ratio to the idle floor, the server's event-loop delay (its /metrics, reset at each scrape), the database thread's
// statement and transaction timings (decision 164), status changes and notifications; RSS peak and end; the load.
// Target (issue 29): p99 under 150 ms and within 5x of the idle figure.
//
// `npm run bench -- outside` (writes bench/results/outside.json too). BENCH_OUTSIDE_NODE_FLAGS adds flags to the
// server's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, decision 177's profile).
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EMBEDDED_ENV, EMBEDDED_NODE_FLAGS } from '../apps/server/src/process-memory.ts';
import type { SoakSample } from './soak-server.ts';
import type { BenchResult } from './lib/types.ts';
import { percentileMs as pct } from './lib/stats.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const ADDS = Number(process.env.BENCH_OUTSIDE_ADDS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_OUTSIDE_CONCURRENCY ?? 4);
const MOVE_SECONDS = Number(process.env.BENCH_OUTSIDE_MOVE_SECONDS ?? 60);
/** 0.5: a journey plays in 2 to 3 minutes and an In Transit parcel is asked every 6 s, so the 2,000 move in the run. */
const PACE = process.env.BENCH_OUTSIDE_PACE ?? '0.5';
const METRICS_TOKEN = 'outside-bench-metrics-token-0001';
const log = (...a: unknown[]) => console.error('[outside.bench]', ...a);
const load = () => os.loadavg().map((x) => Math.round(x * 10) / 10);

type ThreadStats = Record<
  'statement' | 'urgentStatement' | 'transaction' | 'transactionStatements',
  { n: number; p50: number; p99: number; max: number }
> & {
  holders: Array<{ first: string; n: number; totalMs: number; maxMs: number; statementsEach: number }>;
};
interface PhaseResult {
  phase: string;
  seconds: number;
  lists: Record<'other' | 'shop', number[]>;
  loop: { p99: number; max: number };
  thread?: ThreadStats;
  counts: Record<string, number>;
  webhooks: number;
  load: number[];
}

/** A request/answer over the server's IPC channel (soak-server.ts). */
function ask<T>(server: ChildProcess, msg: { t: string; [k: string]: unknown }, answer = msg.t): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { t: string }) => {
      if (m.t !== answer) return;
      server.off('message', onMessage);
      server.off('exit', onExit);
      resolve(m as T);
    };
    const onExit = (code: number | null) => reject(new Error(`the outside bench's server exited (code ${code})`));
    server.on('message', onMessage);
    server.once('exit', onExit);
    if (msg.t !== answer || answer !== 'ready') server.send(msg);
  });
}

/** Sandbox numbers of the four carriers, in turn: each moves along its own journey once added. */
function sandboxNumber(i: number): { tid: string; courier: string } {
  const d = (len: number) => String(200000 + i).padStart(len, '7');
  const courier = (['ups', 'usps', 'fedex', 'canadapost'] as const)[i % 4]!;
  const tid =
    courier === 'ups' ? `1ZOUTS${d(10)}` : courier === 'usps' ? `94001${d(17)}` : courier === 'fedex' ? `7${d(11)}` : `00739${d(11)}`;
  return { tid, courier };
}

/** The event loop's delay since the last scrape (prom-client resets its histogram at each one), ms. */
async function loopDelay(url: string): Promise<{ p99: number; max: number }> {
  const r = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await r.text();
  const read = (name: string) => Math.round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) * 1000);
  return { p99: read('shiptrail_nodejs_eventloop_lag_p99_seconds'), max: read('shiptrail_nodejs_eventloop_lag_max_seconds') };
}

/** Adds the shop's parcels over HTTP, CONCURRENCY requests in flight; throws on any answer but 200. */
async function addAll(url: string, token: string): Promise<string> {
  let next = 0;
  const t0 = performance.now();
  const lat: number[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ADDS) {
        const t = performance.now();
        const r = await fetch(`${url}/v1/trackings/add`, {
          method: 'POST',
          headers: { 'sm-api-token': token, 'content-type': 'application/json', 'sm-http-status': 'real' },
          body: JSON.stringify(sandboxNumber(next++)),
        });
        const body = await r.text();
        if (!r.ok) throw new Error(`add answered ${r.status}: ${body.slice(0, 200)}`);
        lat.push(performance.now() - t);
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  return `${ADDS} adds in ${s.toFixed(1)} s (${Math.round(ADDS / s)}/s, add p50 / p99 ${pct(lat, 50)} / ${pct(lat, 99)} ms)`;
}

export default async function outsideBench(): Promise<BenchResult[]> {
  const hooks = new Set<string>();
  const rx = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string') hooks.add(id);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => rx.listen(0, '127.0.0.1', r));
  const rxUrl = `http://127.0.0.1:${(rx.address() as { port: number }).port}/hook`;
  const loadStart = load();
  const server = fork(path.join(here, 'soak-server.ts'), [], {
    execArgv: [...EMBEDDED_NODE_FLAGS, ...(process.env.BENCH_OUTSIDE_NODE_FLAGS ?? '').split(' ').filter(Boolean)],
    env: {
      ...EMBEDDED_ENV,
      ...process.env,
      BENCH_SOAK_SEED: '0',
      BENCH_SOAK_SECONDS: '3600',
      BENCH_SERVER_CONFIG: JSON.stringify({ CARRIER_SANDBOX_PACE: PACE, METRICS_TOKEN, WEBHOOK_ALLOW_PRIVATE: 'true' }),
    },
    stdio: 'inherit',
  });
  try {
    const { url, session: shop } = await ask<{ url: string; session: string }>(server, { t: 'ready' });
    const headers = { 'sm-api-token': shop, 'content-type': 'application/json', 'sm-http-status': 'real' };
    const triggers = {
      InfoReceived: true,
      InTransit: true,
      OutForDelivery: true,
      AvailableForPickup: true,
      Delivered: true,
      Exception: true,
    };
    const saved = await fetch(`${url}/v1/user/general/update`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        settings: { receiveNotification: { webhook: { triggers, endpoint: rxUrl }, email: { triggers, endpoint: '' } } },
      }),
    });
    if (!saved.ok) throw new Error(`settings answered ${saved.status}: ${await saved.text()}`);
    const { session: other } = await ask<{ session: string }>(server, { t: 'account', email: 'other@example.com', trackings: 100 });

    const list = async (token: string) => {
      const t = performance.now();
      const r = await fetch(`${url}/v1/trackings/get?numRecords=100`, { headers: { 'sm-api-token': token } });
      await r.arrayBuffer();
      if (!r.ok) throw new Error(`list answered ${r.status}`);
      return performance.now() - t;
    };
    for (let i = 0; i < 20; i++) await Promise.all([list(other), list(shop)]);

    const phases: PhaseResult[] = [];
    /** Runs `work` while both persons list, each one request at a time 20 ms apart (and `minProbes` at least). */
    const measure = async (phase: string, work: () => Promise<string>, minProbes = 0) => {
      await ask(server, { t: 'stats', reset: true });
      await loopDelay(url);
      const lists = { other: [] as number[], shop: [] as number[] };
      let running = true;
      const prober = (token: string, into: number[]) =>
        (async () => {
          while (running || into.length < minProbes) {
            into.push(await list(token));
            await new Promise((r) => setTimeout(r, 20));
          }
        })();
      const probers = [prober(other, lists.other), prober(shop, lists.shop)];
      const t0 = performance.now();
      const what = await work();
      running = false;
      await Promise.all(probers);
      const seconds = Math.round((performance.now() - t0) / 100) / 10;
      const loop = await loopDelay(url);
      const st = await ask<{ thread?: ThreadStats; counts: Record<string, number> }>(server, { t: 'stats', reset: true });
      const p: PhaseResult = { phase, seconds, lists, loop, thread: st.thread, counts: st.counts, webhooks: hooks.size, load: load() };
      log(
        phase,
        what,
        JSON.stringify({
          ...p,
          lists: { other: [pct(lists.other, 50), pct(lists.other, 99)], shop: [pct(lists.shop, 50), pct(lists.shop, 99)] },
        }),
      );
      phases.push(p);
      return what;
    };

    await measure('idle (the floor, before the adds)', async () => 'nothing else', 150);
    const added = await measure(`${ADDS} adds, ${CONCURRENCY} at a time`, () => addAll(url, shop));
    await measure(`the ${MOVE_SECONDS} s after the adds (parcels moving)`, async () => {
      await new Promise((r) => setTimeout(r, MOVE_SECONDS * 1000));
      return 'no new adds';
    });

    const report = await ask<{ samples: SoakSample[] }>(server, { t: 'finish' }, 'report');
    // It exits by itself once closed (a CPU profile is written then, not on a kill).
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 120_000);
      server.once('exit', () => (clearTimeout(timer), resolve()));
    });
    return results(phases, report.samples, { added, loadStart });
  } finally {
    rx.close();
    if (server.exitCode === null && server.connected) server.kill();
  }
}

function results(phases: PhaseResult[], samples: SoakSample[], at: { added: string; loadStart: number[] }): BenchResult[] {
  const idle = phases[0]!;
  const floor = { other: pct(idle.lists.other, 50), otherP99: pct(idle.lists.other, 99) };
  const out: BenchResult[] = [];
  for (const p of phases) {
    for (const who of ['other', 'shop'] as const) {
      const lat = p.lists[who];
      out.push({
        name: `outside: list 100 while ${p.phase}`,
        setup: who === 'other' ? 'another account (100 trackings)' : 'the same account (the shop adding)',
        metrics: {
          'list p50 / p99 / max ms': `${pct(lat, 50)} / ${pct(lat, 99)} / ${pct(lat, 100)}`,
          'idle floor p50 / p99 ms (other account)': `${floor.other} / ${floor.otherP99}`,
          'p99 / idle p99': Math.round((pct(lat, 99) / Math.max(1, floor.otherP99)) * 100) / 100,
          'p50 / idle p50': Math.round((pct(lat, 50) / Math.max(1, floor.other)) * 100) / 100,
          'p99 target 150 ms and 5x idle': pct(lat, 99) < 150 && pct(lat, 99) <= 5 * floor.otherP99 ? 'within' : 'over',
          'server event loop delay p99 / max ms': `${p.loop.p99} / ${p.loop.max}`,
          probes: lat.length,
          seconds: p.seconds,
        },
        note:
          who === 'other'
            ? `${p.phase === idle.phase ? 'the floor' : p.phase.startsWith(String(ADDS)) ? at.added : 'parcels moving'}; status changes so far ${p.counts.statusChanges ?? 0}, notifications ${JSON.stringify(Object.fromEntries(Object.entries(p.counts).filter(([k]) => k !== 'statusChanges')))}, webhooks received ${p.webhooks}; load ${p.load.join(' ')}${p.thread ? `; in the database thread (ms): persons' statements ${fmt(p.thread.urgentStatement)}, background statements ${fmt(p.thread.statement)}, transactions held ${fmt(p.thread.transaction)} (statements each p50 / p99 ${p.thread.transactionStatements.p50} / ${p.thread.transactionStatements.p99})` : ''}`
            : undefined,
      });
    }
  }
  const rss = samples.map((s) => s.proc.VmRSS ?? 0);
  const last = phases[phases.length - 1]!;
  out.push({
    name: 'outside: the server process',
    setup: `PGlite, one process (node, as npm start), sandbox pace ${PACE}`,
    metrics: {
      'RSS MB, peak (VmHWM)': samples[samples.length - 1]?.proc.VmHWM ?? 'n/a',
      // VmHWM includes the start (PGlite's first open and migrations); the samples are the run's own.
      'RSS MB, peak of the 10 s samples': Math.max(...rss),
      'RSS MB, end': rss[rss.length - 1] ?? 'n/a',
      'status changes': last.counts.statusChanges ?? 0,
      'webhooks received': last.webhooks,
      'e-mails sent (dev outbox)': last.counts['email sent'] ?? 0,
      'load at start / end': `${at.loadStart.join(' ')} / ${last.load.join(' ')}`,
    },
    note: `${ADDS} sandbox numbers of 4 carriers added ${CONCURRENCY} at a time over HTTP by a shop with a webhook and an e-mail alert on every status; lists of 100 one request at a time, 20 ms apart, by another account and by the shop`,
  });
  writeFileSync(
    path.join(here, 'results', 'outside.json'),
    JSON.stringify(
      {
        when: new Date().toISOString(),
        machine: { cpus: os.cpus().length, node: process.version },
        results: out,
        phases: phases.map((p) => ({ ...p, lists: undefined })),
      },
      null,
      2,
    ) + '\n',
  );
  return out;
}

function fmt(s: { n: number; p50: number; p99: number; max: number }): string {
  return `${s.n}, p50 / p99 / max ${s.p50} / ${s.p99} / ${s.max}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await outsideBench(), null, 2));
  process.exit(0);
}
