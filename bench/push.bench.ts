// Scan to customer (issue 17, docs/carriers.md "Push"): from the moment a carrier scans a parcel to the signed
// webhook at the account's receiver, p50 and p99, with carrier push on and with push off (polling only), in one
// run. The carrier is the built-in sandbox: each scan's exact time is known (its journey, anchored at the label
// scan), it pushes as UPS, FedEx and USPS push, and with push off the app polls it on the sandbox cadence.
// Run: `npx tsx bench/push.bench.ts` (prints JSON).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, inArray, min } from 'drizzle-orm';
import { createContext, closeContext } from '../apps/server/src/bootstrap.ts';
import { createLogger } from '../apps/server/src/lib/logger.ts';
import { buildApp } from '../apps/server/src/app.ts';
import { checkpoints, trackings, users } from '../apps/server/src/db/schema.ts';
import { startWorkers } from '../apps/server/src/jobs/registry.ts';
import { journeyFor, reachedSteps } from '../apps/server/src/modules/carriers/sandbox/journeys.ts';
import { benchConfig, signUpOn } from './lib/app.ts';
import type { BenchResult } from './lib/types.ts';
import { percentile as pct } from './lib/stats.ts';

/** 0.2: a journey plays in about 45-55 s; the sandbox cadence polls an In Transit parcel every 2.4 s. */
const PACE = Number(process.env.BENCH_PUSH_PACE ?? 0.2);
const PER_CARRIER = Number(process.env.BENCH_PUSH_PER_CARRIER ?? 20);
const COURIERS = ['ups', 'fedex', 'usps'] as const;
/** The status each measured scan moves a "delivered" journey to (the label scan is read on the first poll, not measured). */
const MEASURED: Record<string, 'pickup' | 'ofd' | 'delivered'> = { InTransit: 'pickup', OutForDelivery: 'ofd', Delivered: 'delivered' };

/** Sandbox numbers that play the plain delivered journey, in each carrier's format. */
function numbers(courier: (typeof COURIERS)[number], n: number, salt: string): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const k = `${salt}${String(i).padStart(6, '0')}`;
    const tid =
      courier === 'ups'
        ? `1ZPUSH${k}`.padEnd(18, '0')
        : courier === 'fedex'
          ? `${salt === 'A' ? 1 : 2}${String(i * 7919).padStart(11, '0')}`
          : `9400${salt === 'A' ? 1 : 2}${String(i * 104_729).padStart(17, '0')}`;
    if (journeyFor(tid).name === 'delivered' && !out.includes(tid)) out.push(tid);
  }
  return out;
}

