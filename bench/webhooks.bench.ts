// Webhook delivery (ARCHITECTURE §6): status change → signed delivery at a local receiver, on PGlite and on
// PostgreSQL, beside a plain keep-alive HTTP POST loop to the same receiver in the same run (the ceiling the
// receiver and loopback allow). Run: `npx tsx bench/webhooks.bench.ts` (prints JSON).
// Three phases per database:
// - backlog drain: BENCH_WEBHOOK_EVENTS status changes are made while no worker runs, then the workers start:
//   deliveries/s from their start to the last receipt is the peak delivery rate, compared with the plain loop;
// - one change at a time (the usual case), each made once the previous one was delivered;
// - sustained: BENCH_WEBHOOK_RATE status changes a second for BENCH_WEBHOOK_SUSTAIN_SECONDS, paced, with
//   status change → receipt p50/p99 over every one of them.
// BENCH_WEBHOOK_DATABASES=pglite (or postgres) runs one database only.
// Workers are woken by NOTIFY when a delivery job commits (docs/decisions/073); the 0.5 s poll is the backstop.
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { createContext, closeContext } from '../apps/server/src/bootstrap.ts';
import { createLogger } from '../apps/server/src/lib/logger.ts';
import { buildApp } from '../apps/server/src/app.ts';
import { notifications, trackingEvents, trackings, users } from '../apps/server/src/db/schema.ts';
import { fanOutStatusEvent } from '../apps/server/src/modules/notifications/fanout.ts';
import { startJobWorkers } from '../apps/server/src/jobs/registry.ts';
import { notifyJobs } from '../apps/server/src/modules/notifications/notifications.jobs.ts';
import { freshDatabase, startPostgres, type PrivatePostgres } from './lib/postgres.ts';
import { benchConfig, signUpOn } from './lib/app.ts';
import { inTransitEvent } from './lib/rows.ts';
import type { BenchResult } from './lib/types.ts';
import { percentile as pct } from './lib/stats.ts';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 300);
/** Then status changes one at a time, as they usually come: each delivered before the next is made. */
const TRICKLE = Number(process.env.BENCH_WEBHOOK_TRICKLE ?? 30);
const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 100);
const SUSTAIN_SECONDS = Number(process.env.BENCH_WEBHOOK_SUSTAIN_SECONDS ?? 60);
/** Which databases to run: `pglite`, `postgres`, or both (the default), e.g. to profile the embedded one alone. */
const DATABASES = (process.env.BENCH_WEBHOOK_DATABASES ?? 'pglite,postgres').split(',').map((d) => d.trim());

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
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The same number of POSTs, same body size, same concurrency as the webhook workers (8), keep-alive. */
async function plainPostLoop(port: number, n: number, bodySize: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const body = 'x'.repeat(bodySize);
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/plain',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next++ < n) await one();
    }),
  );
  const secs = (performance.now() - start) / 1000;
  agent.destroy();
  return n / secs;
}

