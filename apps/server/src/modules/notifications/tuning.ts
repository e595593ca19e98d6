import type { AppContext } from '../../context.ts';

/**
 * Delivery timings. Defaults are production values; tests shorten them through
 * `ctx.resources.notificationTuning` so that "receiver down, then back" runs in seconds.
 */
export interface Tuning {
  /** Email and SMS: pg-boss retries on temporary failures (exponential backoff with jitter). */
  providerRetryLimit: number;
  providerRetryDelaySeconds: number;
  providerRetryDelayMaxSeconds: number;
  /** Webhooks: our own schedule, so Retry-After can be honoured. */
  webhookBaseDelayMs: number;
  webhookMaxDelayMs: number;
  /** Stop retrying a webhook this long after the event (Standard Webhooks suggests days). */
  webhookMaxAgeMs: number;
  webhookTimeoutMs: number;
  /**
   * The lease a delivery attempt takes on its notification, in seconds. Unset (production): the provider call's
   * longest time plus a margin (delivery.ts); tests set it short to see a second attempt wait out a live one.
   */
  leaseSeconds?: number;
}

/** Production values; the first provider retry is the deployment's NOTIFY_RETRY_SECONDS (30 s by default). */
export const DEFAULT_TUNING: Omit<Tuning, 'providerRetryDelaySeconds'> = {
  providerRetryLimit: 10,
  providerRetryDelayMaxSeconds: 3600,
  webhookBaseDelayMs: 5_000,
  webhookMaxDelayMs: 6 * 3600_000,
  webhookMaxAgeMs: 3 * 24 * 3600_000,
  webhookTimeoutMs: 15_000,
};

export const tuning = (ctx: AppContext): Tuning => ({
  ...DEFAULT_TUNING,
  providerRetryDelaySeconds: ctx.config.NOTIFY_RETRY_SECONDS,
  ...(ctx.resources.notificationTuning ?? {}),
});

/**
 * Test seam for fault tests: called around the provider call. A throw from `afterAccept` is a worker
 * that dies after the provider accepted (and after that was recorded) but before the job completed.
 */
export interface Faults {
  beforeSend?(notificationId: string): void | Promise<void>;
  afterAccept?(notificationId: string): void | Promise<void>;
}
export const faults = (ctx: AppContext): Faults => ctx.resources.notificationFaults ?? {};
