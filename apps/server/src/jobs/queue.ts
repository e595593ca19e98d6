import { PgBoss, fromPglite, fromDrizzle } from 'pg-boss';
import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../db/client.ts';

export type Queue = PgBoss;

/** How often pg-boss looks for expired jobs and jobs with a stale heartbeat. */
export const SUPERVISE_SECONDS = 15;

/**
 * pg-boss on the application's own database: the embedded PGlite instance or the PostgreSQL server.
 * Jobs are rows in the same database, so a job enqueued inside a transaction exists iff the
 * transaction commits (see `inTx`).
 */
export async function createQueue(database: Database): Promise<Queue> {
  // Workers are woken by NOTIFY when a job is committed (queues opt in with `notify`, jobs/define.ts), with
  // polling kept as the backstop. Supervision (expired jobs, jobs whose worker stopped sending heartbeats)
  // runs every 15 s, so a job held by a killed worker is retried within heartbeat + 15 s.
  const common = { schedule: false, superviseIntervalSeconds: SUPERVISE_SECONDS, useListenNotify: true };
  const boss =
    database.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(database.pglite!), backend: 'pglite', ...common })
      : new PgBoss({ connectionString: database.url!, max: 4, ...common });
  boss.on('error', (err) => console.error('[queue]', err instanceof Error ? err.message : err));
  await boss.start();
  return boss;
}

/** Options that make `boss.send` write its job row inside the given Drizzle transaction. */
export const inTx = (tx: Tx) => ({ db: fromDrizzle(tx as never, sql as never) });
