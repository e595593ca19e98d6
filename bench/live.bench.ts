// Live updates (issue: every open screen follows status changes): a status change made through the API
// (mark delivered: the change, its event, its notifications and its pg_notify in one transaction) to the
// event read by a stream client over real HTTP, p50/p99; the server's memory per open stream; and the time
// to fan one event out to 1,000 open streams of one account; and the same status change to the row updated in
// an open browser tab (Chromium, the trackings page, the web app's own stream and refetch). PGlite in memory,
// one process.
// Run: `npx tsx bench/live.bench.ts` (prints JSON), or `npm run bench -- live`.
import http from 'node:http';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { Worker } from 'node:worker_threads';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { createContext, closeContext } from '../apps/server/src/bootstrap.ts';
import { createLogger } from '../apps/server/src/lib/logger.ts';
import { buildApp } from '../apps/server/src/app.ts';
import { trackings, users } from '../apps/server/src/db/schema.ts';
import { publishLive } from '../apps/server/src/modules/live/live.service.ts';
import { benchConfig, signUpOn } from './lib/app.ts';
import type { BenchResult } from './lib/types.ts';
import { chromiumArgs, chromiumPath } from '../apps/web/scripts/chromium.mjs';
import { percentile as pct } from './lib/stats.ts';

const CHANGES = Number(process.env.BENCH_LIVE_CHANGES ?? 300);
const STREAMS = Number(process.env.BENCH_LIVE_STREAMS ?? 1000);
const FANOUTS = 20;
/** Status changes watched in the browser tab, one at a time. */
const TAB_CHANGES = Number(process.env.BENCH_LIVE_TAB_CHANGES ?? 20);
const webDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../apps/web/dist/index.html');

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
  const config = benchConfig({
    DATA_DIR: 'memory://',
    // The bench opens STREAMS streams of one account from one address: above the per-user and per-address caps.
    LIVE_STREAMS_PER_USER: String(STREAMS + 10),
    LIVE_STREAMS_MAX: String(STREAMS + 10),
    CONNECTIONS_PER_ADDRESS: '0',
    REQUESTS_IN_FLIGHT_PER_ADDRESS: '0',
  });
  const ctx = await createContext(config, createLogger(config));
  const app = await buildApp(ctx, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  try {
    const session = await signUpOn(app, 'bench@example.com');
    const token = session.sessionToken;
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

    // 3. Status change → the row updated in an open browser tab (the web app's stream, merge window and refetch).
    const tab = await browserTab(
      base,
      session,
      async (tid) => {
        const res = await app.inject({ method: 'GET', url: `/v1/trackings/delivered/${tid}`, headers: { 'sm-api-token': token } });
        if (res.json().code !== 200) throw new Error(res.body);
      },
      async () => {
        const fresh = Array.from({ length: TAB_CHANGES }, (_, i) => `1ZTAB${String(i).padStart(11, '0')}`);
        await ctx.db.insert(trackings).values(fresh.map((tid) => ({ userId: u!.id, tid, courier: 'ups', status: 'InTransit' })));
        return fresh;
      },
    );

    return [
      {
        name: 'live: status change → event in an open stream',
        setup: `PGlite in memory, one process, ${CHANGES} changes one at a time`,
        metrics: {
          p50_ms: Number(pct(lat, 50).toFixed(2)),
          p99_ms: Number(pct(lat, 99).toFixed(2)),
          max_ms: Number(lat.at(-1)!.toFixed(2)),
        },
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
      tab,
    ];
  } finally {
    await app.close();
    await closeContext(ctx);
  }
}

/**
 * A signed-in Chromium tab on /account/trackings; for each number, `change` marks it delivered and the tab's
 * MutationObserver notes when its row says Delivered. Times from the request's start (Date.now() on both sides,
 * one machine). Skipped, with a note, when there is no Chromium or no built web app.
 */
async function browserTab(
  base: string,
  session: { sessionToken: string; version: string },
  change: (tid: string) => Promise<void>,
  seed: () => Promise<string[]>,
): Promise<BenchResult> {
  const name = 'live: status change → row updated in an open browser tab';
  const executablePath = chromiumPath;
  if (!existsSync(executablePath) || !existsSync(webDist))
    return {
      name,
      metrics: {},
      note: `skipped: needs Chromium at ${executablePath} and a built web app (npm run build --workspace apps/web)`,
    };
  const tids = await seed();
  const browser = await chromium.launch({ executablePath, args: chromiumArgs });
  try {
    const page = await (await browser.newContext({ serviceWorkers: 'block' })).newPage();
    await page.goto(`${base}/terms-of-service`);
    await page.evaluate((s) => localStorage.setItem('shiptrail.session', JSON.stringify(s)), {
      token: session.sessionToken,
      version: session.version,
    });
    const stream = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/live');
    await page.goto(`${base}/account/trackings`);
    await stream;
    await page
      .locator(`[data-tid="${tids.at(-1)}"]`)
      .first()
      .waitFor();
    const shown = await page.evaluate(() => [
      ...new Set([...document.querySelectorAll('[data-tid]')].map((e) => e.getAttribute('data-tid')!)),
    ]);
    const watched = tids.filter((t) => shown.includes(t));
    if (watched.length === 0) throw new Error('no seeded row on the first page');
    // Each row reports, once, when it first says Delivered.
    await page.evaluate(() => {
      const seen: Record<string, number> = {};
      (window as unknown as { __delivered: Record<string, number> }).__delivered = seen;
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-tid][data-status="Delivered"]')) {
          const tid = el.getAttribute('data-tid')!;
          seen[tid] ??= Date.now();
        }
      }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-status'], childList: true });
    });
    const lat: number[] = [];
    for (const tid of watched) {
      const t0 = Date.now();
      await change(tid);
      await page.waitForFunction((t) => (window as unknown as { __delivered: Record<string, number> }).__delivered[t] !== undefined, tid, {
        timeout: 10_000,
      });
      const at = await page.evaluate((t) => (window as unknown as { __delivered: Record<string, number> }).__delivered[t]!, tid);
      lat.push(at - t0);
      // A gap, as between real scans: each change is measured on its own, not merged with the next.
      await new Promise((r) => setTimeout(r, 300));
    }
    lat.sort((a, b) => a - b);
    return {
      name,
      setup: `Chromium headless, the built web app served by the same process, ${lat.length} changes one at a time`,
      metrics: { p50_ms: pct(lat, 50), p99_ms: pct(lat, 99), max_ms: lat.at(-1)! },
      note: "from the mark-delivered request's start to the row's data-status changing in the page: the request, the event over the stream, and the app writing the new status into its cached list (the refetch follows)",
    };
  } finally {
    await browser.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await bench(), null, 2));
  process.exit(0);
}
