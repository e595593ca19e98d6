// Live updates (issue: every open screen follows status changes): a status change made through the API
// (mark delivered: the change, its event, its notifications and its pg_notify in one transaction) to the
// event read by a stream client over real HTTP, p50/p99; the server's memory per open stream; and the time
// to fan one event out to 1,000 open streams of one account. PGlite in memory, one process.
// Run: `npx tsx bench/live.bench.ts` (prints JSON), or `npm run bench -- live`.
import http from 'node:http';
import { Worker } from 'node:worker_threads';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../apps/server/src/config.ts';
import { createContext, closeContext, createLogger } from '../apps/server/src/bootstrap.ts';
import { buildApp } from '../apps/server/src/app.ts';
import { trackings, users } from '../apps/server/src/db/schema.ts';
import { publishLive } from '../apps/server/src/modules/live/live.service.ts';
import type { BenchResult } from './lib/types.ts';

const CHANGES = Number(process.env.BENCH_LIVE_CHANGES ?? 300);
const STREAMS = Number(process.env.BENCH_LIVE_STREAMS ?? 1000);
const FANOUTS = 20;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

// --expose-gc is not given to benches: turn it on for this isolate so heap figures are after a collection.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** One stream read in this thread; resolves each awaited event by tid. */
function streamClient(base: string, token: string) {
  const waiting = new Map<string, (at: number) => void>();
  return new Promise<{ waitTid(tid: string): Promise<number>; close(): void }>((resolve, reject) => {
    const req = http.get(`${base}/v1/live`, { headers: { 'sm-api-token': token, accept: 'text/event-stream' } }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = performance.now();
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (!data) continue;
          const e = JSON.parse(data.slice(6)) as { kind: string; tid?: string };
          if (e.kind === 'tracking' && e.tid) waiting.get(e.tid)?.(at);
        }
      });
      resolve({
        waitTid: (tid) => new Promise<number>((ok) => waiting.set(tid, ok)),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

// The 1,000 clients live in a worker thread: their sockets and parsers are not in this isolate's heap, so
// the heap growth measured here is the server's own cost per stream.
const CLIENTS = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
let seen = 0; let target = Infinity; const reqs = [];
function open() {
  return new Promise((resolve, reject) => {
    const req = http.get(workerData.url, { agent, headers: { 'sm-api-token': workerData.token, accept: 'text/event-stream' } }, (res) => {
      res.setEncoding('utf8');
      res.once('data', () => resolve());
      res.on('data', (c) => { const n = c.split('data: ').length - 1; if (n) { seen += n; if (seen >= target) { parentPort.postMessage({ type: 'all', at: Date.now() }); target = Infinity; } } });
    });
    req.on('error', reject); reqs.push(req);
  });
}
parentPort.on('message', async (m) => {
  if (m.type === 'open') { for (let i = 0; i < m.n; i += 50) await Promise.all(Array.from({ length: Math.min(50, m.n - i) }, open)); parentPort.postMessage({ type: 'opened' }); }
  if (m.type === 'expect') { seen = 0; target = m.n; parentPort.postMessage({ type: 'armed' }); }
  if (m.type === 'close') { for (const r of reqs) r.destroy(); parentPort.postMessage({ type: 'closed' }); }
});
`;

function ask(w: Worker, msg: unknown, reply: string): Promise<{ at?: number }> {
  return new Promise((resolve) => {
    const on = (m: { type: string; at?: number }) => {
      if (m.type !== reply) return;
      w.off('message', on);
      resolve(m);
    };
    w.on('message', on);
    if (msg !== null) w.postMessage(msg);
  });
}

export default async function bench(): Promise<BenchResult[]> {
  const config = loadConfig({ DATA_DIR: 'memory://', SESSION_SECRET: 'bench-secret-bench-secret-bench-secret-01', LOG_LEVEL: 'silent', QUEUE_POLL_SECONDS: '0.5', PUBLIC_URL: 'http://bench.local' } as NodeJS.ProcessEnv);
  const ctx = await createContext(config, createLogger(config));
  const app = await buildApp(ctx, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  try {
    const signup = await app.inject({ method: 'POST', url: '/v1/user/general/signup', payload: { email: 'bench@example.com', password: 'password123', repassword: 'password123', terms: true } });
    const token = signup.json().payload.sessionToken as string;
    const [u] = await ctx.db.select().from(users).where(eq(users.email, 'bench@example.com'));
    const tids = Array.from({ length: CHANGES }, (_, i) => `1ZLIVE${String(i).padStart(10, '0')}`);
    await ctx.db.insert(trackings).values(tids.map((tid) => ({ userId: u!.id, tid, courier: 'ups', status: 'InTransit' })));

    // 1. Status change → event in an open stream, one change at a time.
    const client = await streamClient(base, token);
    const lat: number[] = [];
    for (const tid of tids) {
      const arrived = client.waitTid(tid);
      const t0 = performance.now();
      const res = await app.inject({ method: 'GET', url: `/v1/trackings/delivered/${tid}`, headers: { 'sm-api-token': token } });
      if (res.json().code !== 200) throw new Error(res.body);
      lat.push((await arrived) - t0);
    }
    client.close();
    lat.sort((a, b) => a - b);

    // 2. Memory per open stream and fan-out to STREAMS streams of one account.
    const worker = new Worker(CLIENTS, { eval: true, workerData: { url: `${base}/v1/live`, token } });
    await new Promise((r) => setTimeout(r, 200));
    const heapBefore = heapAfterGc();
    const rssBefore = process.memoryUsage().rss;
    await ask(worker, { type: 'open', n: STREAMS }, 'opened');
    if (app.liveHub.size < STREAMS) throw new Error(`only ${app.liveHub.size} streams open`);
    const heapPerStream = (heapAfterGc() - heapBefore) / STREAMS;
    const rssPerStream = (process.memoryUsage().rss - rssBefore) / STREAMS;

    const fan: number[] = [];
    for (let i = 0; i < FANOUTS; i++) {
      await ask(worker, { type: 'expect', n: STREAMS }, 'armed');
      const done = ask(worker, null, 'all');
      const t0 = Date.now();
      await publishLive(ctx.db, { kind: 'balance', accountId: u!.id });
      const { at } = await done;
      fan.push(at! - t0);
    }
    fan.sort((a, b) => a - b);
    await ask(worker, { type: 'close' }, 'closed');
    await worker.terminate();

    return [
      {
        name: 'live: status change → event in an open stream',
        setup: `PGlite in memory, one process, ${CHANGES} changes one at a time`,
        metrics: { p50_ms: Number(pct(lat, 50).toFixed(2)), p99_ms: Number(pct(lat, 99).toFixed(2)), max_ms: Number(lat.at(-1)!.toFixed(2)) },
        note: 'from the start of the mark-delivered request (its transaction commits the change and the NOTIFY) to the event parsed by a client over loopback HTTP',
      },
      {
        name: `live: ${STREAMS} open streams of one account`,
        setup: 'clients in a worker thread (their sockets are not in the server isolate heap)',
        metrics: {
          heap_bytes_per_stream: Math.round(heapPerStream),
          rss_bytes_per_stream: Math.round(rssPerStream),
          fanout_one_event_p50_ms: fan[Math.floor(fan.length / 2)]!,
          fanout_one_event_max_ms: fan.at(-1)!,
        },
        note: `fan-out: one NOTIFY to the event read by all ${STREAMS} clients, ${FANOUTS} events; RSS includes the client thread's sockets`,
      },
    ];
  } finally {
    await app.close();
    await closeContext(ctx);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await bench(), null, 2));
  process.exit(0);
}
