import type { AppContext } from '../context.ts';
import { emailJob, smsJob, webhookJob } from '../modules/notifications/notifications.jobs.ts';
import { startRefreshScheduler } from '../modules/trackings/refresh.ts';
import { startPushSubscriptions } from '../modules/trackings/push.ts';
import { refreshJob } from '../modules/trackings/trackings.jobs.ts';
import { startRechargeLoop } from '../modules/billing/billing.service.ts';
import { cardExpiryJob } from '../modules/billing/billing.jobs.ts';
import { startEmbeddedVacuum } from '../db/maintenance.ts';
import { enqueue, ensureQueue, work, type JobDefinition } from './define.ts';

/**
 * Every kind of job, above the modules that define them (each in its `<feature>.jobs.ts`). Queue names are
 * `<feature>-<action>`. A new feature adds its definitions here.
 */
export const JOBS: ReadonlyArray<JobDefinition<any>> = [refreshJob, emailJob, smsJob, webhookJob, cardExpiryJob];

/** Every role: the queues exist (and are in pg-boss's cache) before anything enqueues inside a transaction. */
export async function setupQueues(ctx: AppContext): Promise<void> {
  for (const job of JOBS) await ensureQueue(ctx, job);
}

/** Take jobs of the given kinds (all by default). */
export async function startJobWorkers(ctx: AppContext, jobs: ReadonlyArray<JobDefinition<any>> = JOBS): Promise<void> {
  for (const job of jobs) await work(ctx, job);
}

/** The worker role: every job handler, the refresh scheduler loop, and on the embedded database its upkeep (decision 145). */
export async function startWorkers(ctx: AppContext): Promise<void> {
  await startJobWorkers(ctx);
  await startRefreshScheduler(ctx);
  startPushSubscriptions(ctx, { base: ctx.config.CARRIER_PUSH_URL ?? ctx.config.publicUrl });
  ctx.resources.rechargeLoop = startRechargeLoop(ctx, 1000, (day) => enqueue(ctx, cardExpiryJob, { v: 1, day }));
  // A PostgreSQL server vacuums by itself (autovacuum); PGlite's single-user PostgreSQL does not.
  if (ctx.database.kind === 'pglite') ctx.resources.embeddedVacuum ??= startEmbeddedVacuum(ctx.db, ctx.log);
}
