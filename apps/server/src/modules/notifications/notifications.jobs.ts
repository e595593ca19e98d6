import type { JobResult, JobWithMetadata } from 'pg-boss';
import type { NotificationChannel } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { defineJob, type JobDefinition, type JobQueue } from '../../jobs/define.ts';
import { deliverEmail, deliverSms, deliverWebhooks } from './delivery.ts';
import { emailQueue, info, notifyPayload, smsQueue, webhookQueue, type NotifyJob } from './queues.ts';
import { withLogContext } from '../../lib/log-context.ts';

/**
 * Run a batch concurrently and settle each job on its own (perJobResults): one failing delivery is
 * retried alone, the others complete. Batches keep a busy queue from waiting a poll interval per job.
 */
async function settleEach(
  jobs: Array<JobWithMetadata<unknown>>,
  run: (job: JobWithMetadata<unknown>) => Promise<void>,
): Promise<JobResult[]> {
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
/** Email and SMS jobs differ only in their queue and the delivery they run. */
const providerJob = (queue: JobQueue<NotifyJob>, deliver: typeof deliverEmail) =>
  defineJob({
    ...queue,
    workOptions,
    handle: (ctx, jobs) =>
      settleEach(jobs as Array<JobWithMetadata<unknown>>, (job) => deliver(ctx, notifyPayload.parse(job.data).notificationId, info(job))),
  });

export const emailJob = providerJob(emailQueue, deliverEmail);
export const smsJob = providerJob(smsQueue, deliverSms);

export const webhookJob = defineJob({
  ...webhookQueue,
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

export type { NotifyJob } from './queues.ts';
export const notifyJobs: Record<NotificationChannel, JobDefinition<NotifyJob>> = { email: emailJob, sms: smsJob, webhook: webhookJob };
