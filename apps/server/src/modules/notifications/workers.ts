import { randomUUID } from 'node:crypto';
import type { JobResult, JobWithMetadata } from 'pg-boss';
import type { AppContext } from '../../context.ts';
import { createSmsGateway, setSmsGateway } from '../sms/sms.service.ts';
import { deliverEmail, deliverSms, deliverWebhook } from './delivery.ts';
import { QUEUES, jobOptions, notifyJobSchema } from './queues.ts';

/**
 * At start-up, in every role: the SMS gateway, and the queues. The queues must exist (and be in
 * pg-boss's queue cache) before a status change enqueues inside its transaction: on PGlite a lookup
 * from inside that transaction would wait for the transaction itself.
 */
export async function setupNotifications(ctx: AppContext): Promise<void> {
  setSmsGateway(ctx, createSmsGateway(ctx.config, ctx.db, ctx.log));
  for (const [channel, name] of Object.entries(QUEUES) as Array<[keyof typeof QUEUES, string]>) {
    const o = jobOptions(ctx, channel);
    await ctx.queue.createQueue(name, { retryLimit: o.retryLimit, retryDelay: o.retryDelay, retryBackoff: o.retryBackoff, expireInSeconds: o.expireInSeconds });
    await ctx.queue.getJobById(name, randomUUID()); // warms the queue cache (the lookup goes through it)
  }
}

/**
 * Run a batch concurrently and settle each job on its own (perJobResults): one failing delivery is
 * retried alone, the others complete. Batches keep a busy queue from waiting a poll interval per job.
 */
async function settleEach(jobs: Array<JobWithMetadata<unknown>>, run: (job: JobWithMetadata<unknown>) => Promise<void>): Promise<JobResult[]> {
  return Promise.all(
    jobs.map(async (job): Promise<JobResult> => {
      try {
        await run(job);
        return { id: job.id, status: 'completed' };
      } catch (err) {
        return { id: job.id, status: 'failed', output: { message: err instanceof Error ? err.message : String(err) } };
      }
    }),
  );
}

/** The worker role's notification handlers. */
export async function startNotificationWorkers(ctx: AppContext): Promise<void> {
  const opts = {
    pollingIntervalSeconds: ctx.config.QUEUE_POLL_SECONDS,
    batchSize: 16,
    burstWhenBatchFull: true,
    includeMetadata: true as const,
    perJobResults: true as const,
  };
  const info = (job: { retryCount: number; retryLimit: number }) => ({ retryCount: job.retryCount, retryLimit: job.retryLimit });
  await ctx.queue.work(QUEUES.email, opts, (jobs) => settleEach(jobs, (job) => deliverEmail(ctx, notifyJobSchema.parse(job.data).notificationId, info(job))));
  await ctx.queue.work(QUEUES.sms, opts, (jobs) => settleEach(jobs, (job) => deliverSms(ctx, notifyJobSchema.parse(job.data).notificationId, info(job))));
  await ctx.queue.work(QUEUES.webhook, { ...opts, localConcurrency: 2 }, (jobs) => settleEach(jobs, (job) => deliverWebhook(ctx, notifyJobSchema.parse(job.data))));
}
