import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations, SQL } from 'drizzle-orm';
import pg from 'pg';
import { PGliteThread, type PGliteThreadOptions } from './pglite-thread.ts';
import { yieldBeforeEachTurn } from './pglite-turns.ts';
import * as schema from './schema.ts';
import { servingRequest } from '../lib/log-context.ts';

export type Schema = typeof schema;
/** The same Drizzle API over PGlite (embedded) or node-postgres (a server). */
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything that can run queries: the database or an open transaction. */
export type Queryable = Db | Tx;

/** The rows of a raw `db.execute(sql)` result: node-postgres and PGlite both answer `{ rows }`. */
export function rowsOf<T>(r: unknown): T[] {
  return Array.isArray(r) ? (r as T[]) : ((r as { rows?: T[] }).rows ?? []);
}

/** executeNamed's names by statement text: the hash is taken once per text, not on every request (texts are fixed). */
const statementNames = new Map<string, string>();

/**
 * `db.execute(query)` as a named statement (decision 184): on PostgreSQL it is parsed, analysed and planned once per
 * connection, then only bound and executed, as the database thread does for every statement on PGlite (decision 148,
 * where the name changes nothing). For a long statement sent on every request: the add's, whose planning cost the
 * server more than its execution. Named by a hash of its text, so a statement whose text varies is prepared once per
 * text; keep to statements of fixed text (each name stays prepared on its connection). A pooler in front is in session
 * mode already (docs/operations.md), which keeps a connection's prepared statements.
 */
export function executeNamed(db: Queryable, query: SQL): Promise<unknown> {
  const d = drizzleInside(db);
  const built = d.dialect.sqlToQuery(query);
  return d.session.prepareQuery(built, undefined, statementName(built.sql), false).execute();
}

