import { randomUUID } from 'node:crypto';
import type { Job } from 'pg-boss';
import type { AppContext } from '../../context.ts';
import { pollSecondsOf } from '../../jobs/queue.ts';
import { createSmsGateway, setSmsGateway } from '../sms/sms.ts';
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

/** The worker role's notification handlers; one job per call so a failure retries only its own job. */
export async function startNotificationWorkers(ctx: AppContext): Promise<void> {
  const poll = { pollingIntervalSeconds: pollSecondsOf(ctx.queue), batchSize: 1, includeMetadata: true as const };
  const info = (job: { retryCount: number; retryLimit: number }) => ({ retryCount: job.retryCount, retryLimit: job.retryLimit });
  await ctx.queue.work(QUEUES.email, { ...poll, localConcurrency: 4 }, async (jobs) => {
    for (const job of jobs) await deliverEmail(ctx, notifyJobSchema.parse(job.data).notificationId, info(job));
  });
  await ctx.queue.work(QUEUES.sms, { ...poll, localConcurrency: 4 }, async (jobs) => {
    for (const job of jobs) await deliverSms(ctx, notifyJobSchema.parse(job.data).notificationId, info(job));
  });
  await ctx.queue.work(QUEUES.webhook, { ...poll, localConcurrency: 8 }, async (jobs: Job<unknown>[]) => {
    for (const job of jobs) await deliverWebhook(ctx, notifyJobSchema.parse(job.data));
  });
}
