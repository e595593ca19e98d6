// When a refused webhook is tried again (nextWebhookDelayMs, issue 27's delivery-2): the receiver's Retry-After
// when it sent one (at least a second, at most a day), else exponential backoff from the base delay, capped, with
// ±20 % jitter. The jitter is checked over many draws: every delay within its band, and the band used on both sides.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { nextWebhookDelayMs } from './delivery.ts';
import { DEFAULT_TUNING, type Tuning } from './tuning.ts';

const ctxWith = (tuning?: Partial<Tuning>) =>
  ({ config: loadConfig({ DATA_DIR: 'memory://' }), resources: { notificationTuning: tuning } }) as unknown as AppContext;
const DAY_MS = 24 * 3600_000;

/** `n` delays for one attempt. */
const draws = (ctx: AppContext, attempt: number, n = 400) => Array.from({ length: n }, () => nextWebhookDelayMs(ctx, attempt, null));

/** Every draw a whole number of ms within ±20 % of `base`, and some on each side of it. */
function expectJitteredAround(delays: number[], base: number) {
  for (const d of delays) {
    expect(Number.isInteger(d)).toBe(true);
    expect(d).toBeGreaterThanOrEqual(Math.round(base * 0.8));
    expect(d).toBeLessThanOrEqual(Math.round(base * 1.2));
  }
  expect(Math.min(...delays)).toBeLessThan(base * 0.9);
  expect(Math.max(...delays)).toBeGreaterThan(base * 1.1);
}

describe('nextWebhookDelayMs', () => {
  it("takes the receiver's Retry-After as it is between a second and a day", () => {
    const ctx = ctxWith();
    expect(nextWebhookDelayMs(ctx, 0, 3000)).toBe(3000);
    expect(nextWebhookDelayMs(ctx, 7, 1000)).toBe(1000);
    expect(nextWebhookDelayMs(ctx, 3, DAY_MS)).toBe(DAY_MS);
    expect(nextWebhookDelayMs(ctx, 0, 90 * 60_000)).toBe(90 * 60_000);
  });

  it('raises a Retry-After under a second to a second, and lowers one over a day to a day', () => {
    const ctx = ctxWith();
    expect(nextWebhookDelayMs(ctx, 0, 0)).toBe(1000);
    expect(nextWebhookDelayMs(ctx, 0, 999)).toBe(1000);
    expect(nextWebhookDelayMs(ctx, 0, DAY_MS + 1)).toBe(DAY_MS);
    expect(nextWebhookDelayMs(ctx, 0, 7 * DAY_MS)).toBe(DAY_MS);
  });

  it('without Retry-After: the base delay doubled per attempt, with ±20 % jitter', () => {
    const ctx = ctxWith({ webhookBaseDelayMs: 1000, webhookMaxDelayMs: 3600_000 });
    expectJitteredAround(draws(ctx, 0), 1000);
    expectJitteredAround(draws(ctx, 1), 2000);
    expectJitteredAround(draws(ctx, 3), 8000);
  });

  it('caps the doubled delay at the longest delay, jitter included, however many the attempts', () => {
    const ctx = ctxWith({ webhookBaseDelayMs: 1000, webhookMaxDelayMs: 10_000 });
    expectJitteredAround(draws(ctx, 4), 10_000); // 16 s doubled, capped to 10 s
    expectJitteredAround(draws(ctx, 40), 10_000);
    expectJitteredAround(draws(ctx, 5000), 10_000);
  });

  it('by default: 5 s at the first retry, at most 6 hours', () => {
    const ctx = ctxWith();
    expect(DEFAULT_TUNING).toMatchObject({ webhookBaseDelayMs: 5_000, webhookMaxDelayMs: 6 * 3600_000 });
    expectJitteredAround(draws(ctx, 0), 5_000);
    expectJitteredAround(draws(ctx, 11), 5_000 * 2 ** 11); // 2.8 h
    expectJitteredAround(draws(ctx, 13), 6 * 3600_000); // 11.4 h, capped
  });
});
