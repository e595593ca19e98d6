import type { AppContext } from '../context.ts';

/**
 * The worker role: every feature's job handlers. Features add their `start*Workers(ctx)` here.
 * Handlers are idempotent (design.md §3): a job may run again after a crash.
 */
export async function startWorkers(_ctx: AppContext): Promise<void> {}
