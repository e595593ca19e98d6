import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config.ts';
import { CENSOR, LOG_REDACT, redactUrl } from './log-redact.ts';
import { logContextMixin } from './log-context.ts';

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
