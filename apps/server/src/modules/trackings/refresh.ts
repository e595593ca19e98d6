import { randomUUID } from 'node:crypto';
import type { Checkpoint, EstimatedDeliveryView, TrackingStatus } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { mapConcurrent } from '../../lib/concurrency.ts';
import { isCourierSlug, type CourierSlug, type NormalizedCheckpoint, type TrackResult } from '../carriers/carriers.service.ts';
import { carriersOf, sandboxPaceOf, sandboxPollIntervalMs } from '../carriers/carriers.service.ts';
import type { EstimatedDelivery, TrackSuccess } from '../carriers/types.ts';
import { recordEstimateEvent, recordStatusChange } from './events.ts';
import { planEstimate, postalOf, type EstimateEvent } from './estimate.ts';
import * as repo from './trackings.repository.ts';
import { backoffMs, expireAfterMs, isFinal, nextCheckDelayMs, type ScheduleMode } from './schedule.ts';
import { checkpointJson, estimateView, fingerprint, parseExpected } from './views.ts';
import { publishLive, publishLiveMany, type LiveEvent } from '../live/live.service.ts';
import { fanOutStatusEvents } from '../notifications/notifications.service.ts';
import { startTickLoop } from '../../lib/tick-loop.ts';
import { notifySql } from '../../lib/bus.ts';
import { scanToStatusSeconds, trackingUpdates } from '../../lib/metrics.ts';

/** How a carrier's news reached us: asked for (poll) or sent by the carrier (push). */
export type UpdateSource = 'poll' | 'push';

// The refresh engine (docs/trackings.md). Two ways in, one path:
//  - the scheduler loop claims due trackings (next_check_at <= now) with a lease, in batches; a tracking just
//    added is due at FIRST_IN_LINE, and its add wakes the loop (refreshWake, in the add's one notification) so its
//    first status comes at once;
//  - a refresh job (trackings.jobs.ts: the first refresh of imported trackings, "refresh now") leases specific
//    trackings.
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
/**
 * Results applied at once per carrier when a batch is applied one by one (applyOneByOne: each its own transaction).
 * The embedded database runs one transaction at a time in this thread: more than two at once only lengthen the queue
 * a user's request joins (measured before the batch path existed: a list request's p99 305 ms with 8, 81 ms with 2).
 */
const applyConcurrency = (ctx: AppContext) => (ctx.database.kind === 'pglite' ? 2 : 8);
/**
 * Results applied together in one transaction (applyBatch). On PGlite a transaction holds the only session from BEGIN
 * to COMMIT and a person's statement waits for the turn in progress (decision 164), so its batches are small: 10 held
 * PGlite about 20 ms at p50 in a refresh round, 50 about 140 ms (decision 167). PostgreSQL serves other sessions
 * meanwhile.
 */
const applyBatchSize = (ctx: AppContext) => (ctx.database.kind === 'pglite' ? 10 : 200);

export interface RefreshStats {
  fetched: number;
  changed: number;
  failed: number;
}

export function modeOf(ctx: AppContext, courier: CourierSlug): ScheduleMode {
  return { sandbox: carriersOf(ctx).isSandbox(courier), pace: sandboxPaceOf(ctx), retryBaseMs: ctx.config.CARRIER_RETRY_SECONDS * 1000 };
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
  }, ctx.resources.refreshLeaseRenewMs ?? LEASE_RENEW_MS);
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
        // Each answer is stamped with when it was asked for: it is at least that fresh, which is what "the window
        // is over and the parcel is not out for delivery" may be judged by (estimate.ts), however late it is applied.
        const askedAt = ctx.now();
        results = (await client.track(courier, tids)).map((r): Stamped => (r.ok ? { ...r, asOf: askedAt } : r));
      } catch (err) {
        ctx.log.error({ err, courier }, 'carrier client failed');
        results = tids.map((tid) => ({ ok: false, tid, courier, error: { kind: 'carrier-down', message: (err as Error).message } }));
      }
      const byTid = new Map(results.map((r) => [r.tid, r]));
      const mode = modeOf(ctx, courier);
      const resultOf = (item: repo.DueTracking): TrackResult =>
        byTid.get(item.tid) ?? {
          ok: false,
          tid: item.tid,
          courier,
          error: { kind: 'malformed', message: 'The carrier returned no result for this number' },
        };
      const size = applyBatchSize(ctx);
      for (let i = 0; i < items.length; i += size) {
        const chunk = items.slice(i, i + size).map((item) => ({ item, r: resultOf(item) }));
        try {
          const changed = await applyBatch(
            ctx,
            chunk.map(({ item, r }) => ({ id: item.id, r })),
            mode,
          );
          stats.fetched += chunk.length;
          stats.changed += changed.size;
          stats.failed += chunk.filter(({ r }) => !r.ok).length;
          for (const { item } of chunk) done(item.id);
        } catch (err) {
          // Nothing of the batch was written: apply its results one by one, so only a bad one fails.
          ctx.log.warn({ err, courier, trackings: chunk.length }, 'applying a batch of carrier results failed; applying them one by one');
          await applyOneByOne(ctx, chunk, mode, stats, done);
        }
      }
    }),
  );
  return stats;
}