/** The parts of Drizzle's database and transaction objects that executeNamed and StatementOnce use. */
interface DrizzleSession {
  prepareQuery(
    q: { sql: string; params: unknown[] },
    fields: undefined,
    name: string,
    arrayMode: false,
  ): { execute(values?: Record<string, unknown>): Promise<unknown> };
}
function drizzleInside(db: Queryable) {
  return db as unknown as { dialect: { sqlToQuery(q: SQL): { sql: string; params: unknown[] } }; session: DrizzleSession };
}

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `shiptrail_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * A statement whose text is built once (decision 187): `build` writes it with `sql.placeholder(name)` where each
 * request's values go, and runs on the first `execute`; every execute then only binds `values` (by placeholder
 * name) and sends it as executeNamed does. Drizzle assembles a statement from its fragments on every `db.execute`
 * (the add's has about forty, from four owners); this does it once per process. The SQL stays written in one place,
 * in the owner's repository, as before. A placeholder without a value is an error, not a null.
 */
export class StatementOnce<V extends Record<string, unknown>> {
  private built: { sql: string; params: unknown[]; name: string } | undefined;
  /** The prepared query of the database's own session (autocommit): made once, reused; a transaction's is made per call. */
  private readonly prepared = new WeakMap<DrizzleSession, ReturnType<DrizzleSession['prepareQuery']>>();
  private readonly build: () => SQL;

  constructor(build: () => SQL) {
    this.build = build;
  }

  /** The statement's text and its parameters (placeholders where each request's values go), built on first use. */
  query(db: Queryable): { sql: string; params: unknown[]; name: string } {
    if (!this.built) {
      const q = drizzleInside(db).dialect.sqlToQuery(this.build());
      this.built = { sql: q.sql, params: q.params, name: statementName(q.sql) };
    }
    return this.built;
  }

  execute(db: Queryable, values: V): Promise<unknown> {
    const session = drizzleInside(db).session;
    let p = this.prepared.get(session);
    if (!p) {
      const q = this.query(db);
      p = session.prepareQuery(q, undefined, q.name, false);
      this.prepared.set(session, p);
    }
    return p.execute(values);
  }
}

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /**
   * Raw handle for pg-boss, the bus and backups: the PGlite instance, or on the default embedded set-up the
   * stand-in for the PGlite that runs in the database thread (decision 115), which answers the same calls.
   */
  pglite?: PGlite;
  /** The database thread, when PGlite runs in one: its state for /readyz, restarts for the bus. */
  thread?: PGliteThread;
  pool?: pg.Pool;
  url?: string;
  close(): Promise<void>;
}

const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../drizzle');

export interface OpenOptions {
  databaseUrl?: string;
  /** Directory for PGlite, or 'memory://' for a throwaway database. */
  dataDir: string;
  poolSize?: number;
  /**
   * Extra PGlite options. Tests pass a dump of an already migrated database (`loadDataDir`) and the
   * compiled WebAssembly module, so each test file skips initdb, the migrations and the compile.
   */
  pglite?: PGliteOptions;
  /** PostgreSQL's shared_buffers for PGlite, in MB (PGLITE_SHARED_BUFFERS_MB); unset: PGlite's default, 128 MB. */
  sharedBuffersMb?: number;
  /**
   * PostgreSQL's default_statistics_target for PGlite (PGLITE_STATISTICS_TARGET): ANALYZE samples 300 rows each;
   * unset: PostgreSQL's 100 (decision 172).
   */
  statisticsTarget?: number;
  /** Told when an idle pooled connection breaks (the server restarted, a failover, a network cut). */
  onConnectionError?: (err: Error) => void;
  /**
   * How long start-up keeps trying a PostgreSQL server that is not answering yet (restarting, still starting,
   * failing over) before giving up; default 60 s. Errors that waiting cannot cure (a wrong password, a missing
   * database) fail at once.
   */
  startTimeoutMs?: number;
  /** Told before each new attempt at start-up, with the reason the last one failed. */
  onStartRetry?: (err: Error, attempt: number, waitMs: number) => void;
  /**
   * Where PGlite runs: 'worker' (its own thread, decision 115: the default for a data directory) or 'main' (this
   * thread: tests on an in-memory copy of the migrated template, and the bench's before/after comparison with
   * SHIPTRAIL_PGLITE_THREAD=main).
   */
  pgliteThread?: 'worker' | 'main';
  /** Told when the database thread died and when it is back (bootstrap logs both). */
  onThreadEvent?: PGliteThreadOptions['onEvent'];
}

/** The default place for PGlite: its own thread for a data directory; in-memory databases (tests) stay in this thread. */
export function defaultPgliteThread(dataDir: string, env: NodeJS.ProcessEnv = process.env): 'worker' | 'main' {
  if (env.SHIPTRAIL_PGLITE_THREAD === 'main' || env.SHIPTRAIL_PGLITE_THREAD === 'worker') return env.SHIPTRAIL_PGLITE_THREAD;
  return dataDir === 'memory://' ? 'main' : 'worker';
}

// Any fixed number: the key of the session lock that lets one process at a time apply migrations.
const MIGRATION_LOCK_KEY = 7_310_442_001;

/**
 * Several api and worker processes may start at once against one server. Drizzle's migrator checks which
 * migrations are applied and then applies the rest with no lock, so two processes starting together could both
 * apply the same migration and one would fail to start. A session-level advisory lock makes the others wait
 * until the first has finished; they then find nothing left to apply.
 */
async function migrateUnderLock(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await migratePg(drizzlePg(client), { migrationsFolder });
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    client.release();
  }
}

// Connection refused or cut, and the server's own "shutting down" / "starting up" / "in recovery" answers
// (SQLSTATE class 08, 57P01-57P03): the server is coming back, and a process started meanwhile should wait for it.
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
]);

/** Whether an error at start-up means "the server is not there yet" rather than "this will never work". */
export function isTransientStartError(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown; message?: string } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e.code && (TRANSIENT_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (/Connection terminated|connection timeout/i.test(e.message ?? '')) return true;
  }
  return false;
}

/**
 * Runs start-up work again while the server is not answering yet, with a growing pause (0.25 s doubling to 5 s),
 * for at most `startTimeoutMs`: an api or worker started while PostgreSQL restarts waits for it instead of exiting.
 */
export async function retryWhileStarting<T>(
  work: () => Promise<T>,
  opts: Pick<OpenOptions, 'startTimeoutMs' | 'onStartRetry'>,
): Promise<T> {
  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  for (let attempt = 1, wait = 250; ; attempt++, wait = Math.min(wait * 2, 5000)) {
    try {
      return await work();
    } catch (err) {
      if (!isTransientStartError(err) || Date.now() + wait > deadline) throw err;
      opts.onStartRetry?.(err as Error, attempt, wait);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/**
 * PGlite's options: the caller's, with PostgreSQL's shared buffers at `sharedBuffersMb` (decision 144). PostgreSQL
 * zeroes its shared memory at start, so the whole of it is resident from the first second; PGlite's default
 * (128 MB) was the largest single part of the embedded default's memory, and the files it caches are also in the
 * operating system's page cache, as they are for a PostgreSQL server.
 *
 * And its statistics target (decision 172): ANALYZE (the embedded vacuum loop's, decision 145) reads a sample of 300
 * rows per unit of it into memory. Inside PGlite that memory is WebAssembly memory, which is never given back: the
 * largest table's sample stays resident for the life of the process (at PostgreSQL's 100, 30,000 rows: about 10 MB
 * for 50,000 checkpoints).
 */
function embeddedOptions(opts: OpenOptions): PGliteOptions | undefined {
  const settings = [
    ...(opts.sharedBuffersMb ? ['-c', `shared_buffers=${opts.sharedBuffersMb}MB`] : []),
    ...(opts.statisticsTarget ? ['-c', `default_statistics_target=${opts.statisticsTarget}`] : []),
  ];
  if (settings.length === 0) return opts.pglite;
  const base = opts.pglite?.startParams ?? PGlite.defaultStartParams;
  return { ...opts.pglite, startParams: [...base, ...settings] };
}

/** PGlite in its own thread on `dir`, with the committed migrations applied. */
async function openThread(dir: string | undefined, opts: OpenOptions): Promise<PGliteThread> {
  const thread = new PGliteThread({ dataDir: dir, options: opts.pglite, onEvent: opts.onThreadEvent, urgent: servingRequest });
  try {
    await thread.waitReady;
    await migratePglite(drizzlePglite(thread as unknown as PGlite), { migrationsFolder });
    return thread;
  } catch (err) {
    await thread.close().catch(() => {});
    throw err;
  }
}

/** Open the database and apply the committed migrations (the same files on PGlite and PostgreSQL). */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
    // An idle connection cut by the server (a restart, a failover) is an 'error' event on the pool; with no
    // listener Node treats it as uncaught and the whole process dies. The pool drops the broken connection
    // and opens a new one on the next query, so noting it is all there is to do.
    pool.on('error', (err) => opts.onConnectionError?.(err));
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    try {
      await retryWhileStarting(() => migrateUnderLock(pool), opts);
    } catch (err) {
      await pool.end().catch(() => {});
      throw err;
    }
    return { db, kind: 'postgres', pool, url: opts.databaseUrl, close: () => pool.end() };
  }
  const dir = opts.dataDir === 'memory://' ? undefined : path.join(opts.dataDir, 'pglite');
  opts = { ...opts, pglite: embeddedOptions(opts) };
  if ((opts.pgliteThread ?? defaultPgliteThread(opts.dataDir)) === 'worker') {
    // A new data directory is made by PGlite's initdb, whose WebAssembly memory (about 350 MB) the thread keeps for
    // its whole life: the first start on a new directory held 856 MB resident, every later start 419 MB. So a new
    // directory is opened, migrated and closed once, then opened again (decision 144).
    const fresh = !!dir && !existsSync(path.join(dir, 'PG_VERSION'));
    let thread = await openThread(dir, opts);
    if (fresh) {
      await thread.close();
      // The directory exists now: a dump it was made from (tests' template) is not loaded twice.
      thread = await openThread(dir, { ...opts, pglite: { ...opts.pglite, loadDataDir: undefined } });
    }
    // Drizzle's pglite driver and pg-boss's adapter call only what the stand-in answers (query, exec, transaction, listen).
    const pglite = thread as unknown as PGlite;
    const db = drizzlePglite(pglite, { schema }) as unknown as Db;
    return { db, kind: 'pglite', pglite, thread, close: () => thread.close() };
  }
  // One options object: PGlite reads its second argument only when the first is a directory string, so
  // `new PGlite(undefined, options)` for an in-memory database silently dropped every option.
  const pglite = new PGlite({ ...opts.pglite, ...(dir ? { dataDir: dir } : {}) });
  await pglite.waitReady;
  yieldBeforeEachTurn(pglite);
  const db = drizzlePglite(pglite, { schema }) as unknown as Db;
  await migratePglite(drizzlePglite(pglite), { migrationsFolder });
  return { db, kind: 'pglite', pglite, close: () => pglite.close() };
}
