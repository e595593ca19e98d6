import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Database, Db } from './db/client.ts';
import type { Queue } from './jobs/queue.ts';
import type { Mailer } from './modules/mail/mailer.ts';

/**
 * What modules get: the parsed config and the shared resources. Built once in main.ts (or by a test)
 * and passed to buildApp and to the worker, so both roles use the same wiring.
 */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  queue: Queue;
  mailer: Mailer;
  log: FastifyBaseLogger;
  /** Clock for rules that depend on time (expiry, refresh schedule); tests may move it. */
  now: () => Date;
  /** Extra per-feature resources, registered by features at start-up. */
  extras: Record<string, unknown>;
}
