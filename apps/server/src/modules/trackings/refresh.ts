import type { TrackingStatus } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { mapConcurrent } from '../../lib/concurrency.ts';
import { isCourierSlug, type CourierSlug, type TrackResult } from '../carriers/carriers.service.ts';
import { carriersOf, sandboxPaceOf, sandboxPollIntervalMs } from '../carriers/carriers.service.ts';
import { recordStatusChange } from './events.ts';
import * as repo from './trackings.repository.ts';
import { backoffMs, expireAfterMs, isFinal, nextCheckDelayMs, type ScheduleMode } from './schedule.ts';
import { checkpointJson, fingerprint, parseExpected } from './views.ts';
import { publishLive } from '../live/live.service.ts';
import { withLogContext } from '../../lib/log-context.ts';

// The refresh engine (docs/trackings.md). Two ways in, one path:
//  - the scheduler loop claims due trackings (next_check_at <= now) with a lease, in batches;
//  - a refresh job (trackings.jobs.ts: first refresh after add, "refresh now") leases specific trackings.
// Both call refreshTrackings: group by carrier, one client.track call per carrier (the client splits into
// the carrier's batch size and keeps its rate limit), then apply each result in its own transaction so one
// bad number never holds back the others.

/**
 * How long a claim holds a tracking. Short, so the trackings of a worker that dies mid-batch (kill -9, OOM) are
 * refreshed again within a minute by whichever worker runs next; renewed every LEASE_RENEW_MS while the batch is
 * in progress, so a slow carrier or a rate limit never lets a live worker's claim lapse.
 */
export const LEASE_MS = 20_000;
export const LEASE_RENEW_MS = LEASE_MS / 4;
/** Trackings claimed per scheduler round. */
export const CLAIM_BATCH = 500;
/** Results applied per transaction (one lock statement and one checkpoint insert for all of them). */
const APPLY_CHUNK = 50;
/** Chunks applied at once, each in its own transaction. */
const APPLY_CONCURRENCY = 4;

export interface RefreshStats {
  fetched: number;
  changed: number;
  failed: number;
}

export function modeOf(ctx: AppContext, courier: CourierSlug): ScheduleMode {
  return { sandbox: carriersOf(ctx).isSandbox(courier), pace: sandboxPaceOf(ctx) };
}

/**
 * Refresh leased trackings. `leaseUntil` is the lease they were claimed with: it is renewed for the trackings not
 * applied yet until the batch is done.
 */
export async function refreshTrackings(ctx: AppContext, due: repo.DueTracking[], leaseUntil?: Date): Promise<RefreshStats> {
  const lease = leaseUntil ? keepLeased(ctx, due, leaseUntil) : null;
  try {
    return await refreshLeased(ctx, due, (id) => lease?.done(id));
  } finally {
    await lease?.stop();
  }
}

/**
 * Renew the claim on the trackings of a batch that are not applied yet. Only rows still holding this batch's
 * lease are renewed: a row already applied has its real next check, and one another worker took over is left alone.
 */
function keepLeased(ctx: AppContext, items: repo.DueTracking[], leaseUntil: Date) {
  const pending = new Set(items.map((i) => i.id));
  let current = leaseUntil;
  let renewing: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (renewing || pending.size === 0) return;
    const next = new Date(ctx.now().getTime() + LEASE_MS);
    renewing = repo
      .renewLease(ctx.db, [...pending], current, next)
      .then(() => {
        current = next;
      })
      .catch((err: unknown) => ctx.log.warn({ err }, 'renewing a refresh lease failed'))
      .finally(() => {
        renewing = null;
      });
  }, LEASE_RENEW_MS);
  timer.unref();
  return {
    done: (id: string) => pending.delete(id),
    async stop() {
      clearInterval(timer);
      await renewing;
    },
  };
}