async function applyOneByOne(
  ctx: AppContext,
  chunk: Array<{ item: repo.DueTracking; r: TrackResult }>,
  mode: ScheduleMode,
  stats: RefreshStats,
  done: (id: string) => void,
): Promise<void> {
  await mapConcurrent(chunk, applyConcurrency(ctx), async ({ item, r }) => {
    try {
      const changed = await applyResult(ctx, item.id, r, mode);
      stats.fetched++;
      if (changed) stats.changed++;
      if (!r.ok) stats.failed++;
    } catch (err) {
      // One tracking failing to apply must not stop the batch; its lease brings it back later.
      stats.failed++;
      ctx.log.error({ err, trackingId: item.id }, 'applying a carrier result failed');
    } finally {
      done(item.id);
    }
  });
}

/** A carrier answer and when it was asked for (the refresh engine's polls; a push is as fresh as its arrival). */
export type Stamped = TrackResult & { asOf?: Date };

/** What applying a carrier result does to one tracking, decided on its locked row. */
interface Outcome {
  /** Columns to write, or null. */
  update: Partial<repo.NewTracking> | null;
  /** The status change to record (event, notifications, live update), or null. */
  change: { to: TrackingStatus; checkpoint: Checkpoint | null } | null;
  /** New checkpoints under the same status: open screens are told (a status change announces itself). */
  announce: boolean;
  /** Counted in shiptrail_tracking_updates_total (new checkpoints or a new status from the carrier). */
  counted: boolean;
  /** News of the estimate to record and announce (estimate.ts), after the status change if any. */
  estimateEvent?: EstimateEvent | null;
}
const NOTHING: Outcome = { update: null, change: null, announce: false, counted: false };
/** Either the outcome, or the checkpoints to insert first and the outcome given how many of them were new. */
type Step = { done: Outcome } | { insert: repo.NewCheckpoint[]; then: (added: number) => Outcome };
type Locked = { t: repo.TrackingRow; pushed: boolean };

const checkpointRow =
  (trackingId: string) =>
  (c: NormalizedCheckpoint): repo.NewCheckpoint => ({
    trackingId,
    status: c.status,
    location: c.location,
    message: c.message,
    time: new Date(c.time),
    fingerprint: fingerprint(c),
  });

/**
 * Decide what a carrier result does to a tracking, idempotently: checkpoints merge by fingerprint, and a status
 * changes only when the locked row's status differs. Pure: the one-result path (applyResult) and the batch path
 * (applyBatch) write what it decides. Null when there is nothing to do. Exported for its unit tests.
 */
