// The embedded database's upkeep (decision 145). PGlite runs PostgreSQL in single-user mode: there is no autovacuum.
// Without a VACUUM, a table's dead rows are never reclaimed outside the page that holds them, no page is ever marked
// all-visible (so an index-only scan visits the table for every row, decision 136's figures), the planner's
// statistics are never refreshed after the migrations, and transaction ids are never frozen: after about two
// billion transactions PostgreSQL stops accepting writes to protect itself. A PostgreSQL server has autovacuum
// for all of this; the embedded default gets this loop in its worker role instead.
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { startTickLoop, type TickLoop } from '../lib/tick-loop.ts';
import { rowsOf, type Db } from './client.ts';

/** A table is vacuumed again once its last vacuum is this old (or it has never been vacuumed). */
export const VACUUM_EVERY_HOURS = 24;
/** Or sooner, once this many transactions have passed since its oldest unfrozen row (autovacuum's default is 200M). */
export const FREEZE_AGE = 100_000_000;

export interface StaleTable {
  schema: string;
  table: string;
  lastVacuum: Date | null;
  xidAge: number;
}

/** The tables that need a vacuum at `now`, the most urgent first (see `mostUrgent`). */
export async function tablesToVacuum(db: Db, now: Date): Promise<StaleTable[]> {
  const rows = rowsOf<{ schema: string; table: string; last_vacuum: string | Date | null; xid_age: number | string }>(
    await db.execute(sql`
      select s.schemaname as schema, s.relname as table, s.last_vacuum, age(c.relfrozenxid) as xid_age
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where c.relkind = 'r'`),
  );
  return mostUrgent(
    rows.map((r) => ({
      schema: r.schema,
      table: r.table,
      lastVacuum: r.last_vacuum === null ? null : new Date(r.last_vacuum),
      xidAge: Number(r.xid_age),
    })),
    now,
  );
}

/**
 * The tables due at `now`: never vacuumed, vacuumed VACUUM_EVERY_HOURS ago or more, or with transaction ids
 * FREEZE_AGE old; never vacuumed first, then those due for freezing, then the oldest vacuum.
 */
export function mostUrgent(tables: StaleTable[], now: Date): StaleTable[] {
  const cutoff = now.getTime() - VACUUM_EVERY_HOURS * 3_600_000;
  const freeze = (t: StaleTable) => t.xidAge >= FREEZE_AGE;
  return tables
    .filter((t) => t.lastVacuum === null || t.lastVacuum.getTime() <= cutoff || freeze(t))
    .sort(
      (a, b) =>
        Number(b.lastVacuum === null) - Number(a.lastVacuum === null) ||
        Number(freeze(b)) - Number(freeze(a)) ||
        (a.lastVacuum?.getTime() ?? 0) - (b.lastVacuum?.getTime() ?? 0),
    );
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Vacuum (and analyse) the most urgent table, if any: one table a round, so the embedded database's single
 * connection is held for one table's vacuum at a time and requests run between them. A vacuum reads only the
 * pages changed since the last one (the visibility map), so after the first the rounds are short.
 */
export async function vacuumOneTable(db: Db, now: Date): Promise<StaleTable | null> {
  const [next] = await tablesToVacuum(db, now);
  if (!next) return null;
  await db.execute(sql.raw(`vacuum (analyze) ${quoted(next.schema)}.${quoted(next.table)}`));
  return next;
}

/** The worker role's upkeep loop on the embedded database: a round every `tickMs` (a minute by default). */
export function startEmbeddedVacuum(db: Db, log: FastifyBaseLogger, opts: { tickMs?: number; now?: () => Date } = {}): TickLoop {
  const now = opts.now ?? (() => new Date());
  return startTickLoop(log, 'embedded-vacuum', opts.tickMs ?? 60_000, async () => {
    const t0 = performance.now();
    const done = await vacuumOneTable(db, now());
    if (done) log.debug({ table: `${done.schema}.${done.table}`, ms: Math.round(performance.now() - t0) }, 'vacuumed');
  });
}
