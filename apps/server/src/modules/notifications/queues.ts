import { z } from 'zod';
import type { NotificationChannel } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { defineQueue, type JobQueue } from '../../jobs/define.ts';
import { tuning } from './tuning.ts';

// The sending side of the notification queues: what fan-out, the service and a delivery's own retry enqueue.
// The handlers that deliver are in notifications.jobs.ts, which imports delivery.ts; delivery imports only this.

/**
 * One queue per channel, each with its own retry policy and concurrency. `attempt` is the webhook attempt a
 * job performs: a job whose attempt is behind the notification's count is a stale duplicate and does nothing.
 */
export const notifyPayload = z.object({ v: z.literal(1), notificationId: z.uuid(), attempt: z.number().int().min(0).default(0) });
export type NotifyJob = z.infer<typeof notifyPayload>;

/**
 * A delivery's worker refreshes its claim every 5 s while it runs. When a worker is killed mid-delivery the claim
 * goes stale after 10 s, a supervision pass (every 15 s, jobs/queue.ts) fails the job, and it is retried after
 * the queue's retry delay: 40-90 s in all, instead of the 300 s expiry, a 60 s supervision and that delay before.
 */
export const DELIVERY_HEARTBEAT_SECONDS = 10;
/** A live run may wait out another attempt's lease (delivery.ts, up to 95 s for mail) before its own attempt. */
export const DELIVERY_EXPIRE_SECONDS = 300;
export const info = (job: { retryCount: number; retryLimit: number }) => ({ retryCount: job.retryCount, retryLimit: job.retryLimit });
/** Email and SMS: pg-boss retries temporary provider failures with exponential backoff. */
export const providerOptions = (ctx: AppContext) => {
  const t = tuning(ctx);
  return {
    retryLimit: t.providerRetryLimit,
    retryDelay: t.providerRetryDelaySeconds,
    retryBackoff: true,
    retryDelayMax: t.providerRetryDelayMaxSeconds,
    expireInSeconds: DELIVERY_EXPIRE_SECONDS,
    heartbeatSeconds: DELIVERY_HEARTBEAT_SECONDS,
  };
};

export const emailQueue = defineQueue({ name: 'notify-email', payload: notifyPayload, options: providerOptions });
export const smsQueue = defineQueue({ name: 'notify-sms', payload: notifyPayload, options: providerOptions });
/** Webhooks follow our own retry schedule (delivery.ts, so Retry-After is honoured); pg-boss retries only unexpected errors. */
export const webhookQueue = defineQueue({
  name: 'notify-webhook',
  payload: notifyPayload,
  options: (ctx: AppContext) => ({
    retryLimit: 3,
    retryDelay: tuning(ctx).providerRetryDelaySeconds,
    retryBackoff: true,
    expireInSeconds: DELIVERY_EXPIRE_SECONDS,
    heartbeatSeconds: DELIVERY_HEARTBEAT_SECONDS,
  }),
});
export const notifyQueues: Record<NotificationChannel, JobQueue<NotifyJob>> = { email: emailQueue, sms: smsQueue, webhook: webhookQueue };