export function planApply(
  ctx: AppContext,
  locked: Locked | undefined,
  r: TrackResult,
  baseMode: ScheduleMode,
  source: UpdateSource,
  now: Date,
): Step | null {
  const t = locked?.t;
  // Deleted, marked delivered or expired while the carrier was being asked: nothing to do.
  if (!locked || !t || t.nextCheckAt === null || isFinal(t.status)) return null;
  const done = (o: Partial<Outcome>): Step => ({ done: { ...NOTHING, ...o } });
  const expired = (lastData: Date | null) => now.getTime() - (lastData ?? t.createdAt).getTime() > expireAfterMs();
  // A number the carrier pushes is polled less often: the poll is the backstop (schedule.ts).
  const mode: ScheduleMode = {
    ...baseMode,
    pushed: source === 'push' || (locked.pushed && carriersOf(ctx).push(t.courier as CourierSlug) !== null),
  };
  const lastPushedAt = source === 'push' ? now : t.lastPushedAt;
  // A push that changed nothing still shows the carrier pushes this number (`pushed`, `lastHeardAt`): only that
  // time is written, nothing a user or a notification sees.
  const heardByPush: Outcome = { ...NOTHING, update: { lastPushedAt: now } };

  if (r.ok) {
    const storedNewest = storedCheckpointTime(t.lastCheckPoint);
    const responseNewest = r.checkpoints.reduce<number | null>((m, c) => Math.max(m ?? -Infinity, Date.parse(c.time)), null);
    // One pushed event older than what is stored (UPS sends one call per scan, and calls can cross): it joins the
    // history but moves no status.
    if (r.partial && storedNewest !== null && responseNewest !== null && responseNewest < storedNewest) {
      return {
        insert: r.checkpoints.map(checkpointRow(t.id)),
        then: (added) =>
          added > 0 ? { ...NOTHING, update: { lastPushedAt, lastCarrierDataAt: now, updatedAt: now }, announce: true } : NOTHING,
      };
    }
    // An older picture than the one stored (a carrier replica or cache behind the one read before, a late
    // pushed call, or a sandbox that lost its clock): it adds nothing and moves no status, so a parcel never goes
    // back a step and nobody is told "In Transit" twice. Only the next check is scheduled (a push changes nothing).
    if (storedNewest !== null && (responseNewest === null || responseNewest < storedNewest)) {
      if (source === 'push') return { done: heardByPush };
      if (expired(t.lastCarrierDataAt)) {
        return done({
          update: { status: 'Expired', nextCheckAt: null, lastCheckedAt: now, failures: 0, lastError: null, updatedAt: now },
          change: { to: 'Expired', checkpoint: null },
        });
      }
      const delay = nextCheckDelayMs(t.status as TrackingStatus, mode) ?? backoffMs(0, mode);
      return done({ update: { lastCheckedAt: now, failures: 0, lastError: null, nextCheckAt: new Date(now.getTime() + delay) } });
    }
    // Carriers list newest first, and events of the same second keep that order (a Canada Post delivery and
    // its signature scan share one). Inserted oldest first, ids grow with the carrier's order, so reading
    // "time desc, id desc" shows a same-second pair as the carrier did; events first seen on a later fetch
    // are newer and get higher ids too.
    return {
      insert: [...r.checkpoints].reverse().map(checkpointRow(t.id)),
      then: (added) => {
        const incoming: TrackingStatus = r.keepStatus ? (t.status as TrackingStatus) : r.status;
        // A pushed event already known (a carrier's retry, a crossed poll): nothing to do, nobody told twice.
        if (source === 'push' && added === 0 && incoming === t.status) return heardByPush;
        const lastCarrierDataAt = added > 0 ? now : t.lastCarrierDataAt;
        let status: TrackingStatus = incoming;
        if (added === 0 && status === t.status && expired(lastCarrierDataAt)) status = 'Expired';
        const newest = r.checkpoints[0] ? checkpointJson(r.checkpoints[0]) : null;
        const delay = nextCheckDelayMs(status, mode);
        const origin = r.origin ?? t.origin;
        const destination = r.destination ?? t.destination;
        // The carrier's service name; an answer without one (a pushed event) keeps the known one (decision 158).
        const service = r.service ?? t.service;
        // One pushed event says nothing of the estimate: it stays.
        const expected = status === 'Delivered' ? null : r.partial ? t.expected : parseExpected(r.expected);
        // The estimate shown: the carrier's, else predicted from the delivered history (decision 122).
        const est = planEstimate({
          stored: { estimatedDelivery: estimateView(t.estimatedDelivery), promisedBy: t.promisedBy, lateFor: t.lateFor },
          status,
          carrier: r.estimatedDelivery,
          partial: !!r.partial,
          predict: () => predictFor(ctx, t, r, now),
          historyLate: (e) => historyLateFor(ctx, t, r, e, now),
          now,
          asOf: (r as Stamped).asOf ?? now,
        });
        const estimateMoved =
          JSON.stringify(est.next.estimatedDelivery) !== JSON.stringify(estimateView(t.estimatedDelivery)) ||
          est.next.promisedBy?.getTime() !== t.promisedBy?.getTime() ||
          est.next.lateFor !== t.lateFor;
        const visible =
          added > 0 ||
          status !== t.status ||
          origin !== t.origin ||
          destination !== t.destination ||
          service !== t.service ||
          expected?.getTime() !== t.expected?.getTime() ||
          estimateMoved;
        const changed = status !== t.status;
        return {
          update: {
            status,
            origin,
            destination,
            service,
            expected,
            ...(estimateMoved
              ? { estimatedDelivery: est.next.estimatedDelivery, promisedBy: est.next.promisedBy, lateFor: est.next.lateFor }
              : {}),
            ...(newest ? { lastCheckPoint: newest } : {}),
            ...(source === 'poll' ? { lastCheckedAt: now } : { lastPushedAt }),
            lastCarrierDataAt,
            failures: 0,
            lastError: null,
            nextCheckAt: delay === null ? null : new Date(now.getTime() + delay),
            ...(visible ? { updatedAt: now } : {}),
          },
          change: changed ? { to: status, checkpoint: newest } : null,
          announce: (added > 0 || estimateMoved) && !changed,
          counted: added > 0 || changed,
          estimateEvent: est.event,
        };
      },
    };
  }

  if (r.error.kind === 'not-found') {
    // Normal for a few hours after a label is printed; only a long silence makes it Expired.
    if (expired(t.lastCarrierDataAt)) {
      return done({
        update: { status: 'Expired', nextCheckAt: null, lastCheckedAt: now, lastError: r.error.message, updatedAt: now },
        change: { to: 'Expired', checkpoint: null },
      });
    }
    const delay = nextCheckDelayMs(t.status as TrackingStatus, mode) ?? backoffMs(0, mode);
    return done({ update: { lastCheckedAt: now, lastError: r.error.message, nextCheckAt: new Date(now.getTime() + delay) } });
  }

  // Carrier down, throttled, credentials refused, unreadable reply: back off, keep the status.
  const failures = t.failures + 1;
  return done({
    update: {
      lastCheckedAt: now,
      failures,
      lastError: `${r.error.kind}: ${r.error.message}`.slice(0, 500),
      nextCheckAt: new Date(now.getTime() + backoffMs(failures, mode, r.error.retryAfterMs)),
    },
  });
}

