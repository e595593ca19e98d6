import { z } from 'zod';
import { defineJob } from '../../jobs/define.ts';
import { LEASE_MS, refreshTrackings } from './refresh.ts';
import * as repo from './trackings.repository.ts';

/**
 * Refresh specific trackings now: the first refresh of imported trackings and "refresh now" (an add makes its
 * tracking due first in line and wakes the scheduler loop instead, refresh.ts). The scheduler loop covers
 * everything else, so a lost job only delays a refresh until the tracking is due.
 */
export const refreshJob = defineJob({
  name: 'tracking-refresh',
  payload: z.object({ v: z.literal(1), trackingIds: z.array(z.uuid()).min(1).max(1000) }),
  options: () => ({ retryLimit: 3 }),
  workOptions: (ctx) => ({ batchSize: 20, pollingIntervalSeconds: Math.max(0.5, ctx.config.QUEUE_POLL_SECONDS) }),
  async handle(ctx, jobs) {
    const ids: string[] = [];
    for (const job of jobs) {
      const p = refreshJob.payload.safeParse(job.data);
      if (p.success) ids.push(...p.data.trackingIds);
      else ctx.log.warn({ jobId: job.id }, `dropping a ${refreshJob.name} job with an unknown payload`);
    }
    const leaseUntil = new Date(ctx.now().getTime() + LEASE_MS);
    const leased = await repo.leaseByIds(ctx.db, [...new Set(ids)], leaseUntil);
    if (leased.length) await refreshTrackings(ctx, leased, leaseUntil);
  },
});
