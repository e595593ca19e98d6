import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { NotificationChannel } from '@shiptrail/contract';

/** One pg-boss queue per channel: each has its own retry policy and concurrency. */
export const QUEUES: Record<NotificationChannel, string> = {
  email: 'notify-email',
  sms: 'notify-sms',
  webhook: 'notify-webhook',
};

/**
 * Job payload, versioned (design.md §3). `attempt` is the webhook attempt this job performs: a job
 * whose attempt is behind the notification's count is a stale duplicate and does nothing.
 */
export const notifyJobSchema = z.object({ v: z.literal(1), notificationId: z.uuid(), attempt: z.number().int().min(0).default(0) });
export type NotifyJob = z.infer<typeof notifyJobSchema>;

/**
 * Delivery timings. Defaults are production values; tests shorten them through
 * `ctx.extras['notifications.tuning']` so that "receiver down, then back" runs in seconds.
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
}

export const DEFAULT_TUNING: Tuning = {
  providerRetryLimit: 10,
  providerRetryDelaySeconds: 30,
  providerRetryDelayMaxSeconds: 3600,
  webhookBaseDelayMs: 5_000,
  webhookMaxDelayMs: 6 * 3600_000,
  webhookMaxAgeMs: 3 * 24 * 3600_000,
  webhookTimeoutMs: 15_000,
};

export const TUNING_KEY = 'notifications.tuning';
export const tuning = (ctx: AppContext): Tuning => ({ ...DEFAULT_TUNING, ...((ctx.extras[TUNING_KEY] as Partial<Tuning> | undefined) ?? {}) });

/** pg-boss options of a channel's jobs. Webhook jobs retry only on unexpected errors (their schedule is ours). */
export function jobOptions(ctx: AppContext, channel: NotificationChannel) {
  const t = tuning(ctx);
  if (channel === 'webhook') return { retryLimit: 3, retryDelay: t.providerRetryDelaySeconds, retryBackoff: true, expireInSeconds: 120 };
  return { retryLimit: t.providerRetryLimit, retryDelay: t.providerRetryDelaySeconds, retryBackoff: true, retryDelayMax: t.providerRetryDelayMaxSeconds, expireInSeconds: 120 };
}

/**
 * Test seam for fault tests: called around the provider call. A throw from `afterAccept` is a worker
 * that dies after the provider accepted (and after that was recorded) but before the job completed.
 */
export interface Faults {
  beforeSend?(notificationId: string): void | Promise<void>;
  afterAccept?(notificationId: string): void | Promise<void>;
}
export const FAULTS_KEY = 'notifications.faults';
export const faults = (ctx: AppContext): Faults => (ctx.extras[FAULTS_KEY] as Faults | undefined) ?? {};