/**
 * What the delivery history is asked about a tracking: its carrier, service and lane from the carrier's reading (the
 * stored ones where it says nothing), shipped at its first checkpoint (when it was added, before any).
 */
function parcelFacts(t: repo.TrackingRow, r: TrackSuccess) {
  const first = r.checkpoints.reduce<number>((m, c) => Math.min(m, Date.parse(c.time)), Infinity);
  return {
    carrier: t.courier,
    service: r.service ?? t.service,
    originPostal: postalOf(r.origin ?? t.origin),
    destinationPostal: postalOf(r.destination ?? t.destination),
    shippedAt: new Date(Number.isFinite(first) ? first : t.createdAt.getTime()).toISOString(),
  };
}

/** The predicted estimate of a tracking the carrier gives none for (decision 122); null without delivered history. */
function predictFor(ctx: AppContext, t: repo.TrackingRow, r: TrackSuccess, now: Date): EstimatedDelivery | null {
  const predictions = ctx.resources.deliveryPredictions;
  if (!predictions) return null;
  return predictions.predict(parcelFacts(t, r), now);
}

/** Our history's verdict on the carrier's estimate of a tracking (decision 151); null without enough history. */
function historyLateFor(
  ctx: AppContext,
  t: repo.TrackingRow,
  r: TrackSuccess,
  e: EstimatedDeliveryView,
  now: Date,
): { usualDays: number } | null {
  const predictions = ctx.resources.deliveryPredictions;
  if (!predictions) return null;
  return predictions.lateFromHistory({ ...parcelFacts(t, r), carrierEstimate: e.date }, now);
}

/** Metrics of one applied outcome. */
function observe(t: repo.TrackingRow, o: Outcome, source: UpdateSource, now: Date): void {
  if (o.counted) trackingUpdates.inc({ carrier: t.courier, source });
  const cp = o.change?.checkpoint;
  if (cp) scanToStatusSeconds.observe({ source }, Math.max(0, (now.getTime() - Date.parse(cp.time)) / 1000));
}

