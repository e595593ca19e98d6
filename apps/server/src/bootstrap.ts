import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { openDatabase, type OpenOptions } from './db/client.ts';
import { createQueue } from './jobs/queue.ts';
import { createMailer } from './modules/mail/mailer.ts';
import { LOG_REDACT } from './app.ts';
import { closeCarriers, setupCarriers } from './modules/trackings/carriers-runtime.ts';
import { stopTrackingWorkers } from './modules/trackings/refresh.ts';
import { setupNotifications } from './modules/notifications/workers.ts';

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>): Logger {
  return pino({ level: config.LOG_LEVEL, redact: { paths: LOG_REDACT, censor: '[redacted]' } });
}

/**
 * Open the database (migrations applied), the queue and the mailer: everything both roles share.
 * Features attach their own resources (carrier client, SMS gateway, ...) in `ctx.extras` via `features`.
 */
export async function createContext(config: Config, log: Logger = createLogger(config), opts: Pick<OpenOptions, 'pglite'> = {}): Promise<AppContext> {
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir, pglite: opts.pglite });
  const queue = await createQueue(database);
  const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, db: database.db, log });
  const ctx: AppContext = { config, database, db: database.db, queue, mailer, log, now: () => new Date(), extras: {} };
  // Carrier client, plus the carrier sandbox on loopback for carriers without credentials.
  await setupCarriers(ctx);
  await setupNotifications(ctx);
  return ctx;
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await stopTrackingWorkers(ctx);
  await ctx.queue.stop({ graceful: true, timeout: 5000 }).catch(() => {});
  ctx.mailer.close();
  await closeCarriers(ctx);
  await ctx.database.close();
}