async function refreshLeased(ctx: AppContext, due: repo.DueTracking[], done: (id: string) => void): Promise<RefreshStats> {
  const stats: RefreshStats = { fetched: 0, changed: 0, failed: 0 };
  const byCourier = new Map<CourierSlug, repo.DueTracking[]>();
  for (const d of due) {
    const courier = isCourierSlug(d.courier) ? d.courier : null;
    if (!courier) continue; // not produced by the API; left leased so it cannot spin
    const list = byCourier.get(courier) ?? [];
    list.push(d);
    byCourier.set(courier, list);
  }
  const client = carriersOf(ctx);
  await Promise.all(
    [...byCourier].map(async ([courier, items]) => {
      // The same number may be tracked by several accounts: ask the carrier once.
      const tids = [...new Set(items.map((i) => i.tid))];
      let results: TrackResult[];
      try {
        results = await client.track(courier, tids);
      } catch (err) {
        ctx.log.error({ err, courier }, 'carrier client failed');
        results = tids.map((tid) => ({ ok: false, tid, courier, error: { kind: 'carrier-down', message: (err as Error).message } }));
      }
      const byTid = new Map(results.map((r) => [r.tid, r]));
      const mode = modeOf(ctx, courier);
      const resultOf = (item: repo.DueTracking): TrackResult =>
        byTid.get(item.tid) ?? { ok: false as const, tid: item.tid, courier, error: { kind: 'malformed' as const, message: 'The carrier returned no result for this number' } };
      const applied = await applyResults(ctx, items.map((item) => ({ id: item.id, r: resultOf(item) })), mode, done);
      stats.fetched += applied.fetched;
      stats.changed += applied.changed;
      stats.failed += applied.failed;
    }),
  );
  return stats;
}

/** What applying one result does to its locked row, decided before and after its checkpoints are inserted. */
interface Plan {
  /** Checkpoints to insert (oldest first); none for a failed fetch or an older picture. */
  checkpoints: repo.NewCheckpoint[];
  /** Given how many of them were new: the row's update, and the status to record (null: no change). */
  finish(added: number): { patch: Partial<repo.NewTracking>; toStatus: TrackingStatus | null; newest: ReturnType<typeof checkpointJson> | null; announceCheckpoints: boolean };
}

/**
 * Decide what one carrier result does to one locked tracking; null when there is nothing to do (deleted, marked
 * delivered or expired while the carrier was being asked). Pure: the caller runs the statements, one tracking
 * at a time (applyResult) or a chunk at a time (applyChunk), so both paths follow the same rules.
 */
function planResult(t: repo.TrackingRow, r: TrackResult, mode: ScheduleMode, now: Date): Plan | null {
  if (t.nextCheckAt === null || isFinal(t.status)) return null;
  const expired = (lastData: Date | null) => now.getTime() - (lastData ?? t.createdAt).getTime() > expireAfterMs();
  const nothingNew = (patch: Partial<repo.NewTracking>): Plan => ({ checkpoints: [], finish: () => ({ patch, toStatus: null, newest: null, announceCheckpoints: false }) });
  const expire = (lastError: string | null, extra: Partial<repo.NewTracking> = {}): Plan => ({
    checkpoints: [],
    finish: () => ({ patch: { status: 'Expired', nextCheckAt: null, lastCheckedAt: now, lastError, updatedAt: now, ...extra }, toStatus: 'Expired', newest: null, announceCheckpoints: false }),
  });

  if (r.ok) {
    // An older picture than the one stored (a carrier replica or cache behind the one read before, or a sandbox
    // that lost its clock): it adds nothing and moves no status, so a parcel never goes back a step and nobody
    // is told "In Transit" twice. Only the next check is scheduled.
    const storedNewest = storedCheckpointTime(t.lastCheckPoint);
    const responseNewest = r.checkpoints.reduce<number | null>((m, c) => Math.max(m ?? -Infinity, Date.parse(c.time)), null);
    if (storedNewest !== null && (responseNewest === null || responseNewest < storedNewest)) {
      if (expired(t.lastCarrierDataAt)) return expire(null, { failures: 0 });
      const delay = nextCheckDelayMs(t.status as TrackingStatus, mode) ?? backoffMs(0, mode);
      return nothingNew({ lastCheckedAt: now, failures: 0, lastError: null, nextCheckAt: new Date(now.getTime() + delay) });
    }
    // Carriers list newest first, and events of the same second keep that order (a Canada Post delivery and
    // its signature scan share one). Inserted oldest first, ids grow with the carrier's order, so reading
    // "time desc, id desc" shows a same-second pair as the carrier did; events first seen on a later fetch
    // are newer and get higher ids too.
    const rows = [...r.checkpoints].reverse().map((c) => ({ trackingId: t.id, status: c.status, location: c.location, message: c.message, time: new Date(c.time), fingerprint: fingerprint(c) }));
    return {
      checkpoints: rows,
      finish(added) {
        const lastCarrierDataAt = added > 0 ? now : t.lastCarrierDataAt;
        let status: TrackingStatus = r.status;
        if (added === 0 && status === t.status && expired(lastCarrierDataAt)) status = 'Expired';
        const newest = r.checkpoints[0] ? checkpointJson(r.checkpoints[0]) : null;
        const delay = nextCheckDelayMs(status, mode);
        const origin = r.origin ?? t.origin;
        const destination = r.destination ?? t.destination;
        const expected = status === 'Delivered' ? null : parseExpected(r.expected);
        const visible = added > 0 || status !== t.status || origin !== t.origin || destination !== t.destination || expected?.getTime() !== t.expected?.getTime();
        return {
          patch: {
            status,
            origin,
            destination,
            expected,
            ...(newest ? { lastCheckPoint: newest } : {}),
            lastCheckedAt: now,
            lastCarrierDataAt,
            failures: 0,
            lastError: null,
            nextCheckAt: delay === null ? null : new Date(now.getTime() + delay),
            ...(visible ? { updatedAt: now } : {}),
          },
          toStatus: status === t.status ? null : status,
          newest,
          // New checkpoints under the same status: open screens show them too (a status change announces itself).
          announceCheckpoints: added > 0 && status === t.status,
        };
      },
    };
  }

  if (r.error.kind === 'not-found') {
    // Normal for a few hours after a label is printed; only a long silence makes it Expired.
    if (expired(t.lastCarrierDataAt)) return expire(r.error.message);
    const delay = nextCheckDelayMs(t.status as TrackingStatus, mode) ?? backoffMs(0, mode);
    return nothingNew({ lastCheckedAt: now, lastError: r.error.message, nextCheckAt: new Date(now.getTime() + delay) });
  }

  // Carrier down, throttled, credentials refused, unreadable reply: back off, keep the status.
  const failures = t.failures + 1;
  return nothingNew({
    lastCheckedAt: now,
    failures,
    lastError: `${r.error.kind}: ${r.error.message}`.slice(0, 500),
    nextCheckAt: new Date(now.getTime() + backoffMs(failures, mode, r.error.retryAfterMs)),
  });
}

