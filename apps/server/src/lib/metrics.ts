// Prometheus metrics of this process (prom-client). What is counted in code (requests, jobs, carrier calls,
// waits, open streams) is per process, as Prometheus expects of every scraped target; what lives in the
// database (queue depth and age, notifications by state) is read at scrape time, so any one process reports it
// for the whole deployment.
import { createHash, timingSafeEqual } from 'node:crypto';
import client from 'prom-client';
import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry, prefix: 'shiptrail_' });

export const httpDuration = new client.Histogram({
  name: 'shiptrail_http_request_duration_seconds',
  help: 'HTTP request latency by method, route pattern and status code',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const jobRuns = new client.Counter({
  name: 'shiptrail_job_batches_total',
  help: 'Job batches handled by this worker, by queue and outcome (ok, failed: pg-boss retries failed jobs)',
  labelNames: ['queue', 'outcome'] as const,
  registers: [registry],
});

export const jobDuration = new client.Histogram({
  name: 'shiptrail_job_batch_duration_seconds',
  help: 'Time to handle one batch of jobs, by queue',
  labelNames: ['queue'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60],
  registers: [registry],
});

export const carrierCalls = new client.Counter({
  name: 'shiptrail_carrier_results_total',
  help: 'Tracking numbers looked up at a carrier, by carrier and outcome (ok, or the error kind)',
  labelNames: ['carrier', 'outcome'] as const,
  registers: [registry],
});

export const carrierRateLimitWait = new client.Counter({
  name: 'shiptrail_carrier_rate_limit_wait_seconds_total',
  help: 'Seconds spent waiting for a grant of the shared carrier quota, by carrier',
  labelNames: ['carrier'] as const,
  registers: [registry],
});

export const trackingUpdates = new client.Counter({
  name: 'shiptrail_tracking_updates_total',
  help: 'Trackings that got new checkpoints or a new status, by carrier and how the news came (poll or push)',
  labelNames: ['carrier', 'source'] as const,
  registers: [registry],
});

export const scanToStatusSeconds = new client.Histogram({
  name: 'shiptrail_scan_to_status_seconds',
  help: "Seconds from a carrier's scan to the status change it caused being recorded (notifications are queued in the same transaction), by source",
  labelNames: ['source'] as const,
  buckets: [0.1, 0.25, 0.5, 1, 2, 5, 15, 60, 300, 1800, 7200, 21600],
  registers: [registry],
});

export const carrierPushEvents = new client.Counter({
  name: 'shiptrail_carrier_push_events_total',
  help: 'Calls carriers pushed to us, by carrier and outcome (applied, duplicate, unknown number, forged, stale, replay, malformed)',
  labelNames: ['carrier', 'outcome'] as const,
  registers: [registry],
});

export const liveStreams = new client.Gauge({
  name: 'shiptrail_live_streams',
  help: 'Live update streams open on this process',
  registers: [registry],
});

// Scrape-time figures from the database: the most recently started context of this process answers them.
let bound: Db | undefined;

/** Read queue and notification figures from this database when scraped (start-up binds, close unbinds). */
export function bindMetricsDatabase(db: Db): void {
  bound = db;
}

export function unbindMetricsDatabase(db: Db): void {
  if (bound === db) bound = undefined;
}

new client.Gauge({
  name: 'shiptrail_jobs',
  help: 'Jobs in the queue by queue and state (created, retry, active)',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    if (!bound) return;
    const r = await bound.execute<{ name: string; state: string; n: string | number }>(
      sql`select name, state::text as state, count(*) as n from pgboss.job where state in ('created', 'retry', 'active') group by name, state`,
    );
    for (const row of rowsOf<{ name: string; state: string; n: string | number }>(r))
      this.set({ queue: row.name, state: row.state }, Number(row.n));
  },
});

new client.Gauge({
  name: 'shiptrail_job_oldest_waiting_seconds',
  help: 'Age of the oldest job waiting to be taken (created or retry, due now), by queue',
  labelNames: ['queue'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    if (!bound) return;
    const r = await bound.execute<{ name: string; age: string | number }>(
      sql`select name, extract(epoch from now() - min(start_after)) as age from pgboss.job where state in ('created', 'retry') and start_after <= now() group by name`,
    );
    for (const row of rowsOf<{ name: string; age: string | number }>(r)) this.set({ queue: row.name }, Math.max(0, Number(row.age)));
  },
});

new client.Gauge({
  name: 'shiptrail_trackings_due',
  help: 'Trackings due for a refresh now, by kind: first (added, no carrier answer yet; the scheduler claims these first) and recheck',
  labelNames: ['kind'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    if (!bound) return;
    // A tracking just added is due at the epoch (refresh.ts FIRST_IN_LINE).
    const r = await bound.execute<{ first: string | number; recheck: string | number }>(
      sql`select count(*) filter (where next_check_at = to_timestamp(0)) as first, count(*) filter (where next_check_at > to_timestamp(0)) as recheck from trackings where next_check_at <= now()`,
    );
    const row = rowsOf<{ first: string | number; recheck: string | number }>(r)[0];
    this.set({ kind: 'first' }, Number(row?.first ?? 0));
    this.set({ kind: 'recheck' }, Number(row?.recheck ?? 0));
  },
});

new client.Gauge({
  name: 'shiptrail_notifications',
  help: 'Notifications by channel and delivery state (the whole deployment, from the database)',
  labelNames: ['channel', 'state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    if (!bound) return;
    const r = await bound.execute<{ channel: string; status: string; n: string | number }>(
      sql`select channel, status, count(*) as n from notifications group by channel, status`,
    );
    for (const row of rowsOf<{ channel: string; status: string; n: string | number }>(r))
      this.set({ channel: row.channel, state: row.status }, Number(row.n));
  },
});

/** The exposition text and its content type. */
export async function metricsText(): Promise<{ body: string; contentType: string }> {
  return { body: await registry.metrics(), contentType: registry.contentType };
}

/** Constant-time check of a bearer token (digests first, so lengths leak nothing either). */
export function tokenMatches(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
