// Carrier push on the platform's side (docs/carriers.md "Push"). Two halves:
//  - receivePush: a carrier's call, authenticated by the carrier wing (readPush), applied through the same
//    applyResult as a poll, so checkpoints merge by fingerprint, a status event is written once under the row
//    lock, an older event never moves a status back, and notifications are queued in the same transaction;
//  - the subscription loop (worker role): subscribes the numbers of live trackings in each carrier's batch size,
//    renews them before they lapse, and unsubscribes the ones no live tracking needs any more.
// Polling goes on at a slower cadence for pushed numbers (schedule.ts PUSH_BACKSTOP_FACTOR) and catches what push lost.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import {
  carriersOf,
  isPushCourier,
  PUSH_COURIERS,
  PUSH_TTL_MS,
  readPush,
  sandboxPaceOf,
  type PushCourier,
} from '../carriers/carriers.service.ts';
import { carrierPushEvents } from '../../lib/metrics.ts';
import { startTickLoop } from '../../lib/tick-loop.ts';
import { applyResult, modeOf, type Stamped } from './refresh.ts';
import * as pushRepo from './push.repository.ts';

/** Outside /v1: these answer carriers, not the original API's clients (real HTTP statuses, no envelope). */
export const PUSH_PATH_PREFIX = '/carriers';
export const listenerUrl = (base: string, courier: PushCourier) => `${base.replace(/\/+$/, '')}${PUSH_PATH_PREFIX}/${courier}/events`;

/** Identical calls remembered per process to spot replays (a replay reaching another process is still a no-op). */
const REPLAY_WINDOW_MS = 10 * 60_000;
const REPLAY_MEMORY = 20_000;
const seen = new Map<string, number>();

const digestOf = (courier: string, raw: string) => createHash('sha256').update(courier).update('\u0000').update(raw).digest('base64url');

function seenRecently(key: string, nowMs: number): boolean {
  const at = seen.get(key);
  return at !== undefined && nowMs - at < REPLAY_WINDOW_MS;
}

function remember(key: string, nowMs: number): void {
  seen.delete(key);
  seen.set(key, nowMs);
  if (seen.size > REPLAY_MEMORY) seen.delete(seen.keys().next().value!);
}

export type PushAnswer = { status: number; body: { ok: boolean; applied?: number; ignored?: string; error?: string } };

/** Handle one pushed call. Never throws for a carrier's input; a database failure is the caller's 500 (the carrier retries). */
export async function receivePush(
  ctx: AppContext,
  courier: string,
  headers: Record<string, string | string[] | undefined>,
  raw: string,
): Promise<PushAnswer> {
  const push = isPushCourier(courier) ? carriersOf(ctx).push(courier) : null;
  if (!push || !isPushCourier(courier)) {
    carrierPushEvents.inc({ carrier: courier.slice(0, 16), outcome: 'not_configured' });
    return { status: 404, body: { ok: false, error: 'This carrier does not push to this deployment.' } };
  }
  const now = ctx.now();
  const reading = readPush(courier, headers, raw, push.secret, now.getTime());
  if (!reading.ok) {
    carrierPushEvents.inc({ carrier: courier, outcome: reading.reason });
    ctx.log.warn({ carrier: courier, reason: reading.reason }, `carrier push refused: ${reading.message}`);
    return { status: reading.status, body: { ok: false, error: reading.message } };
  }
  // A byte-identical call again: answered (so the carrier stops) and not applied. A carrier's own retry of a
  // call we did take is the same bytes, and would be a no-op anyway.
  const key = digestOf(courier, raw);
  if (seenRecently(key, now.getTime())) {
    carrierPushEvents.inc({ carrier: courier, outcome: 'replay' });
    ctx.log.warn({ carrier: courier }, 'carrier push refused: the same call was received before (replay)');
    return { status: 200, body: { ok: true, ignored: 'replay' } };
  }
  const mode = modeOf(ctx, courier);
  let applied = 0;
  let matched = 0;
  for (const r of reading.results) {
    const ids = await pushRepo.liveTrackingIds(ctx.db, courier, r.tid);
    matched += ids.length;
    // As fresh as its arrival: lateness is judged at that time, however late it is applied (estimate.ts).
    const stamped: Stamped = r.ok ? { ...r, asOf: now } : r;
    for (const id of ids) if (await applyResult(ctx, id, stamped, mode, 'push')) applied++;
  }
  // Remembered only once applied: a call that failed here (the carrier sees a 500) is applied when the carrier
  // sends it again, not taken for a replay.
  remember(key, now.getTime());
  carrierPushEvents.inc({ carrier: courier, outcome: matched === 0 ? 'unknown_number' : applied > 0 ? 'applied' : 'no_change' });
  return { status: 200, body: { ok: true, applied } };
}

// ---------------------------------------------------------------------------------------------------------------
// Subscriptions

/** Sandbox subscriptions live in a process's memory: renewed every minute, so a restarted sandbox is pushing again soon. */
const SANDBOX_TTL_MS = 2 * 60_000;
const ROUND_LIMIT = 2000;
/** A worker's claim on the numbers it is subscribing; another worker takes them over once it lapses. */
const CLAIM_MS = 2 * 60_000;
/** A number a carrier refused is offered again after this long (it may become known to the carrier). */
const REFUSED_RETRY_MS = 6 * 3_600_000;

function ttlMs(ctx: AppContext, courier: PushCourier): number {
  return carriersOf(ctx).isSandbox(courier) ? SANDBOX_TTL_MS : PUSH_TTL_MS[courier];
}