/** The statements after the checkpoints: the row, then the status change (event, notifications) or the live note. */
async function finishPlan(tx: Tx, ctx: AppContext, t: repo.TrackingRow, plan: Plan, added: number): Promise<boolean> {
  const { patch, toStatus, newest, announceCheckpoints } = plan.finish(added);
  await repo.updateTracking(tx, t.id, patch);
  if (announceCheckpoints) await publishLive(tx, { kind: 'tracking', accountId: t.userId, trackingId: t.id, tid: t.tid, status: t.status, statusChanged: false });
  if (toStatus === null) return false;
  return (await recordStatusChange(tx, ctx, t, toStatus, newest)) !== null;
}

/**
 * Apply one carrier result to one tracking, idempotently: checkpoints merge by fingerprint, and a status
 * event is written only when the locked row's status differs. Returns whether the status changed.
 */
export async function applyResult(ctx: AppContext, trackingId: string, r: TrackResult, mode: ScheduleMode): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const t = await repo.lockById(tx, trackingId);
    const plan = t ? planResult(t, r, mode, ctx.now()) : null;
    if (!t || !plan) return false;
    const added = await repo.insertCheckpoints(tx, plan.checkpoints);
    return finishPlan(tx, ctx, t, plan, added);
  });
}

/**
 * Apply a chunk of results in one transaction: one statement locks the rows (in id order, so chunks never
 * deadlock each other), one inserts every new checkpoint, then each row is updated and each status change
 * recorded with its notifications, under the same rules as applyResult. Returns the ids whose status changed.
 * Throws if anything fails; the caller then applies the chunk one tracking at a time, so one bad number never
 * holds back the others.
 */
async function applyChunk(ctx: AppContext, items: Array<{ id: string; r: TrackResult }>, mode: ScheduleMode): Promise<Set<string>> {
  return ctx.db.transaction(async (tx) => {
    const rows = await repo.lockManyById(tx, items.map((i) => i.id));
    const now = ctx.now();
    const planned: Array<{ t: repo.TrackingRow; plan: Plan }> = [];
    for (const { id, r } of items) {
      const t = rows.get(id);
      // Each row once: its status change is decided on the row as locked.
      rows.delete(id);
      const plan = t ? planResult(t, r, mode, now) : null;
      if (t && plan) planned.push({ t, plan });
    }
    const added = await repo.insertCheckpointsCounting(tx, planned.flatMap((p) => p.plan.checkpoints));
    const changed = new Set<string>();
    for (const { t, plan } of planned) if (await finishPlan(tx, ctx, t, plan, added.get(t.id) ?? 0)) changed.add(t.id);
    return changed;
  });
}