/**
 * Apply one carrier result to one tracking (a push, the refresh job, or a batch that failed as a whole), in its own
 * transaction. Returns whether the status changed.
 */
export async function applyResult(
  ctx: AppContext,
  trackingId: string,
  r: TrackResult,
  baseMode: ScheduleMode,
  source: UpdateSource = 'poll',
): Promise<boolean> {
  await ctx.resources.deliveryPredictions?.ready();
  return ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const locked = await repo.lockForApply(tx, trackingId, now);
    const step = planApply(ctx, locked, r, baseMode, source, now);
    if (!step || !locked) return false;
    const o = 'done' in step ? step.done : step.then(await repo.insertCheckpoints(tx, step.insert));
    const t = locked.t;
    const current = o.update ? await repo.updateTracking(tx, t.id, o.update) : t;
    if (o.announce)
      await publishLive(tx, {
        kind: 'tracking',
        accountId: t.userId,
        trackingId: t.id,
        tid: t.tid,
        status: (o.update?.status ?? t.status) as TrackingStatus,
        statusChanged: false,
      });
    if (o.change) await recordStatusChange(tx, ctx, t, o.change.to, o.change.checkpoint, { tracking: current });
    if (o.estimateEvent) await recordEstimateEvent(tx, ctx, t, (o.update?.status ?? t.status) as TrackingStatus, o.estimateEvent);
    observe(t, o, source, now);
    return o.change !== null;
  });
}

/**
 * Apply the polled results of many trackings in one transaction, set-based: one statement locks them, one inserts
 * every new checkpoint, one writes every row, one records every status change, their notifications are fanned out
 * together and one statement tells the open screens. The decisions are applyResult's (planApply). Throws if any
 * write fails, having written nothing: the caller then applies the results one by one, so one bad number never
 * holds back the others. Returns the trackings whose status changed.
 */
async function applyBatch(ctx: AppContext, items: Array<{ id: string; r: TrackResult }>, mode: ScheduleMode): Promise<Set<string>> {
  await ctx.resources.deliveryPredictions?.ready();
  return ctx.db.transaction(async (tx) => {
    const now = ctx.now();
    const locked = await repo.lockManyForApply(
      tx,
      items.map((i) => i.id),
      now,
    );
    const steps = items.flatMap((i) => {
      const l = locked.get(i.id);
      const step = planApply(ctx, l, i.r, mode, 'poll', now);
      return step && l ? [{ l, step }] : [];
    });
    const added = await repo.insertCheckpointsCounted(
      tx,
      steps.flatMap(({ step }) => ('insert' in step ? step.insert : [])),
    );
    const applied = steps.map(({ l, step }) => ({ t: l.t, o: 'done' in step ? step.done : step.then(added.get(l.t.id) ?? 0) }));

    await repo.updateApplied(
      tx,
      applied
        .filter(({ o }) => o.update)
        .map(({ t, o }) => ({ ...repo.pickApplied(t), ...(o.update as Partial<repo.AppliedColumns>), id: t.id })),
    );
    const changes = applied
      .filter(({ o }) => o.change)
      .map(({ t, o }) => ({ t, to: o.change!.to, checkpoint: o.change!.checkpoint, eventId: randomUUID() }));
    // Estimate news after the status changes, each its own event (from the status the tracking now has).
    const estimateNews = applied
      .filter(({ o }) => o.estimateEvent)
      .map(({ t, o }) => ({ t, status: (o.update?.status ?? t.status) as string, kind: o.estimateEvent!, eventId: randomUUID() }));
    await repo.insertEvents(tx, [
      ...changes.map((c) => ({
        id: c.eventId,
        trackingId: c.t.id,
        userId: c.t.userId,
        fromStatus: c.t.status,
        toStatus: c.to,
        checkpoint: c.checkpoint,
        createdAt: now,
      })),
      ...estimateNews.map((e) => ({
        id: e.eventId,
        trackingId: e.t.id,
        userId: e.t.userId,
        fromStatus: e.status,
        toStatus: e.kind,
        checkpoint: null,
        createdAt: now,
      })),
    ]);
    await fanOutStatusEvents(tx, ctx, [...changes.map((c) => c.eventId), ...estimateNews.map((e) => e.eventId)]);
    const live: LiveEvent[] = applied.flatMap(({ t, o }): LiveEvent[] =>
      o.change || o.announce
        ? [
            {
              kind: 'tracking',
              accountId: t.userId,
              trackingId: t.id,
              tid: t.tid,
              status: o.change?.to ?? ((o.update?.status ?? t.status) as TrackingStatus),
              statusChanged: o.change !== null,
            },
          ]
        : [],
    );
    await publishLiveMany(tx, live);
    for (const { t, o } of applied) observe(t, o, 'poll', now);
    return new Set(changes.map((c) => c.t.id));
  });
}

