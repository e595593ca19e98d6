import { z } from 'zod';
import { defineJob } from '../../jobs/define.ts';
import { raiseCardExpiryAlerts } from './payments.ts';

/**
 * The daily card-expiry check: a payment alert for each card on file expiring this month or next. The worker
 * enqueues it once a day (each worker process does; a second run the same day raises nothing new, since the
 * alert is keyed by card and expiry month).
 */
export const cardExpiryJob = defineJob({
  name: 'billing-card-expiry',
  payload: z.object({ v: z.literal(1), day: z.string() }),
  options: () => ({ retryLimit: 3, retryDelay: 60 }),
  workOptions: (ctx) => ({ batchSize: 1, pollingIntervalSeconds: Math.max(0.5, ctx.config.QUEUE_POLL_SECONDS) }),
  async handle(ctx) {
    const n = await raiseCardExpiryAlerts(ctx);
    if (n) ctx.log.info({ alerts: n }, 'card-expiry alerts raised');
  },
});
