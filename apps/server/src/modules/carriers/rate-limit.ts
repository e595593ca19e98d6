// Per-carrier request limiter: a sliding-window log (at most `limit` grants in any `intervalMs` window).
// A sliding window rather than a token bucket because Canada Post counts a rolling 60-second window per key
// (carrier notes §4.5) and FedEx blocks for "the rest of the window" once 1,400/10 s is exceeded (carrier notes §3.6):
// a bucket refilled continuously could exceed either. A carrier 429 with Retry-After pauses the limiter.
import type { Queryable } from '../../db/client.ts';
import { CarrierError } from './http.ts';
import { ensureSlots, pause, tryGrant } from './rate-limit.repository.ts';

export type RateLimitSetting = { limit: number; intervalMs: number; maxWaitMs?: number } | false;

export interface RateLimiter {
  /** Resolves when a request may be sent; rejects with a rate-limited CarrierError when the wait would exceed maxWaitMs. */
  acquire(): Promise<void>;
  /** A carrier told us to back off (429 Retry-After). */
  pauseFor(ms: number): void;
}

const DEFAULT_MAX_WAIT_MS = 30_000;

export function createRateLimiter(setting: RateLimitSetting, now: () => number = Date.now): RateLimiter {
  if (setting === false) {
    let pausedUntil = 0;
    return {
      async acquire() {
        const wait = pausedUntil - now();
        if (wait > 0) throw new CarrierError('rate-limited', 'The carrier asked us to slow down.', wait);
      },
      pauseFor(ms) {
        pausedUntil = Math.max(pausedUntil, now() + ms);
      },
    };
  }
  const limit = Math.max(1, Math.floor(setting.limit));
  const intervalMs = Math.max(1, setting.intervalMs);
  const maxWaitMs = setting.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  // Ring of grant times; grants[head] is the oldest of the last `limit` grants.
  const grants: number[] = [];
  let head = 0;
  let pausedUntil = 0;
  // Callers queue in order so a burst does not starve early callers.
  let tail: Promise<void> = Promise.resolve();

  function earliestSlot(t: number): number {
    let slot = Math.max(t, pausedUntil);
    if (grants.length >= limit) slot = Math.max(slot, grants[head]! + intervalMs);
    return slot;
  }

  function record(t: number): void {
    if (grants.length < limit) grants.push(t);
    else {
      grants[head] = t;
      head = (head + 1) % limit;
    }
  }

  return {
    acquire() {
      const run = tail.then(async () => {
        for (;;) {
          const t = now();
          const slot = earliestSlot(t);
          const wait = slot - t;
          if (wait <= 0) {
            record(t);
            return;
          }
          if (wait > maxWaitMs) {
            throw new CarrierError('rate-limited', 'Carrier request quota reached; try again later.', wait);
          }
          await new Promise<void>((r) => setTimeout(r, wait).unref?.());
        }
      });
      // A rejected acquire must not poison the queue for later callers.
      tail = run.catch(() => {});
      return run;
    },
    pauseFor(ms) {
      pausedUntil = Math.max(pausedUntil, now() + ms);
    },
  };
}

/**
 * The same limiter shared by every process through the database: one budget per key (a carrier and its
 * credential), so two workers cannot each spend a carrier's whole allowance. Each grant is one statement; a
 * caller that finds no free grant sleeps until the oldest one leaves the window (at most a second at a time,
 * so a pause lifted or a slot freed elsewhere is seen soon) and gives up past `maxWaitMs`, as the in-process
 * limiter does.
 */
export function createSharedRateLimiter(
  db: Queryable,
  key: string,
  setting: RateLimitSetting,
  hooks: { onWait?(ms: number): void } = {},
): RateLimiter {
  if (setting === false) return createRateLimiter(false);
  const limit = Math.max(1, Math.floor(setting.limit));
  const intervalMs = Math.max(1, setting.intervalMs);
  const maxWaitMs = setting.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  let ready: Promise<void> | undefined;
  // This process's own view of a pause, so it stops at once even before the shared row is written.
  let pausedUntil = 0;
  return {
    async acquire() {
      ready ??= ensureSlots(db, key, limit).catch((err) => {
        ready = undefined;
        throw err;
      });
      await ready;
      const started = Date.now();
      for (;;) {
        const local = pausedUntil - Date.now();
        const wait = local > 0 ? local : await tryGrant(db, key, intervalMs);
        if (wait === 0) return;
        const waited = Date.now() - started;
        if (waited + wait > maxWaitMs) throw new CarrierError('rate-limited', 'Carrier request quota reached; try again later.', wait);
        hooks.onWait?.(Math.min(wait, 1000));
        await new Promise<void>((r) => setTimeout(r, Math.min(wait, 1000)).unref?.());
      }
    },
    pauseFor(ms) {
      pausedUntil = Math.max(pausedUntil, Date.now() + ms);
      void pause(db, key, ms).catch(() => {});
    },
  };
}
