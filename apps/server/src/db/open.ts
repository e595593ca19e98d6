import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { openDatabase, type Database, type OpenOptions } from './client.ts';

/** The log line before each new attempt while PostgreSQL is not answering yet (the database and the queue). */
export const startRetryLogger = (log: Logger) => (err: Error, attempt: number, waitMs: number) =>
  log.warn({ err: err.message, attempt }, `the database is not answering yet; trying again in ${waitMs} ms`);

/**
 * The database the configuration names, opened with its migrations applied, its lost connections and its database
 * thread's deaths and restarts logged. Light to import: main.ts starts it before it loads the application's modules,
 * so the embedded database's thread starts while they load (decision 176).
 */
export function openConfiguredDatabase(config: Config, log: Logger, pglite?: OpenOptions['pglite']): Promise<Database> {
  return openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.dataDir,
    pglite,
    sharedBuffersMb: config.PGLITE_SHARED_BUFFERS_MB,
    statisticsTarget: config.PGLITE_STATISTICS_TARGET,
    onConnectionError: (err) => log.warn({ err: err.message }, 'a database connection was lost; the next query opens a new one'),
    onStartRetry: startRetryLogger(log),
    onThreadEvent: (e) => {
      if (e.kind === 'died')
        log.error(
          { reason: e.reason, restarts: e.restarts },
          'the database thread stopped; reopening the database (statements in flight failed, nothing acknowledged is lost)',
        );
      else if (e.kind === 'restarted') log.warn({ restarts: e.restarts, ms: e.ms }, 'the database thread is back');
      else log.error({ reason: e.reason }, 'the database thread could not be restarted; retrying');
    },
  });
}