async function webhookRun(kind: string, adminUrl: string | undefined): Promise<BenchResult[]> {
  const rx = await receiver();
  const databaseUrl = adminUrl ? await freshDatabase(adminUrl, 'hooks') : undefined;
  const config = benchConfig({
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'shiptrail-bench-hooks-')),
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const ctx = await createContext(config, createLogger(config));
  const app = await buildApp(ctx, { logger: false });
  const log = (m: string) => console.error(`[webhooks ${kind}] ${m}`);
  try {
    const token = (await signUpOn(app, 'bench@example.com')).sessionToken;
    const triggers = { InTransit: true, Delivered: true, Exception: true, Expired: true, InfoReceived: true, OutForDelivery: true };
    const saved = await app.inject({
      method: 'POST',
      url: '/v1/user/general/update',
      headers: { 'sm-api-token': token, 'sm-http-status': 'real' },
      payload: { settings: { receiveNotification: { webhook: { triggers, endpoint: rx.url } } } },
    });
    if (saved.statusCode !== 200) throw new Error(saved.body);
    const [u] = await ctx.db.select().from(users).where(eq(users.email, 'bench@example.com'));
    const sustained = Math.round(RATE * SUSTAIN_SECONDS);
    const total = EVENTS + TRICKLE + sustained;
    const ts: Array<{ id: string }> = [];
    for (let i = 0; i < total; i += 1000)
      ts.push(
        ...(await ctx.db
          .insert(trackings)
          .values(
            Array.from({ length: Math.min(1000, total - i) }, (_, j) => ({
              userId: u!.id,
              tid: `1ZBENCH${String(i + j).padStart(8, '0')}`,
              courier: 'ups',
              status: 'Pending',
            })),
          )
          .returning({ id: trackings.id })),
      );

    // Status changes as the trackings module makes them (markDelivered, a carrier's push: trackings/events.ts): event,
    // tracking update and fan-out in one transaction, the fan-out given the rows written (decision 148).
    const changedAt = new Map<string, number>();
    const change = async (t: { id: string }) => {
      const at = performance.now();
      const eventId = await ctx.db.transaction(async (tx) => {
        const [tracking] = await tx.update(trackings).set({ status: 'InTransit' }).where(eq(trackings.id, t.id)).returning();
        const [event] = await tx.insert(trackingEvents).values(inTransitEvent(t.id, u!.id)).returning();
        await fanOutStatusEvent(tx, ctx, { event: event!, tracking: tracking!, user: u! });
        return event!.id;
      });
      // From the start of the change: the time a carrier's news takes to reach the receiver.
      changedAt.set(eventId, at);
      return eventId;
    };
    const latencies = async (eventIds: Set<string>) => {
      const rows = await ctx.db.select({ id: notifications.id, eventId: notifications.eventId }).from(notifications);
      return rows
        .filter((r) => eventIds.has(r.eventId))
        .map((r) => rx.seen.get(r.id)! - changedAt.get(r.eventId)!)
        .sort((a, b) => a - b);
    };

    // Backlog drain: every delivery queued before any worker runs.
    for (const t of ts.slice(0, EVENTS)) await change(t);
    const drainStart = performance.now();
    await startJobWorkers(ctx, Object.values(notifyJobs));
    await rx.waitFor(EVENTS, 120_000);
    const drainPerSec = EVENTS / ((Math.max(...rx.seen.values()) - drainStart) / 1000);
    log(`drain ${Math.round(drainPerSec)} deliveries/s`);

    const single = new Set<string>();
    for (const [i, t] of ts.slice(EVENTS, EVENTS + TRICKLE).entries()) {
      single.add(await change(t));
      await rx.waitFor(EVENTS + i + 1, 30_000);
      await new Promise((r) => setTimeout(r, 50));
    }
    const lat1 = await latencies(single);

    // Sustained: changes paced at RATE a second (started on schedule, not after the previous one finished).
    const steady = new Set<string>();
    const pending = new Set<Promise<void>>();
    const queue = ts.slice(EVENTS + TRICKLE);
    // The embedded database's thread times its transactions (decision 140: a status change holds it that long).
    await ctx.database.thread?.stats(true);
    const sustainStart = performance.now();
    let made = 0;
    let maxInFlight = 0;
    while (made < sustained) {
      const due = Math.min(sustained, Math.floor(((performance.now() - sustainStart) / 1000) * RATE) + 1);
      while (made < due) {
        const p: Promise<void> = change(queue[made++]!).then((id) => {
          steady.add(id);
          pending.delete(p);
        });
        pending.add(p);
      }
      maxInFlight = Math.max(maxInFlight, pending.size);
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(pending);
    const madeSecs = (performance.now() - sustainStart) / 1000;
    await rx.waitFor(EVENTS + TRICKLE + sustained, 120_000);
    const lat = await latencies(steady);
    const threadStats = await ctx.database.thread?.stats();
    const held = threadStats?.transaction;
    // Statements per transaction (decision 148), when the thread counts them.
    const perTx = (threadStats as { transactionStatements?: { p50: number } } | undefined)?.transactionStatements;
    log(
      `sustained: ${sustained} changes in ${madeSecs.toFixed(1)} s, p50 ${Math.round(pct(lat, 50))} ms p99 ${Math.round(pct(lat, 99))} ms`,
    );

    const bodySize = 900;
    const plain = await plainPostLoop(rx.port, EVENTS * 5, bodySize);
    const share = `${Math.round((drainPerSec / plain) * 1000) / 10}%`;
    return [
      {
        name: 'webhooks: backlog drain (peak deliveries)',
        setup: kind,
        metrics: { 'deliveries/s': Math.round(drainPerSec), 'plain POST req/s': Math.round(plain), 'share of plain POST': share },
        note: `${EVENTS} deliveries queued before the workers start; the plain loop: keep-alive, 8 concurrent, ~${bodySize} B bodies, same receiver`,
      },
      {
        name: `webhooks: sustained ${RATE} changes/s for ${SUSTAIN_SECONDS} s`,
        setup: kind,
        metrics: {
          'changes/s made': Math.round(sustained / madeSecs),
          'p50 ms': Math.round(pct(lat, 50)),
          'p99 ms': Math.round(pct(lat, 99)),
          'max ms': Math.round(lat[lat.length - 1]!),
          'changes in flight (max)': maxInFlight,
          ...(held ? { 'transaction hold p50 ms': held.p50, 'transaction hold p99 ms': held.p99 } : {}),
          ...(perTx ? { 'statements per transaction p50': perTx.p50 } : {}),
        },
        note: 'status change (its transaction started) → receipt, over every change; target p99 < 500 ms',
      },
      {
        name: 'webhooks: one change at a time',
        setup: kind,
        metrics: { 'p50 ms': Math.round(pct(lat1, 50)), 'p99 ms': Math.round(pct(lat1, 99)) },
        note: `${TRICKLE} status changes, each made once the previous one was delivered`,
      },
    ];
  } finally {
    await app.close();
    await closeContext(ctx);
    await rx.close();
  }
}

export default async function bench(): Promise<BenchResult[]> {
  const out = DATABASES.includes('pglite') ? await webhookRun('PGlite', undefined) : [];
  if (!DATABASES.includes('postgres')) return out;
  const server: PrivatePostgres | { skipped: string } = await startPostgres().catch((err: Error) => ({
    skipped: `could not start PostgreSQL: ${err.message}`,
  }));
  if ('skipped' in server) {
    out.push({ name: 'webhooks on PostgreSQL', metrics: {}, note: `skipped: ${server.skipped}` });
    return out;
  }
  try {
    out.push(...(await webhookRun(server.version, server.url)));
  } finally {
    server.stop();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await bench(), null, 2));
  process.exit(0);
}