/**
 * Our own receiver must answer before numbers are subscribed to it: a wrong PUBLIC_URL would otherwise move
 * trackings to the slow backstop cadence while every push is lost. The answer is an HMAC of a nonce with the
 * deployment's session secret, so another service on that address does not pass.
 */
export function pingProof(ctx: AppContext, nonce: string): string {
  return createHmac('sha256', ctx.config.sessionSecret).update(`push-ping:${nonce}`).digest('base64url');
}

async function listenerAnswers(ctx: AppContext, base: string): Promise<boolean> {
  const nonce = randomBytes(12).toString('base64url');
  try {
    const res = await fetch(`${base.replace(/\/+$/, '')}${PUSH_PATH_PREFIX}/ping?nonce=${nonce}`, { signal: AbortSignal.timeout(3000) });
    const body = (await res.json().catch(() => null)) as { proof?: unknown } | null;
    return res.ok && body?.proof === pingProof(ctx, nonce);
  } catch {
    return false;
  }
}

export type SubscriptionRoundStats = { subscribed: number; refused: number; unsubscribed: number; failed: number };

/** One pass over every pushing carrier. */
export async function runSubscriptionRound(ctx: AppContext, base: string): Promise<SubscriptionRoundStats> {
  const stats: SubscriptionRoundStats = { subscribed: 0, refused: 0, unsubscribed: 0, failed: 0 };
  const client = carriersOf(ctx);
  for (const courier of PUSH_COURIERS) {
    const p = client.push(courier);
    if (!p) continue;
    const url = listenerUrl(base, courier);
    const now = ctx.now();
    try {
      const tids = await pushRepo.claimNumbersToSubscribe(ctx.db, courier, now, new Date(now.getTime() + CLAIM_MS), ROUND_LIMIT);
      const eligible = tids.filter((t) => p.push.eligible(t));
      const notEligible = tids.filter((t) => !p.push.eligible(t));
      const refusedRow = (tid: string) => ({
        tid,
        state: 'refused' as const,
        subscriptionId: null,
        expiresAt: now,
        renewAt: new Date(now.getTime() + REFUSED_RETRY_MS),
      });
      await pushRepo.saveSubscriptions(ctx.db, courier, notEligible.map(refusedRow), now);
      stats.refused += notEligible.length;
      const ttl = ttlMs(ctx, courier);
      for (let i = 0; i < eligible.length; i += p.push.maxBatch) {
        const batch = eligible.slice(i, i + p.push.maxBatch);
        const out = await p.push.subscribe(batch, url, p.secret);
        const at = ctx.now();
        await pushRepo.saveSubscriptions(
          ctx.db,
          courier,
          [
            ...out.subscribed.map((s) => ({
              tid: s.tid,
              state: 'active' as const,
              subscriptionId: s.subscriptionId,
              expiresAt: new Date(at.getTime() + ttl),
              renewAt: new Date(at.getTime() + ttl / 2),
            })),
            ...out.refused.map(refusedRow),
          ],
          at,
        );
        stats.subscribed += out.subscribed.length;
        stats.refused += out.refused.length;
      }
      const ended = await pushRepo.endedSubscriptions(ctx.db, courier, ROUND_LIMIT);
      const active = ended.filter((e) => e.state === 'active');
      for (let i = 0; i < active.length; i += p.push.maxBatch) await p.push.unsubscribe(active.slice(i, i + p.push.maxBatch), url);
      await pushRepo.deleteSubscriptions(
        ctx.db,
        courier,
        ended.map((e) => e.tid),
      );
      stats.unsubscribed += active.length;
    } catch (err) {
      // The carrier down or refusing our token: polling carries on; the next round tries again.
      stats.failed++;
      ctx.log.warn({ err, carrier: courier }, 'carrier push subscription round failed');
    }
  }
  return stats;
}

/**
 * The worker role's subscription loop. `base` is where carriers reach this deployment (CARRIER_PUSH_URL or
 * PUBLIC_URL). Nothing is subscribed while that address does not answer as this deployment.
 */
export function startPushSubscriptions(ctx: AppContext, opts: { base: string; tickMs?: number }): void {
  if (ctx.resources.pushSubscriptions) return;
  if (!PUSH_COURIERS.some((c) => carriersOf(ctx).push(c))) return;
  const anySandbox = PUSH_COURIERS.some((c) => carriersOf(ctx).push(c) && carriersOf(ctx).isSandbox(c));
  const tickMs = opts.tickMs ?? (anySandbox ? Math.max(100, Math.min(1000, Math.round(4000 * sandboxPaceOf(ctx)))) : 30_000);
  // Checked every 5 minutes while it answers, every 30 s while it does not; transitions are logged once.
  let checkedUntil = 0;
  let reachable: boolean | null = null;
  const round = async () => {
    const t = Date.now();
    if (t >= checkedUntil) {
      const now = await listenerAnswers(ctx, opts.base);
      if (now !== reachable) {
        if (now) ctx.log.info({ listener: opts.base }, 'carrier push is on: the public address answers');
        else
          ctx.log.warn(
            { listener: opts.base },
            'carrier push is off: this deployment does not answer at its public address (set PUBLIC_URL or CARRIER_PUSH_URL); trackings stay polled',
          );
      }
      reachable = now;
      checkedUntil = t + (now ? 5 * 60_000 : 30_000);
    }
    if (reachable) await runSubscriptionRound(ctx, opts.base);
  };
  ctx.resources.pushSubscriptions = startTickLoop(ctx.log, 'carrier-push-subscriptions', tickMs, round);
}
