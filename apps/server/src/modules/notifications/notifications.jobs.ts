import { z } from 'zod';
import type { JobResult, JobWithMetadata } from 'pg-boss';
import type { NotificationChannel } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { defineJob, type JobDefinition } from '../../jobs/define.ts';
import { deliverEmail, deliverSms, deliverWebhooks } from './delivery.ts';
import { tuning } from './tuning.ts';
import { withLogContext } from '../../lib/log-context.ts';

/**
 * One queue per channel, each with its own retry policy and concurrency. `attempt` is the webhook attempt a
 * job performs: a job whose attempt is behind the notification's count is a stale duplicate and does nothing.
 */
const notifyPayload = z.object({ v: z.literal(1), notificationId: z.uuid(), attempt: z.number().int().min(0).default(0) });
export type NotifyJob = z.infer<typeof notifyPayload>;

/**
 * Run a batch concurrently and settle each job on its own (perJobResults): one failing delivery is
 * retried alone, the others complete. Batches keep a busy queue from waiting a poll interval per job.
 */
async function settleEach(jobs: Array<JobWithMetadata<unknown>>, run: (job: JobWithMetadata<unknown>) => Promise<void>): Promise<JobResult[]> {
  return Promise.all(
    jobs.map(async (job): Promise<JobResult> => {
      try {
        await withLogContext({ jobId: job.id }, () => run(job));
        return { id: job.id, status: 'completed' };
      } catch (err) {
        return { id: job.id, status: 'failed', output: { message: err instanceof Error ? err.message : String(err) } };
      }
    }),
  );
}

const workOptions = (ctx: AppContext) => ({
  pollingIntervalSeconds: ctx.config.QUEUE_POLL_SECONDS,
  batchSize: 16,
  burstWhenBatchFull: true,
  includeMetadata: true as const,
  perJobResults: true as const,
});
/**
 * A delivery's worker refreshes its claim every 5 s while it runs. When a worker is killed mid-delivery the claim
 * goes stale after 10 s, a supervision pass (every 15 s, jobs/queue.ts) fails the job, and it is retried after
 * the queue's retry delay: 40-90 s in all, instead of the 300 s expiry, a 60 s supervision and that delay before.
 */
const DELIVERY_HEARTBEAT_SECONDS = 10;
/** A live run may wait out another attempt's lease (delivery.ts, up to 95 s for mail) before its own attempt. */
const DELIVERY_EXPIRE_SECONDS = 300;
const info = (job: { retryCount: number; retryLimit: number }) => ({ retryCount: job.retryCount, retryLimit: job.retryLimit });
/** Email and SMS: pg-boss retries temporary provider failures with exponential backoff. */
const providerOptions = (ctx: AppContext) => {
  const t = tuning(ctx);
  return { retryLimit: t.providerRetryLimit, retryDelay: t.providerRetryDelaySeconds, retryBackoff: true, retryDelayMax: t.providerRetryDelayMaxSeconds, expireInSeconds: DELIVERY_EXPIRE_SECONDS, heartbeatSeconds: DELIVERY_HEARTBEAT_SECONDS };
};

/** Email and SMS jobs differ only in their queue and the delivery they run. */
const providerJob = (name: string, deliver: typeof deliverEmail) =>
  defineJob({
    name,
    payload: notifyPayload,
    options: providerOptions,
    workOptions,
    handle: (ctx, jobs) => settleEach(jobs as Array<JobWithMetadata<unknown>>, (job) => deliver(ctx, notifyPayload.parse(job.data).notificationId, info(job))),
  });

export const emailJob = providerJob('notify-email', deliverEmail);
export const smsJob = providerJob('notify-sms', deliverSms);

/** Webhooks follow our own retry schedule (delivery.ts, so Retry-After is honoured); pg-boss retries only unexpected errors. */
export const webhookJob = defineJob({
  name: 'notify-webhook',
  payload: notifyPayload,
  options: (ctx) => ({ retryLimit: 3, retryDelay: tuning(ctx).providerRetryDelaySeconds, retryBackoff: true, expireInSeconds: DELIVERY_EXPIRE_SECONDS, heartbeatSeconds: DELIVERY_HEARTBEAT_SECONDS }),
  workOptions: (ctx) => ({ ...workOptions(ctx), localConcurrency: 2 }),
  // The whole fetch is one batch (deliverWebhooks): one statement takes the leases, one settles the 2xx answers.
  handle: async (ctx, jobs) => {
    const list = jobs as Array<JobWithMetadata<unknown>>;
    const parsed = list.map((job) => notifyPayload.safeParse(job.data));
    const valid = list.flatMap((job, i) => (parsed[i]!.success ? [{ jobId: job.id, data: parsed[i]!.data }] : []));
    const errors = await deliverWebhooks(ctx, valid);
    const byJob = new Map(valid.map((v, i) => [v.jobId, errors[i]]));
    return list.map((job, i): JobResult => {
      const err = parsed[i]!.success ? byJob.get(job.id) : parsed[i]!.error;
      return err ? { id: job.id, status: 'failed', output: { message: err.message } } : { id: job.id, status: 'completed' };
    });
  },
});

export const notifyJobs: Record<NotificationChannel, JobDefinition<NotifyJob>> = { email: emailJob, sms: smsJob, webhook: webhookJob };
