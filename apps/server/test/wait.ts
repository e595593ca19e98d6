// Waiting on conditions instead of fixed sleeps. A fixed sleep before "expect exactly N" passes falsely on a
// loaded machine (the duplicate arrives after the sleep) and wastes time on an idle one. Instead: wait for
// the condition that says the work is done, then watch for a quiet window in which nothing more arrives.
import { sql } from 'drizzle-orm';
import type { AppContext } from '../src/context.ts';
import { notifyJobs } from '../src/modules/notifications/notifications.jobs.ts';

/** Poll until `condition` returns a truthy value; fails with `message` after `timeout` ms. */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  opts: { timeout?: number; every?: number; message?: string } = {},
): Promise<NonNullable<T>> {
  const { timeout = 15_000, every = 50, message = 'condition not met' } = opts;
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = await condition();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`${message} within ${timeout} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}

/**
 * Hold for `ms` and fail as soon as `probe` answers something other than what it answered at the start:
 * "nothing more arrives". Returns that value. Comparison is by JSON, so counts, lists and rows all work.
 */
export async function quietWindow<T>(ms: number, probe: () => T | Promise<T>, every = 100): Promise<T> {
  const first = await probe();
  const want = JSON.stringify(first);
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, Math.min(every, Math.max(0, end - Date.now()))));
    const now = JSON.stringify(await probe());
    if (now !== want) throw new Error(`expected nothing more during ${ms} ms, but ${want} became ${now}`);
  }
  return first;
}

/** The quiet window the negative checks hold: long enough for a pg-boss poll (0.5 s) and a delivery. */
export const QUIET_MS = 1500;

/**
 * No job of the given pg-boss queues is waiting, retrying or running: whatever was enqueued has been
 * worked to an end. Jobs scheduled for later (a webhook retry) count as waiting.
 */
export async function queuesIdle(ctx: AppContext, queues: string[]): Promise<boolean> {
  const r = (await ctx.db.execute(
    sql`select count(*)::int as n from pgboss.job where name in (${sql.join(
      queues.map((q) => sql`${q}`),
      sql`, `,
    )}) and state in ('created', 'retry', 'active')`,
  )) as unknown as { rows: Array<{ n: number }> };
  return r.rows[0]!.n === 0;
}

/** Waits until no notification job (mail, SMS, webhook, ...) is queued or running. */
export async function notificationsIdle(ctx: AppContext): Promise<void> {
  await waitFor(
    () =>
      queuesIdle(
        ctx,
        Object.values(notifyJobs).map((j) => j.name),
      ),
    { message: 'notification queues still busy' },
  );
}
