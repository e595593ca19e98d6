import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { MSG } from '@shiptrail/contract';
import type { AppContext } from '../context.ts';
import { limitConnections } from '../lib/connection-limits.ts';
import { AppError } from '../lib/errors.ts';
import { sharedRateLimitStore } from '../lib/shared-rate-limit-store.ts';

/** Per-address caps on sockets (not behind a proxy: there the proxy is the only peer) and requests under way. */
export function limitSockets(app: FastifyInstance, config: AppContext['config']) {
  limitConnections(app, {
    perAddress: config.CONNECTIONS_PER_ADDRESS ?? (config.TRUST_PROXY ? 0 : 256),
    inFlightPerAddress: config.REQUESTS_IN_FLIGHT_PER_ADDRESS,
    max: config.MAX_CONNECTIONS,
  });
}

/** The rate-limit plugin, off by default: routes opt in with their own limits. */
export async function registerRateLimit(app: FastifyInstance, ctx: AppContext) {
  await app.register(rateLimit, {
    global: false,
    // Several api processes share one PostgreSQL server: the counts live there so a limit is one limit.
    // PGlite is one process, where the plugin's own memory store is the same thing without a write.
    ...(ctx.database.kind === 'postgres' ? { store: sharedRateLimitStore(ctx.db) } : {}),
    errorResponseBuilder: (_req, context) =>
      new AppError(429, MSG.tooManyAttempts, 'rate_limited', null, { 'retry-after': String(Math.ceil(context.ttl / 1000)) }),
  });
}
