// Webhook delivery (ARCHITECTURE §6): status change → signed delivery at a local receiver, p50/p99, and
// deliveries per second; beside it, a plain keep-alive HTTP POST loop to the same receiver in the same run
// (the ceiling the receiver and loopback allow). Run: `npx tsx bench/webhooks.bench.ts` (prints JSON).
// A burst (300 changes at once) and a trickle (one change at a time, the usual case). Workers are woken by
// NOTIFY when a delivery job commits (docs/decisions/073); the 0.5 s poll is the backstop.
import http from 'node:http';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../apps/server/src/config.ts';
import { createContext, closeContext, createLogger } from '../apps/server/src/bootstrap.ts';
import { buildApp } from '../apps/server/src/app.ts';
import { notifications, trackingEvents, trackings, users } from '../apps/server/src/db/schema.ts';
import { fanOutStatusEvent } from '../apps/server/src/modules/notifications/fanout.ts';
import { startJobWorkers } from '../apps/server/src/jobs/registry.ts';
import { notifyJobs } from '../apps/server/src/modules/notifications/notifications.jobs.ts';

type Result = { name: string; value: number; unit: string; note?: string };

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 300);
/** Then status changes one at a time, as they usually come: each delivered before the next is made. */
const TRICKLE = Number(process.env.BENCH_WEBHOOK_TRICKLE ?? 30);

function pct(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function receiver() {
  const seen = new Map<string, number>();
  let onAll: (() => void) | null = null;
  let expect = Infinity;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string' && !seen.has(id)) {
        seen.set(id, performance.now());
        if (seen.size >= expect) onAll?.();
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    seen,
    waitFor(n: number, timeoutMs: number) {
      expect = n;
      return new Promise<void>((resolve, reject) => {
        if (seen.size >= n) return resolve();
        const t = setTimeout(() => reject(new Error(`only ${seen.size}/${n} webhooks arrived`)), timeoutMs);
        onAll = () => {
          clearTimeout(t);
          resolve();
        };
      });
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** The same number of POSTs, same body size, same concurrency as the webhook workers (8), keep-alive. */
async function plainPostLoop(port: number, n: number, bodySize: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const body = 'x'.repeat(bodySize);
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/plain', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(body);
    });
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: 8 }, async () => { while (next++ < n) await one(); }));
  const secs = (performance.now() - start) / 1000;
  agent.destroy();
  return n / secs;
}

export default async function bench(): Promise<Result[]> {
  const rx = await receiver();
  const config = loadConfig({ DATA_DIR: 'memory://', SESSION_SECRET: 'bench-secret-bench-secret-bench-secret-01', LOG_LEVEL: 'silent', QUEUE_POLL_SECONDS: '0.5', WEBHOOK_ALLOW_PRIVATE: 'true', PUBLIC_URL: 'http://bench.local' } as NodeJS.ProcessEnv);
  const ctx = await createContext(config, createLogger(config));
  const app = await buildApp(ctx, { logger: false });
  try {
    await startJobWorkers(ctx, Object.values(notifyJobs));
    const signup = await app.inject({ method: 'POST', url: '/v1/user/general/signup', payload: { email: 'bench@example.com', password: 'password123', repassword: 'password123', terms: true } });
    const token = signup.json().payload.sessionToken as string;
    const triggers = { InTransit: true, Delivered: true, Exception: true, Expired: true, InfoReceived: true, OutForDelivery: true };
    const saved = await app.inject({ method: 'POST', url: '/v1/user/general/update', headers: { 'sm-api-token': token, 'sm-http-status': 'real' }, payload: { settings: { receiveNotification: { webhook: { triggers, endpoint: rx.url } } } } });
    if (saved.statusCode !== 200) throw new Error(saved.body);
    const [u] = await ctx.db.select().from(users).where(eq(users.email, 'bench@example.com'));
    const ts = await ctx.db
      .insert(trackings)
      .values(Array.from({ length: EVENTS + TRICKLE }, (_, i) => ({ userId: u!.id, tid: `1ZBENCH${String(i).padStart(8, '0')}`, courier: 'ups', status: 'Pending' })))
      .returning({ id: trackings.id });

    // Status changes as the trackings module makes them: event + fan-out in one transaction.
    const changedAt = new Map<string, number>();
    const change = async (t: { id: string }) => {
      const eventId = await ctx.db.transaction(async (tx) => {
        const [e] = await tx
          .insert(trackingEvents)
          .values({ trackingId: t.id, userId: u!.id, fromStatus: 'Pending', toStatus: 'InTransit', checkpoint: { status: 'InTransit', location: 'Memphis, TN', message: 'Departed', time: new Date().toISOString() } })
          .returning({ id: trackingEvents.id });
        await tx.update(trackings).set({ status: 'InTransit' }).where(eq(trackings.id, t.id));
        await fanOutStatusEvent(tx, ctx, e!.id);
        return e!.id;
      });
      changedAt.set(eventId, performance.now());
      return eventId;
    };
    const latencies = async (eventIds: Set<string>) => {
      const rows = await ctx.db.select({ id: notifications.id, eventId: notifications.eventId }).from(notifications);
      return rows.filter((r) => eventIds.has(r.eventId)).map((r) => rx.seen.get(r.id)! - changedAt.get(r.eventId)!).sort((a, b) => a - b);
    };
    const started = performance.now();
    const burst = new Set<string>();
    for (const t of ts.slice(0, EVENTS)) burst.add(await change(t));
    const enqueueSecs = (performance.now() - started) / 1000;
    await rx.waitFor(EVENTS, 120_000);
    const lat = await latencies(burst);
    const last = Math.max(...rx.seen.values());
    const deliveredPerSec = EVENTS / ((last - started) / 1000);
    const single = new Set<string>();
    for (const [i, t] of ts.slice(EVENTS).entries()) {
      single.add(await change(t));
      await rx.waitFor(EVENTS + i + 1, 30_000);
      await new Promise((r) => setTimeout(r, 50));
    }
    const lat1 = await latencies(single);
    const bodySize = 900;
    const plain = await plainPostLoop(rx.port, EVENTS * 5, bodySize);
    return [
      { name: 'webhooks: deliveries/s (status change → signed delivery)', value: Math.round(deliveredPerSec), unit: 'deliveries/s', note: `${EVENTS} status changes on PGlite, 8 workers, enqueue ${Math.round(EVENTS / enqueueSecs)}/s` },
      { name: 'webhooks: status change → receipt p50', value: Math.round(pct(lat, 50)), unit: 'ms', note: `all ${EVENTS} made at once; workers woken by NOTIFY, polling 0.5 s as the backstop` },
      { name: 'webhooks: status change → receipt p99', value: Math.round(pct(lat, 99)), unit: 'ms' },
      { name: 'webhooks: one change at a time → receipt p50', value: Math.round(pct(lat1, 50)), unit: 'ms', note: `${TRICKLE} status changes, each made once the previous one was delivered` },
      { name: 'webhooks: one change at a time → receipt p99', value: Math.round(pct(lat1, 99)), unit: 'ms' },
      { name: 'plain HTTP POST loop to the same receiver', value: Math.round(plain), unit: 'req/s', note: `keep-alive, 8 concurrent, ~${bodySize} B bodies` },
      { name: 'webhooks: delivery rate / plain POST rate', value: Number((deliveredPerSec / plain).toFixed(4)), unit: 'ratio' },
    ];
  } finally {
    await app.close();
    await closeContext(ctx);
    await rx.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await bench(), null, 2));
  process.exit(0);
}
