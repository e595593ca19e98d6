// Soak: the whole platform in one process on PGlite (API, worker with the refresh scheduler, carrier sandbox) under
// a steady mixed load for BENCH_SOAK_SECONDS (600 by default): 7,000 sandbox trackings in the account at the start
// (BENCH_SOAK_SEED), users listing their trackings, new trackings being added (about 3,000 in ten minutes), the
// sandbox moving every parcel along its journey. The server runs in its own process started by `node`, as `npm start`
// runs it (bench/soak-server.ts), apart from this load generator; it samples its memory every 10 s. The result
// compares the 2nd minute with the last, and breaks the last minute's resident memory down (decision 156): each
// thread's V8 heap, PGlite's WebAssembly memory, the process's anonymous and file-backed memory, and the largest
// mappings at the end. The heaps are also read after a full collection (end of the 2nd minute, and at the end): what
// is still referenced, not what the collectors have not reached yet. `npm run bench -- soak`.
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { EMBEDDED_ENV, EMBEDDED_NODE_FLAGS } from '../apps/server/src/process-memory.ts';
import type { SoakSample } from './soak-server.ts';
import type { BenchResult } from './lib/types.ts';

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const here = path.dirname(fileURLToPath(import.meta.url));

interface Report {
  t: 'report';
  samples: SoakSample[];
  collected: SoakSample[];
  mappings: Array<Record<string, string | number>>;
  checkpoints: number;
  trackings: number;
}

export default async function soakBench(): Promise<BenchResult[]> {
  // `node` itself, without this process's loader (tsx), with the flags and environment main.ts starts the embedded
  // default with (decision 159): the server's memory is measured as `npm start` runs it.
  const server = fork(path.join(here, 'soak-server.ts'), [], {
    // BENCH_SOAK_NODE_FLAGS replaces the flags, to compare ('' for Node's defaults).
    execArgv:
      process.env.BENCH_SOAK_NODE_FLAGS !== undefined
        ? process.env.BENCH_SOAK_NODE_FLAGS.split(' ').filter(Boolean)
        : [...EMBEDDED_NODE_FLAGS],
    env: { ...EMBEDDED_ENV, ...process.env },
    stdio: 'inherit',
  });
  const next = <T extends { t: string }>(t: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: T) => {
        if (m.t !== t) return;
        server.off('message', onMessage);
        server.off('exit', onExit);
        resolve(m);
      };
      const onExit = (code: number | null) => reject(new Error(`the soak's server exited (code ${code})`));
      server.on('message', onMessage);
      server.once('exit', onExit);
    });
  try {
    const { url, session } = await next<{ t: 'ready'; url: string; session: string }>('ready');
    const headers = { 'sm-api-token': session, 'content-type': 'application/json', 'sm-http-status': 'real' };
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
    const report = next<Report>('report');
    server.send({ t: 'finish' });
    const { samples, collected, mappings, checkpoints, trackings } = await report;

    const start = samples[0]!.at;
    const end = samples[samples.length - 1]!.at;
    const within = (from: number, to: number) => samples.filter((s) => s.at >= from && s.at < to);
    const first = within(start + 60_000, start + 120_000);
    const last = within(end - 60_000, end + 1);
    const lastFive = within(end - 300_000, end + 1);
    const avg = (xs: SoakSample[], f: (s: SoakSample) => number | undefined) =>
      Math.round(xs.reduce((a, s) => a + (f(s) ?? NaN), 0) / Math.max(1, xs.length));
    const rss = (s: SoakSample) => s.proc.VmRSS ?? NaN;
    const rssFirst = avg(first, rss);
    const rssLast = avg(last, rss);
    const gcAt = (i: number, f: (s: SoakSample) => number | undefined) => (collected[i] ? (f(collected[i]) ?? 'n/a') : 'n/a');
    // Over the last five minutes: the least-squares slope of RSS, MB a minute (the issue: no growth).
    const slope = (() => {
      const xs = lastFive.map((s) => (s.at - end) / 60_000);
      const ys = lastFive.map(rss);
      const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
      const my = ys.reduce((a, b) => a + b, 0) / ys.length;
      const num = xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0);
      const den = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
      return den ? num / den : 0;
    })();
    const l = (f: (s: SoakSample) => number | undefined) => avg(last, f);
    const mainHeap = l((s) => s.main.heapTotal);
    const threadHeap = l((s) => s.thread?.heapTotal);
    const wasm = l((s) => s.thread?.wasmMemory);
    return [
      {
        name: 'soak: memory under a steady mixed load',
        setup: `PGlite, one process (node, as npm start), ${Math.round(SECONDS / 60)} min`,
        metrics: {
          'list req/s': Math.round(lists.requests.average),
          'list p99 ms': lists.latency.p99,
          adds: adds.requests.total,
          'non-2xx': lists.non2xx + adds.non2xx + lists.errors + adds.errors,
          'trackings at the end': trackings,
          'checkpoints stored': checkpoints,
          'RSS MB, 2nd minute': rssFirst,
          'RSS MB, last minute': rssLast,
          'RSS MB, peak (VmHWM)': samples[samples.length - 1]!.proc.VmHWM ?? 'n/a',
          'RSS growth': `${(((rssLast - rssFirst) / rssFirst) * 100).toFixed(1)}%`,
          'RSS MB/min over the last 5 min': Math.round(slope * 10) / 10,
          'heap MB after full GC, 2nd minute (main / database thread)': `${gcAt(0, (s) => s.main.heapUsed)} / ${gcAt(0, (s) => s.thread?.heapUsed)}`,
          'heap MB after full GC, end (main / database thread)': `${gcAt(1, (s) => s.main.heapUsed)} / ${gcAt(1, (s) => s.thread?.heapUsed)}`,
          'database WebAssembly memory MB, 2nd minute': avg(first, (s) => s.thread?.wasmMemory),
          'database WebAssembly memory MB, end': wasm,
        },
        note: 'lists of 50 at 40 req/s over 2 connections, adds at 5/s of sandbox UPS numbers, 7,000 more in the account at the start; all move along their journeys (pace 0.05); the first minute is warm-up, so the 2nd minute is compared with the last',
      },
      {
        name: 'soak: where the resident memory is, last minute (MB)',
        setup: `PGlite, one process (node, as npm start), ${Math.round(SECONDS / 60)} min`,
        metrics: {
          RSS: rssLast,
          'RSS anonymous': l((s) => s.proc.RssAnon),
          'RSS file-backed': l((s) => s.proc.RssFile),
          'main heap used / total': `${l((s) => s.main.heapUsed)} / ${mainHeap}`,
          'main external / arrayBuffers': `${l((s) => s.main.external)} / ${l((s) => s.main.arrayBuffers)}`,
          'database thread heap used / total': `${l((s) => s.thread?.heapUsed)} / ${threadHeap}`,
          'database thread external / arrayBuffers': `${l((s) => s.thread?.external)} / ${l((s) => s.thread?.arrayBuffers)}`,
          'PGlite WebAssembly memory (allocated)': wasm,
          'anonymous beyond both heaps and the WebAssembly memory': l((s) => s.proc.RssAnon) - mainHeap - threadHeap - wasm,
        },
        note: `largest mappings at the end: ${mappings.map((m) => `${m.mapping} ${m['RSS MB']}${m['size MB'] !== undefined ? `/${m['size MB']}` : ''}`).join('; ')} (RSS/size MB)`,
      },
    ];
  } finally {
    if (server.exitCode === null && server.connected) server.kill();
  }
}
