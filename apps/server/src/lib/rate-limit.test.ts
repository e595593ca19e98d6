import { describe, expect, it } from 'vitest';
import { AppError } from './errors.ts';
import { BackoffLimiter, SWEEP_ABOVE_KEYS, WindowLimiter } from './rate-limit.ts';

function refused(fn: () => void): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a 429');
}

describe('WindowLimiter', () => {
  it('allows max attempts per window, says how long to wait, and starts over after the window', () => {
    let t = 1_000_000;
    const l = new WindowLimiter(2, 60_000, () => t);
    l.take('a', 'slow down');
    l.take('a', 'slow down');
    const err = refused(() => l.take('a', 'slow down'));
    expect(err.httpStatus).toBe(429);
    expect(err.message).toBe('slow down');
    expect(err.headers['retry-after']).toBe('60');
    l.take('b', 'slow down'); // another key has its own allowance
    t += 60_000;
    l.take('a', 'slow down');
  });

  it('release gives one attempt back (never below zero); reset forgets the key', () => {
    const l = new WindowLimiter(1, 60_000, () => 0);
    l.release('a'); // nothing to give back: no credit is created
    l.take('a', 'no');
    refused(() => l.take('a', 'no'));
    l.release('a');
    l.take('a', 'no');
    refused(() => l.take('a', 'no'));
    l.reset('a');
    l.take('a', 'no');
  });

  it('past the key bound, a sweep drops the keys whose window is over and keeps the others', () => {
    let t = 0;
    const l = new WindowLimiter(1, 1000, () => t);
    for (let i = 0; i < SWEEP_ABOVE_KEYS; i++) l.hit(`old${i}`);
    t = 500;
    l.hit('live');
    expect(l.size).toBe(SWEEP_ABOVE_KEYS + 1); // nothing had expired yet
    t = 1000;
    l.hit('new');
    expect(l.size).toBe(2);
    refused(() => l.take('live', 'no')); // still limited within its window
  });
});

describe('BackoffLimiter', () => {
  const opts = { free: 2, baseMs: 1000, maxDelayMs: 4000, forgetMs: 60_000 };

  it('the first attempts are free, then each waits twice as long, capped', () => {
    let t = 0;
    const l = new BackoffLimiter(opts, () => t);
    l.take('k', 'wait');
    l.take('k', 'wait');
    expect(l.waitMs('k')).toBe(1000);
    expect(refused(() => l.take('k', 'wait')).headers['retry-after']).toBe('1');
    t += 1000;
    l.take('k', 'wait');
    expect(l.waitMs('k')).toBe(2000);
    t += 2000;
    l.take('k', 'wait');
    t += 4000;
    l.take('k', 'wait');
    expect(l.waitMs('k')).toBe(4000); // 8 s capped at maxDelayMs
    t += 60_000; // quiet for forgetMs: starts over
    expect(l.waitMs('k')).toBe(0);
    l.take('k', 'wait');
    l.take('k', 'wait');
  });

  it('release gives one attempt back; reset forgets the key', () => {
    const l = new BackoffLimiter(opts, () => 0);
    l.take('k', 'wait');
    l.take('k', 'wait');
    l.release('k');
    l.take('k', 'wait');
    refused(() => l.take('k', 'wait'));
    l.reset('k');
    expect(l.waitMs('k')).toBe(0);
  });

  it('past the key bound, a sweep drops the keys quiet for forgetMs', () => {
    let t = 0;
    const l = new BackoffLimiter(opts, () => t);
    for (let i = 0; i < SWEEP_ABOVE_KEYS; i++) l.take(`old${i}`, 'wait');
    t = 30_000;
    l.take('live', 'wait');
    expect(l.size).toBe(SWEEP_ABOVE_KEYS + 1);
    t = 60_000;
    l.take('new', 'wait');
    expect(l.size).toBe(2);
  });
});
