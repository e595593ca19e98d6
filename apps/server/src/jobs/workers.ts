import type { AppContext } from '../context.ts';
import { startTrackingWorkers } from '../modules/trackings/refresh.ts';
import { startNotificationWorkers } from '../modules/notifications/workers.ts';

/**
 * The worker role: every feature's job handlers. Features add their `start*Workers(ctx)` here.
 * Handlers are idempotent (design.md §3): a job may run again after a crash.
 */
export async function startWorkers(ctx: AppContext): Promise<void> {
  await startTrackingWorkers(ctx);
  await startNotificationWorkers(ctx);
}
