import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Job, JobOptions, QueueOptions, WorkOptions } from 'pg-boss';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { inTx } from './queue.ts';
import { jobDuration, jobRuns } from '../lib/metrics.ts';
import { withLogContext } from '../lib/log-context.ts';

/**
 * One kind of job, declared in its feature's `<feature>.jobs.ts`: the queue's name, a versioned payload
 * schema, the queue's policy and the batch handler the worker role runs. Handlers are idempotent: a job may
 * run again after a crash or a retry (ARCHITECTURE §3).
 */
export interface JobDefinition<P extends { v: number } = { v: number }> {
  /** The queue: `<feature>-<action>`, kebab-case. */
  readonly name: string;
  /** Every payload carries `v`: a new shape gets a new version and both are handled while old jobs drain. */
  readonly payload: z.ZodType<P>;
  /** Retries, backoff and expiry of the queue and of each job sent to it. */
  options(ctx: AppContext): QueueOptions & JobOptions;
  /** How the worker role takes jobs of this queue. */
  workOptions(ctx: AppContext): WorkOptions;
  /** Handle a batch; what it returns settles the jobs as pg-boss's work() documents. */
  handle(ctx: AppContext, jobs: Array<Job<unknown>>): Promise<unknown>;
}

export const defineJob = <P extends { v: number }>(def: JobDefinition<P>): JobDefinition<P> => def;

/**
 * The sending side of a queue: its name, payload and policy, without the handler. Code that enqueues (a service,
 * a delivery that schedules its own retry) needs only this, so it never imports the handler that imports it.
 */
export type JobQueue<P extends { v: number } = { v: number }> = Pick<JobDefinition<P>, 'name' | 'payload' | 'options'>;
export const defineQueue = <P extends { v: number }>(q: JobQueue<P>): JobQueue<P> => q;

/** A queue's retries, expiry and heartbeat: what the queue is made with, and what each job of it carries. */
const policyOf = (o: QueueOptions & JobOptions) => ({
  retryLimit: o.retryLimit,
  retryDelay: o.retryDelay,
  retryBackoff: o.retryBackoff,
  retryDelayMax: o.retryDelayMax,
  expireInSeconds: o.expireInSeconds,
  heartbeatSeconds: o.heartbeatSeconds,
});

/**
 * Create the queue and warm pg-boss's queue cache. On PGlite a cache miss inside a transaction (enqueue with
 * `tx`) would query through the queue's own connection, which waits for that transaction: a deadlock. So every
 * queue is created and looked up once at start-up, in every role.
 */
export async function ensureQueue(ctx: AppContext, def: JobDefinition<any>): Promise<void> {
  const policy = {
    ...policyOf(def.options(ctx)),
    // A job committed to this queue NOTIFYs the workers (pg-boss's LISTEN connection), so they need not wait a poll.
    notify: true,
  };
  // pg-boss refuses a key that is present but undefined.
  const defined = Object.fromEntries(Object.entries(policy).filter(([, v]) => v !== undefined));
  await ctx.queue.createQueue(def.name, defined);
  // A queue made by an earlier version keeps its old policy unless told: bring it up to date (idempotent).
  await ctx.queue.updateQueue(def.name, defined);
  await ctx.queue.getJobById(def.name, randomUUID());
}

/** Enqueue a job; with `tx` the job row is written in that transaction, so it exists iff the transaction commits. */
export async function enqueue<P extends { v: number }>(
  ctx: AppContext,
  def: JobQueue<P>,
  payload: P,
  opts: { tx?: Tx; startAfter?: Date } = {},
): Promise<string | null> {
  return ctx.queue.send(def.name, def.payload.parse(payload) as object, {
    ...def.options(ctx),
    ...(opts.startAfter ? { startAfter: opts.startAfter } : {}),
    ...(opts.tx ? inTx(opts.tx) : {}),
  });
}

/**
 * Enqueue several jobs of one queue in one statement (pg-boss's `insert`), each under the queue's policy as `enqueue`
 * sends it; with `tx`, in that transaction. A status-change batch fans out tens of notifications: one statement each
 * was most of the time its transaction held the embedded database (decision 164).
 */
export async function enqueueMany<P extends { v: number }>(
  ctx: AppContext,
  def: JobQueue<P>,
  payloads: P[],
  opts: { tx?: Tx } = {},
): Promise<void> {
  if (payloads.length === 0) return;
  const o = def.options(ctx);
  const policy = { ...policyOf(o), priority: o.priority };
  const jobs = payloads.map((p) => ({ ...policy, data: def.payload.parse(p) as object }));
  await ctx.queue.insert(def.name, jobs, opts.tx ? inTx(opts.tx) : undefined);
}

/** Start taking jobs of this kind (the worker role). */
export async function work(ctx: AppContext, def: JobDefinition<any>): Promise<string> {
  // pg-boss types work() per option set (metadata, per-job results); the definition owns that pairing.
  const handle = async (jobs: Array<Job<unknown>>) => {
    const end = jobDuration.startTimer({ queue: def.name });
    try {
      // Log lines of the batch carry the queue, and the job id when the batch is one job (settleEach adds it per job).
      const out = await withLogContext({ queue: def.name, ...(jobs.length === 1 ? { jobId: jobs[0]!.id } : {}) }, () =>
        def.handle(ctx, jobs),
      );
      jobRuns.inc({ queue: def.name, outcome: 'ok' });
      return out;
    } catch (err) {
      jobRuns.inc({ queue: def.name, outcome: 'failed' });
      throw err;
    } finally {
      end();
    }
  };
  const opts = def.workOptions(ctx);
  // NOTIFY wakes the worker; the poll stays at the queue's own pace as the backstop (and for jobs whose
  // startAfter comes due, which nothing announces).
  const withNotify = { ...opts, notifyPollingIntervalSeconds: opts.pollingIntervalSeconds ?? 2 };
  return ctx.queue.work(def.name, withNotify as never, handle as never);
}
