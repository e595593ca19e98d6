import { tooMany } from './errors.ts';

/**
 * A fixed-window counter keyed by string, for limits that depend on the request body (login per
 * account). Route-level limits by IP use @fastify/rate-limit. In memory: per process, which is what a
 * brute-force guard needs; a multi-process deployment multiplies the allowance by the process count.
 */
export class WindowLimiter {
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

  reset(key: string): void {
    this.hits.delete(key);
  }

  private sweep(t: number) {
    for (const [k, v] of this.hits) if (v.resetAt <= t) this.hits.delete(k);
  }
}
