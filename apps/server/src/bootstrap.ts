import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { Database, OpenOptions } from './db/client.ts';
import { openConfiguredDatabase, startRetryLogger } from './db/open.ts';
import { createLogger } from './lib/logger.ts';
import { createQueue } from './jobs/queue.ts';
import { createBus } from './lib/bus.ts';
import { createMailer } from './modules/mail/mailer.ts';
import { closeCarriers, setupCarriers } from './modules/carriers/carriers.service.ts';
import { stopRefreshScheduler } from './modules/trackings/refresh.ts';
import { deliveredHistory, sandboxJourneyStarts } from './modules/trackings/trackings.service.ts';
import { createDeliveryPredictions } from './edd/index.ts';
import { setupSms } from './modules/sms/sms.service.ts';
import { bindMetricsDatabase, unbindMetricsDatabase } from './lib/metrics.ts';
import { setupQueues } from './jobs/registry.ts';

/**
 * Open the database (migrations applied), the queue and the mailer: everything both roles share.
 * Features attach their own resources (carrier client, SMS gateway, ...) in `ctx.resources`.
 */
export async function createContext(
  config: Config,
  log: Logger = createLogger(config),
  opts: Pick<OpenOptions, 'pglite'> & {
    /** The database main.ts began opening while the application's modules loaded (`openConfiguredDatabase`). */
    database?: Promise<Database>;
  } = {},
): Promise<AppContext> {
  const database = await (opts.database ?? openConfiguredDatabase(config, log, opts.pglite));
  const queue = await createQueue(database, { onStartRetry: startRetryLogger(log) });
  const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, db: database.db, log });
  const bus = await createBus(database, log);
  const ctx: AppContext = { config, database, db: database.db, queue, bus, mailer, log, now: () => new Date(), resources: {} };
  // Carrier client, plus the carrier sandbox on loopback for carriers without credentials; its journeys
  // continue from the trackings' stored checkpoints after a restart.
  ctx.resources.sandboxJourneyStart = sandboxJourneyStarts(ctx);
  // Predicted delivery dates learn from the delivered parcels of the whole platform (decision 122).
  ctx.resources.deliveryPredictions = createDeliveryPredictions(() => deliveredHistory(ctx), {
    onError: (err) => log.warn({ err }, 'delivery history could not be read; predictions wait for the next reload'),
  });
  await setupCarriers(ctx);
  setupSms(ctx);
  await setupQueues(ctx);
  bindMetricsDatabase(ctx.db);
  return ctx;
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await stopRefreshScheduler(ctx);
  await ctx.resources.pushSubscriptions?.stop();
  await ctx.resources.rechargeLoop?.stop();
  await ctx.resources.embeddedVacuum?.stop();
  await ctx.queue.stop({ graceful: true, timeout: 5000 }).catch(() => {});
  ctx.mailer.close();
  await ctx.bus.close();
  await closeCarriers(ctx);
  unbindMetricsDatabase(ctx.db);
  await ctx.database.close();
}