/** The time of the stored newest checkpoint (lastCheckPoint JSON), or null when there is none. */
function storedCheckpointTime(stored: unknown): number | null {
  const time = (stored as { time?: unknown } | null)?.time;
  const ms = typeof time === 'string' ? Date.parse(time) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Claim-and-refresh loops a round runs side by side: on PostgreSQL one loop asks the carriers while the other writes
 * (claims are disjoint, so they never take the same tracking); on PGlite one, so the embedded database stays free
 * for users' requests between batches.
 */
const pipelines = (ctx: AppContext) => (ctx.database.kind === 'pglite' ? 1 : 2);

/** One scheduler round: claim and refresh due trackings until none are due (or a claim ran short). */
export async function runDueRefreshes(ctx: AppContext, batch = CLAIM_BATCH): Promise<RefreshStats> {
  const total: RefreshStats = { fetched: 0, changed: 0, failed: 0 };
  const n = pipelines(ctx);
  const each = Math.max(1, Math.ceil(batch / n));
  const loop = async () => {
    for (;;) {
      const now = ctx.now();
      const leaseUntil = new Date(now.getTime() + LEASE_MS);
      const due = await repo.claimDue(ctx.db, now, leaseUntil, each);
      if (due.length === 0) break;
      const s = await refreshTrackings(ctx, due, leaseUntil);
      total.fetched += s.fetched;
      total.changed += s.changed;
      total.failed += s.failed;
      if (due.length < each) break;
    }
  };
  await Promise.all(Array.from({ length: n }, loop));
  return total;
}

/**
 * When a tracking just added is due: before any other (the epoch), so the scheduler's claims, oldest due first,
 * take it ahead of a backlog of routine refreshes. A user waits for a first status; nobody waits for a re-check.
 */
export const FIRST_IN_LINE = new Date(0);

/** The bus message (topic `jobs`) that tells the workers' scheduler loops a tracking is due now. */
const WAKE = { queue: 'tracking-refresh-scheduler' } as const;

/** The `pg_notify(...)` call that wakes the scheduler loops, for the statement that makes a tracking due (sent at its commit). */
export const refreshWakeSql = () => notifySql('jobs', WAKE);
/** The wake as one of several messages sent in one notification (bus.busMessages). */
export const refreshWake = { topic: 'jobs', data: WAKE } as const;

/**
 * The worker role's scheduler loop (the refresh job's handler is registered with every other job by the
 * job registry). The loop ticks faster when a carrier is in sandbox mode so a sandbox parcel visibly moves,
 * and runs a round at once when an add wakes it (a wake during a round makes one more round after it).
 */
export async function startRefreshScheduler(ctx: AppContext, opts: { tickMs?: number } = {}): Promise<void> {
  if (ctx.resources.refreshScheduler) return;

  const anySandbox = (['ups', 'usps', 'fedex', 'canadapost'] as const).some((c) => carriersOf(ctx).isSandbox(c));
  const tickMs = opts.tickMs ?? (anySandbox ? Math.max(50, Math.min(1000, sandboxPollIntervalMs(sandboxPaceOf(ctx)) / 4)) : 1000);
  const loop = startTickLoop(ctx.log, 'tracking-refresh-scheduler', tickMs, () => runDueRefreshes(ctx));
  const unsubscribe = ctx.bus.subscribe('jobs', (m) => {
    if (m.data.queue === WAKE.queue) loop.wake();
  });
  ctx.resources.refreshScheduler = {
    async stop() {
      unsubscribe();
      await loop.stop();
    },
  };
}

export async function stopRefreshScheduler(ctx: AppContext): Promise<void> {
  const w = ctx.resources.refreshScheduler;
  if (!w) return;
  delete ctx.resources.refreshScheduler;
  await w.stop();
}
