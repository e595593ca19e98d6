import { describe, expect, it } from 'vitest';
import { sandboxPollIntervalMs } from '../carriers/carriers.service.ts';
import { backoffMs, isFinal, jitter, nextCheckDelayMs } from './schedule.ts';

const real = { sandbox: false, pace: 1 };
const mid = () => 0.5; // no jitter
const MIN = 60_000;

describe('refresh schedule', () => {
  it('real carriers: the nearer the door, the sooner the next check; final states are never checked again', () => {
    expect(nextCheckDelayMs('OutForDelivery', real, mid)).toBe(30 * MIN);
    expect(nextCheckDelayMs('FailAttempt', real, mid)).toBe(60 * MIN);
    expect(nextCheckDelayMs('InTransit', real, mid)).toBe(120 * MIN);
    expect(nextCheckDelayMs('Pending', real, mid)).toBe(360 * MIN);
    expect(nextCheckDelayMs('Delivered', real, mid)).toBeNull();
    expect(nextCheckDelayMs('Expired', real, mid)).toBeNull();
    expect(isFinal('Delivered') && isFinal('Expired') && !isFinal('Exception')).toBe(true);
  });

  it('a pushed number is polled 4x less often (the backstop); final states stay final', () => {
    const pushed = { ...real, pushed: true };
    expect(nextCheckDelayMs('InTransit', pushed, mid)).toBe(8 * 60 * MIN);
    expect(nextCheckDelayMs('OutForDelivery', pushed, mid)).toBe(120 * MIN);
    expect(nextCheckDelayMs('Delivered', pushed, mid)).toBeNull();
    expect(nextCheckDelayMs('InTransit', { sandbox: true, pace: 1, pushed: true }, mid)).toBe(4 * sandboxPollIntervalMs(1));
  });

  it('sandbox carriers follow the sandbox step spacing at its pace', () => {
    const sandbox = { sandbox: true, pace: 0.1 };
    expect(nextCheckDelayMs('InTransit', sandbox, mid)).toBe(sandboxPollIntervalMs(0.1));
    expect(nextCheckDelayMs('Pending', sandbox, mid)).toBe(2 * sandboxPollIntervalMs(0.1));
    expect(nextCheckDelayMs('Delivered', sandbox, mid)).toBeNull();
  });

  it('jitter spreads ±fraction around the base', () => {
    expect(jitter(1000, 0.15, () => 0)).toBe(850);
    expect(jitter(1000, 0.15, () => 1)).toBe(1150);
  });

  it('backoff doubles per failure up to six hours, and a Retry-After longer than that wins', () => {
    expect(backoffMs(0, real, undefined, mid)).toBe(MIN);
    expect(backoffMs(3, real, undefined, mid)).toBe(8 * MIN);
    expect(backoffMs(30, real, undefined, mid)).toBe(360 * MIN);
    expect(backoffMs(0, real, 10 * MIN, mid)).toBe(10 * MIN);
  });

  it("a deployment's own first retry (CARRIER_RETRY_SECONDS) doubles the same way, to the same six hours", () => {
    const quick = { ...real, retryBaseMs: 5_000 };
    expect(backoffMs(0, quick, undefined, mid)).toBe(5_000);
    expect(backoffMs(1, quick, undefined, mid)).toBe(10_000);
    expect(backoffMs(30, quick, undefined, mid)).toBe(360 * MIN);
    expect(backoffMs(1, quick, 10 * MIN, mid)).toBe(10 * MIN);
  });
});
