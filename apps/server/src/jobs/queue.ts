import { PgBoss, fromPglite, fromDrizzle } from 'pg-boss';
import { sql } from 'drizzle-orm';
import { retryWhileStarting, type Database, type OpenOptions, type Tx } from '../db/client.ts';

export type Queue = PgBoss;

/** How often pg-boss looks for expired jobs and jobs with a stale heartbeat. */
export const SUPERVISE_SECONDS = 15;

/**
 * pg-boss on the application's own database: the embedded PGlite instance or the PostgreSQL server.
 * Jobs are rows in the same database, so a job enqueued inside a transaction exists iff the
 * transaction commits (see `inTx`).
 */
export async function createQueue(database: Database, start: Pick<OpenOptions, 'startTimeoutMs' | 'onStartRetry'> = {}): Promise<Queue> {
  // Workers are woken by NOTIFY when a job is committed (queues opt in with `notify`, jobs/define.ts), with
  // polling kept as the backstop. Supervision (expired jobs, jobs whose worker stopped sending heartbeats)
  // runs every 15 s, so a job held by a killed worker is retried within heartbeat + 15 s. pg-boss runs the
  // heartbeat and expiry checks inside its monitor step, which it gates on monitorIntervalSeconds (60 s by
  // default) whatever the supervise interval: left at 60, a dead worker's job waited up to 70 s before it was
  // even seen (a CI run measured 116 s to redelivery). The monitor's stats aggregate then runs every 15 s too,
  // a scan of the job table, which completed and deleted jobs keep small.
  const common = {
    schedule: false,
    superviseIntervalSeconds: SUPERVISE_SECONDS,
    monitorIntervalSeconds: SUPERVISE_SECONDS,
    useListenNotify: true,
  };
  const open = async () => {
    const boss =
      database.kind === 'pglite'
        ? new PgBoss({ db: fromPglite(database.pglite!), backend: 'pglite', ...common })
        : new PgBoss({ connectionString: database.url!, max: 4, ...common });
    boss.on('error', (err) => console.error('[queue]', err instanceof Error ? err.message : err));
    try {
      await boss.start();
    } catch (err) {
      await boss.stop({ graceful: false }).catch(() => {});
      throw err;
    }
    return boss;
  };
  // A server that went away between the migrations and here (a restart at start-up): wait for it as openDatabase does.
  return database.kind === 'pglite' ? open() : retryWhileStarting(open, start);
}

/** Options that make `boss.send` write its job row inside the given Drizzle transaction. */
export const inTx = (tx: Tx) => ({ db: fromDrizzle(tx as never, sql as never) });
