import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { openDatabase, type OpenOptions } from './db/client.ts';
import { createQueue } from './jobs/queue.ts';
import { createBus } from './lib/bus.ts';
import { createMailer } from './modules/mail/mailer.ts';
import { CENSOR, LOG_REDACT, redactUrl } from './lib/log-redact.ts';
import { logContextMixin } from './lib/log-context.ts';
import { closeCarriers, setupCarriers } from './modules/carriers/carriers.service.ts';
import { stopRefreshScheduler } from './modules/trackings/refresh.ts';
import { deliveredHistory, sandboxJourneyStarts } from './modules/trackings/trackings.service.ts';
import { createDeliveryPredictions } from './edd/index.ts';
import { setupSms } from './modules/sms/sms.service.ts';
import { bindMetricsDatabase, unbindMetricsDatabase } from './lib/metrics.ts';
import { setupQueues } from './jobs/registry.ts';

/**
 * Readable lines for a person at a terminal; JSON (one object a line) for everything else: files, pipes, log
 * collectors, or whenever LOG_FORMAT=json. LOG_FORMAT=pretty forces readable lines.
 */
export function logFormat(config: Pick<Config, 'LOG_FORMAT'>, isTTY = process.stdout.isTTY === true): 'json' | 'pretty' {
  return config.LOG_FORMAT ?? (isTTY ? 'pretty' : 'json');
}

type LoggedRequest = { method?: string; url?: string; host?: string; ip?: string; socket?: { remotePort?: number } };
const requestForLog = (req: LoggedRequest) => ({
  method: req.method,
  url: redactUrl(req.url ?? ''),
  host: req.host,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
});

export function createLogger(
  config: Pick<Config, 'LOG_LEVEL'> & Partial<Pick<Config, 'LOG_FORMAT'>>,
  out: { isTTY?: boolean; destination?: NodeJS.WritableStream } = {},
): Logger {
  const opts: pino.LoggerOptions = {
    level: config.LOG_LEVEL,
    redact: { paths: LOG_REDACT, censor: CENSOR },
    // Fastify's request line, with one-time keys and secret query values censored (lib/log-redact.ts).
    serializers: { req: requestForLog },
    // The request's or job's ids on every line written on its behalf (lib/log-context.ts).
    mixin: logContextMixin,
  };
  const isTTY = out.isTTY ?? process.stdout.isTTY === true;
  if (logFormat(config, isTTY) === 'json') return out.destination ? pino(opts, out.destination) : pino(opts);
  // A synchronous stream rather than a transport thread: nothing is lost when the process exits right after a line.
  return pino(
    opts,
    pretty({
      colorize: isTTY,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname',
      sync: true,
      ...(out.destination ? { destination: out.destination } : {}),
    }),
  );
}

/**
 * Open the database (migrations applied), the queue and the mailer: everything both roles share.
 * Features attach their own resources (carrier client, SMS gateway, ...) in `ctx.resources`.
 */
export async function createContext(
  config: Config,
  log: Logger = createLogger(config),
  opts: Pick<OpenOptions, 'pglite'> = {},
): Promise<AppContext> {
  const onStartRetry = (err: Error, attempt: number, waitMs: number) =>
    log.warn({ err: err.message, attempt }, `the database is not answering yet; trying again in ${waitMs} ms`);
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.dataDir,
    pglite: opts.pglite,
    sharedBuffersMb: config.PGLITE_SHARED_BUFFERS_MB,
    statisticsTarget: config.PGLITE_STATISTICS_TARGET,
    onConnectionError: (err) => log.warn({ err: err.message }, 'a database connection was lost; the next query opens a new one'),
    onStartRetry,
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
  const queue = await createQueue(database, { onStartRetry });
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
