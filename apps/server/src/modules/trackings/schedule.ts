import type { TrackingStatus } from '@shiptrail/contract';
import { sandboxPollIntervalMs } from '../carriers/carriers.service.ts';

// When to ask the carrier again (docs/trackings.md "Refresh schedule"). Real carriers: parcels near the
// door change fast, labels that were just printed change slowly, and quotas are small (USPS 60/hour).
// Sandbox carriers: a whole journey takes ~4 minutes × CARRIER_SANDBOX_PACE, so polls follow the sandbox's
// own step spacing (sandboxPollIntervalMs: half the shortest gap between two steps) and every step is seen.

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const REAL_INTERVAL: Record<TrackingStatus, number | null> = {
  OutForDelivery: 30 * MIN,
  FailAttempt: 1 * HOUR,
  InTransit: 2 * HOUR,
  Exception: 2 * HOUR,
  InfoReceived: 4 * HOUR,
  Pending: 6 * HOUR,
  Delivered: null,
  Expired: null,
};
/** Multiples of the sandbox poll interval: the slow states are polled less, but not so slowly that a step is missed by much. */
const SANDBOX_FACTOR: Record<TrackingStatus, number | null> = {
  OutForDelivery: 1,
  FailAttempt: 1,
  InTransit: 1,
  Exception: 1.5,
  InfoReceived: 1,
  Pending: 2,
  Delivered: null,
  Expired: null,
};

/**
 * No carrier data for this long: the tracking becomes Expired (final). The same for sandbox carriers whatever
 * their pace: the pace speeds up journeys, not the user's patience, and an Exception or a number never found
 * must stay in front of the user (and in "Need attention") until something really changes.
 */
export const EXPIRE_AFTER_MS = 30 * DAY;

export interface ScheduleMode {
  sandbox: boolean;
  pace: number;
  /** The carrier pushes this number's events (docs/carriers.md "Push"): polling is only the backstop. */
  pushed?: boolean;
  /** A real carrier's first retry after a failure, doubled per failure (CARRIER_RETRY_SECONDS; a minute by default). */
  retryBaseMs?: number;
}

/**
 * A pushed tracking is polled this many times less often: push brings each scan within seconds, and the poll is
 * there for what push lost (UPS does not retry; a listener can be down). Real carriers: an In Transit parcel is
 * then polled every 8 hours instead of 2; sandbox ones every 4 steps' gaps.
 */
export const PUSH_BACKSTOP_FACTOR = 4;

/** ±fraction, so trackings added together spread out instead of hitting the carrier in one burst. */
export function jitter(ms: number, fraction: number, rand: () => number = Math.random): number {
  return Math.round(ms * (1 - fraction + 2 * fraction * rand()));
}

/** Delay until the next check for a tracking in `status`; null = final, no more checks. */
export function nextCheckDelayMs(status: TrackingStatus, mode: ScheduleMode, rand: () => number = Math.random): number | null {
  const slower = mode.pushed ? PUSH_BACKSTOP_FACTOR : 1;
  if (mode.sandbox) {
    const f = SANDBOX_FACTOR[status];
    return f === null ? null : jitter(sandboxPollIntervalMs(mode.pace) * f * slower, 0.1, rand);
  }
  const base = REAL_INTERVAL[status];
  return base === null ? null : jitter(base * slower, 0.15, rand);
}

/**
 * After a failed fetch (carrier down, auth, throttled): exponential backoff, honouring Retry-After. Real carriers
 * start from `retryBaseMs` (a minute) and stop doubling at six hours.
 */
export function backoffMs(failures: number, mode: ScheduleMode, retryAfterMs?: number, rand: () => number = Math.random): number {
  const base = mode.sandbox ? sandboxPollIntervalMs(mode.pace) : (mode.retryBaseMs ?? MIN);
  const cap = mode.sandbox ? base * 16 : 6 * HOUR;
  const ms = Math.min(cap, base * 2 ** Math.min(failures, 20));
  return Math.max(retryAfterMs ?? 0, jitter(ms, 0.2, rand));
}

export function expireAfterMs(): number {
  return EXPIRE_AFTER_MS;
}

export const isFinal = (status: string) => status === 'Delivered' || status === 'Expired';
