import { PgBoss, fromPglite, fromDrizzle } from 'pg-boss';
import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../db/client.ts';

export type Queue = PgBoss;

/**
 * pg-boss on the application's own database: the embedded PGlite instance or the PostgreSQL server.
 * Jobs are rows in the same database, so a job enqueued inside a transaction exists iff the
 * transaction commits (see `inTx`).
 */
export async function createQueue(database: Database): Promise<Queue> {
  const boss =
    database.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(database.pglite!), backend: 'pglite', schedule: false, superviseIntervalSeconds: 60 })
      : new PgBoss({ connectionString: database.url!, max: 4, schedule: false, superviseIntervalSeconds: 60 });
  boss.on('error', (err) => console.error('[queue]', err instanceof Error ? err.message : err));
  await boss.start();
  return boss;
}

/** Options that make `boss.send` write its job row inside the given Drizzle transaction. */
export const inTx = (tx: Tx) => ({ db: fromDrizzle(tx as never, sql as never) });