async function run(push: boolean): Promise<{ latencies: number[]; changes: number; pushedShare: number }> {
  const received: Array<{ tid: string; status: string; at: number }> = [];
  const rx = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { status?: string; tracking?: { tid?: string } } };
        if (body.data?.tracking?.tid && body.data.status) received.push({ tid: body.data.tracking.tid, status: body.data.status, at });
      } catch {
        /* not a webhook */
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => rx.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/hook`;

  // The app must know its own address before the workers start (carriers push to it): take a free port first.
  const probe = http.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const config = benchConfig({
    DATA_DIR: 'memory://',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    CARRIER_SANDBOX_PACE: String(PACE),
    CARRIER_SANDBOX_PUSH: push ? 'on' : 'off',
  });
  const ctx = await createContext(config, createLogger(config));
  const app = await buildApp(ctx, { logger: false });
  try {
    await app.listen({ port, host: '127.0.0.1' });
    const token = (await signUpOn(app, 'push@example.com')).sessionToken;
    const triggers = {
      InTransit: true,
      Delivered: true,
      Exception: true,
      Expired: true,
      InfoReceived: true,
      OutForDelivery: true,
      FailAttempt: true,
    };
    const saved = await app.inject({
      method: 'POST',
      url: '/v1/user/general/update',
      headers: { 'sm-api-token': token, 'sm-http-status': 'real' },
      payload: { settings: { receiveNotification: { webhook: { triggers, endpoint: hook } } } },
    });
    if (saved.statusCode !== 200) throw new Error(saved.body);
    const [u] = await ctx.db.select().from(users).where(eq(users.email, 'push@example.com'));
    const tids = COURIERS.flatMap((c) => numbers(c, PER_CARRIER, push ? 'A' : 'B').map((tid) => ({ tid, courier: c })));
    // Straight into the table, due now: the first poll anchors each journey (its label scan) in the sandbox.
    await ctx.db
      .insert(trackings)
      .values(tids.map((t) => ({ userId: u!.id, tid: t.tid, courier: t.courier, status: 'Pending', nextCheckAt: new Date() })));
    await startWorkers(ctx);

    const total = tids.length;
    const deadline = Date.now() + Math.round(400_000 * PACE) + 60_000;
    while (Date.now() < deadline) {
      const done = received.filter((r) => r.status === 'Delivered').length;
      if (done >= total) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    // Each measured change: its scan's exact time is the journey's anchor (the label scan) plus the step's offset.
    const rows = await ctx.db
      .select({ tid: trackings.tid, anchor: min(checkpoints.time), pushedAt: trackings.lastPushedAt })
      .from(trackings)
      .leftJoin(checkpoints, eq(checkpoints.trackingId, trackings.id))
      .where(
        inArray(
          trackings.tid,
          tids.map((t) => t.tid),
        ),
      )
      .groupBy(trackings.tid, trackings.lastPushedAt);
    const anchors = new Map(rows.map((r) => [r.tid, r.anchor ? new Date(r.anchor as unknown as string).getTime() : NaN]));
    const latencies: number[] = [];
    for (const r of received) {
      const kind = MEASURED[r.status];
      const anchor = anchors.get(r.tid);
      if (!kind || anchor === undefined || !Number.isFinite(anchor)) continue;
      const step = reachedSteps(journeyFor(r.tid), Number.MAX_SAFE_INTEGER, PACE).find((s) => s.kind === kind);
      if (!step || step.offsetMs === 0) continue;
      latencies.push(r.at - (anchor + step.offsetMs));
    }
    const delivered = received.filter((r) => r.status === 'Delivered').length;
    if (delivered < total) throw new Error(`only ${delivered}/${total} parcels reached Delivered (push ${push ? 'on' : 'off'})`);
    return {
      latencies: latencies.sort((a, b) => a - b),
      changes: latencies.length,
      pushedShare: rows.filter((r) => r.pushedAt).length / rows.length,
    };
  } finally {
    await app.close();
    await closeContext(ctx);
    rx.closeAllConnections();
    await new Promise<void>((r) => rx.close(() => r()));
  }
}

/** One run's figures: scan-to-webhook latencies (sorted), status changes, and the share that came by push. */
const metricsOf = (r: Awaited<ReturnType<typeof run>>) => ({
  p50_ms: Math.round(pct(r.latencies, 50)),
  p99_ms: Math.round(pct(r.latencies, 99)),
  max_ms: Math.round(r.latencies.at(-1)!),
  changes: r.changes,
  pushed_share: Number(r.pushedShare.toFixed(2)),
});

export default async function bench(): Promise<BenchResult[]> {
  const on = await run(true);
  const off = await run(false);
  const note = `${PER_CARRIER} UPS + ${PER_CARRIER} FedEx + ${PER_CARRIER} USPS parcels on the sandbox at pace ${PACE}; scan time from the sandbox journey, receipt time at a local webhook receiver; PGlite, one process`;
  return [
    {
      name: 'scan → signed webhook at the customer',
      setup: 'push on',
      metrics: metricsOf(on),
      note: `${note}. Target p50 < 2 s, p99 < 5 s.`,
    },
    {
      name: 'scan → signed webhook at the customer',
      setup: 'push off (polling only)',
      metrics: metricsOf(off),
      note: `Polling on the sandbox cadence (an In Transit parcel every ${(12 * PACE).toFixed(1)} s at this pace); real carriers are polled every 30 min to 6 h (schedule.ts), so without push a real scan waits hours, not seconds.`,
    },
    {
      name: 'scan → webhook p50, push on / push off',
      metrics: { ratio: Number((pct(on.latencies, 50) / pct(off.latencies, 50)).toFixed(3)) },
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await bench(), null, 2));
  process.exit(0);
}
