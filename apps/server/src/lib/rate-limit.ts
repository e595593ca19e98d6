import { tooMany } from './errors.ts';

/**
 * Counters keyed by string, for limits that depend on the request body or the signed-in account (login
 * per account, imports per account). Route-level limits by IP use @fastify/rate-limit. In memory: per
 * process, which is what a brute-force guard needs; a multi-process deployment multiplies the allowance
 * by the process count. Callers see only `take` / `release` / `reset`, so a shared store (a PostgreSQL
 * table) can replace the Map later without touching them.
 */
export interface AttemptLimiter {
  /**
   * Reserve one attempt for `key` before doing the costly or guessable work; throws a 429 AppError when
   * none is left. Check and count are one synchronous step, so concurrent requests cannot all pass.
   */
  take(key: string, message: string): void;
  /** Give back one attempt reserved with `take` (the work it guarded turned out not to count). */
  release(key: string): void;
  /** Forget `key` (a successful login clears its failures). */
  reset(key: string): void;
}

/** A fixed window: at most `max` attempts per `windowMs`. */
export class WindowLimiter implements AttemptLimiter {
  private hits = new Map<string, { count: number; resetAt: number }>();
  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws a 429 AppError once `key` has used up its allowance in the window. */
  check(key: string, message: string): void {
    const t = this.now();
    const h = this.hits.get(key);
    if (h && h.resetAt > t && h.count >= this.max) throw tooMany(message, (h.resetAt - t) / 1000);
  }

  hit(key: string): void {
    const t = this.now();
    const h = this.hits.get(key);
    if (!h || h.resetAt <= t) this.hits.set(key, { count: 1, resetAt: t + this.windowMs });
    else h.count++;
    if (this.hits.size > 50_000) this.sweep(t);
  }

  take(key: string, message: string): void {
    this.check(key, message);
    this.hit(key);
  }

  release(key: string): void {
    const h = this.hits.get(key);
    if (h && h.count > 0) h.count--;
  }

  reset(key: string): void {
    this.hits.delete(key);
  }

  private sweep(t: number) {
    for (const [k, v] of this.hits) if (v.resetAt <= t) this.hits.delete(k);
  }
}

/**
 * Exponential backoff: the first `free` attempts are immediate; after that each attempt must wait
 * `baseMs * 2^(n - free)` (capped at `maxDelayMs`) after the previous one. A key with no attempt for
 * `forgetMs` starts over.
 */
export class BackoffLimiter implements AttemptLimiter {
  private state = new Map<string, { count: number; last: number }>();
  constructor(
    private readonly opts: { free: number; baseMs: number; maxDelayMs: number; forgetMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  /** How long `key` must still wait before its next attempt, in ms (0 = may try now). */
  waitMs(key: string): number {
    const t = this.now();
    const s = this.state.get(key);
    if (!s || t - s.last >= this.opts.forgetMs || s.count < this.opts.free) return 0;
    const delay = Math.min(this.opts.maxDelayMs, this.opts.baseMs * 2 ** (s.count - this.opts.free));
    return Math.max(0, s.last + delay - t);
  }

  take(key: string, message: string): void {
    const wait = this.waitMs(key);
    if (wait > 0) throw tooMany(message, wait / 1000);
    const t = this.now();
    const s = this.state.get(key);
    if (!s || t - s.last >= this.opts.forgetMs) this.state.set(key, { count: 1, last: t });
    else {
      s.count++;
      s.last = t;
    }
    if (this.state.size > 50_000) this.sweep(t);
  }

  release(key: string): void {
    const s = this.state.get(key);
    if (s && s.count > 0) s.count--;
  }

  reset(key: string): void {
    this.state.delete(key);
  }

  private sweep(t: number) {
    for (const [k, v] of this.state) if (t - v.last >= this.opts.forgetMs) this.state.delete(k);
  }
}
