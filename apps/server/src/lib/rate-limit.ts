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

/** Keys kept before a sweep drops the ones that no longer limit anything (bounded memory under a flood). */
export const SWEEP_ABOVE_KEYS = 50_000;

/**
 * What both limiters share: a count per key, given back by `release`, forgotten by `reset`, and a sweep of
 * the keys that no longer limit anything once there are more than SWEEP_ABOVE_KEYS of them. A subclass says
 * how attempts are allowed (`take`) and when a key's state has run out (`expired`).
 */
abstract class KeyedLimiter<S extends { count: number }> implements AttemptLimiter {
  protected readonly state = new Map<string, S>();
  constructor(protected readonly now: () => number) {}

  abstract take(key: string, message: string): void;
  /** True when `s` no longer limits its key at time `t`, so forgetting it changes nothing. */
  protected abstract expired(s: S, t: number): boolean;

  release(key: string): void {
    const s = this.state.get(key);
    if (s && s.count > 0) s.count--;
  }

  reset(key: string): void {
    this.state.delete(key);
  }

  /** Keys currently remembered (tests and diagnostics). */
  get size(): number {
    return this.state.size;
  }

  /** Call after adding a key: past the bound, drop every expired key. */
  protected sweepIfLarge(t: number): void {
    if (this.state.size <= SWEEP_ABOVE_KEYS) return;
    for (const [k, v] of this.state) if (this.expired(v, t)) this.state.delete(k);
  }
}

/** A fixed window: at most `max` attempts per `windowMs`. */
export class WindowLimiter extends KeyedLimiter<{ count: number; resetAt: number }> {
  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    now: () => number = Date.now,
  ) {
    super(now);
  }

  /** Throws a 429 AppError once `key` has used up its allowance in the window. */
  check(key: string, message: string): void {
    const t = this.now();
    const h = this.state.get(key);
    if (h && h.resetAt > t && h.count >= this.max) throw tooMany(message, (h.resetAt - t) / 1000);
  }

  hit(key: string): void {
    const t = this.now();
    const h = this.state.get(key);
    if (!h || h.resetAt <= t) this.state.set(key, { count: 1, resetAt: t + this.windowMs });
    else h.count++;
    this.sweepIfLarge(t);
  }

  take(key: string, message: string): void {
    this.check(key, message);
    this.hit(key);
  }

  protected expired(h: { resetAt: number }, t: number): boolean {
    return h.resetAt <= t;
  }
}

/**
 * Exponential backoff: the first `free` attempts are immediate; after that each attempt must wait
 * `baseMs * 2^(n - free)` (capped at `maxDelayMs`) after the previous one. A key with no attempt for
 * `forgetMs` starts over.
 */
export class BackoffLimiter extends KeyedLimiter<{ count: number; last: number }> {
  constructor(
    private readonly opts: { free: number; baseMs: number; maxDelayMs: number; forgetMs: number },
    now: () => number = Date.now,
  ) {
    super(now);
  }

  /** How long `key` must still wait before its next attempt, in ms (0 = may try now). */
  waitMs(key: string): number {
    const t = this.now();
    const s = this.state.get(key);
    if (!s || this.expired(s, t) || s.count < this.opts.free) return 0;
    const delay = Math.min(this.opts.maxDelayMs, this.opts.baseMs * 2 ** (s.count - this.opts.free));
    return Math.max(0, s.last + delay - t);
  }

  take(key: string, message: string): void {
    const wait = this.waitMs(key);
    if (wait > 0) throw tooMany(message, wait / 1000);
    const t = this.now();
    const s = this.state.get(key);
    if (!s || this.expired(s, t)) this.state.set(key, { count: 1, last: t });
    else {
      s.count++;
      s.last = t;
    }
    this.sweepIfLarge(t);
  }

  protected expired(s: { last: number }, t: number): boolean {
    return t - s.last >= this.opts.forgetMs;
  }
}