/**
 * Apply results to their leased trackings: chunks of APPLY_CHUNK in one transaction each (applyChunk),
 * APPLY_CONCURRENCY chunks at a time. A chunk that fails is applied again one tracking at a time, so one bad
 * number never holds back the others. `done` is called for every tracking once it is applied or given up.
 */
export async function applyResults(ctx: AppContext, items: Array<{ id: string; r: TrackResult }>, mode: ScheduleMode, done: (id: string) => void = () => {}): Promise<RefreshStats> {
  const stats: RefreshStats = { fetched: 0, changed: 0, failed: 0 };
  const chunks: Array<typeof items> = [];
  for (let i = 0; i < items.length; i += APPLY_CHUNK) chunks.push(items.slice(i, i + APPLY_CHUNK));
  await mapConcurrent(chunks, APPLY_CONCURRENCY, async (chunk) => {
    let changed: Set<string> | null = null;
    try {
      changed = await applyChunk(ctx, chunk, mode);
    } catch (err) {
      ctx.log.warn({ err, trackings: chunk.length }, 'applying a chunk of carrier results failed; applying them one by one');
    }
    for (const { id, r } of chunk) {
      try {
        const didChange = changed ? changed.has(id) : await applyResult(ctx, id, r, mode);
        stats.fetched++;
        if (didChange) stats.changed++;
        if (!r.ok) stats.failed++;
      } catch (err) {
        // One tracking failing to apply must not stop the batch; its lease brings it back later.
        stats.failed++;
        ctx.log.error({ err, trackingId: id }, 'applying a carrier result failed');
      } finally {
        done(id);
      }
    }
  });
  return stats;
}

/** The time of the stored newest checkpoint (lastCheckPoint JSON), or null when there is none. */
function storedCheckpointTime(stored: unknown): number | null {
  const time = (stored as { time?: unknown } | null)?.time;
  const ms = typeof time === 'string' ? Date.parse(time) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

/** One scheduler round: claim and refresh due trackings until none are due (or the batch ran short). */
export async function runDueRefreshes(ctx: AppContext, batch = CLAIM_BATCH): Promise<RefreshStats> {
  const total: RefreshStats = { fetched: 0, changed: 0, failed: 0 };
  for (;;) {
    const now = ctx.now();
    const leaseUntil = new Date(now.getTime() + LEASE_MS);
    const due = await repo.claimDue(ctx.db, now, leaseUntil, batch);
    if (due.length === 0) break;
    const s = await refreshTrackings(ctx, due, leaseUntil);
    total.fetched += s.fetched;
    total.changed += s.changed;
    total.failed += s.failed;
    if (due.length < batch) break;
  }
  return total;
}

/**
 * The worker role's scheduler loop (the refresh job's handler is registered with every other job by the
 * job registry). The loop ticks faster when a carrier is in sandbox mode so a sandbox parcel visibly moves.
 */
export async function startRefreshScheduler(ctx: AppContext, opts: { tickMs?: number } = {}): Promise<void> {
  if (ctx.resources.refreshScheduler) return;

  const anySandbox = (['ups', 'usps', 'fedex', 'canadapost'] as const).some((c) => carriersOf(ctx).isSandbox(c));
  const tickMs = opts.tickMs ?? (anySandbox ? Math.max(50, Math.min(1000, sandboxPollIntervalMs(sandboxPaceOf(ctx)) / 4)) : 1000);
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = withLogContext({ queue: 'tracking-refresh-scheduler' }, () => runDueRefreshes(ctx))
      .catch((err) => ctx.log.error({ err }, 'refresh scheduler round failed'))
      .finally(() => {
        running = null;
      });
  }, tickMs);
  timer.unref();

  ctx.resources.refreshScheduler = {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

export async function stopRefreshScheduler(ctx: AppContext): Promise<void> {
  const w = ctx.resources.refreshScheduler;
  if (!w) return;
  delete ctx.resources.refreshScheduler;
  await w.stop();
}
