import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { MSG } from '@shiptrail/contract';
import type { AppContext } from '../context.ts';
import { failure } from '../lib/http.ts';
import { httpDuration, metricsText, tokenMatches } from '../lib/metrics.ts';

/** Readiness and liveness probes, each reply's duration in the metrics, and the metrics behind a token. */
export function probesAndMetrics(app: FastifyInstance, ctx: AppContext) {
  // Readiness: the database answers (a load balancer sends traffic only then).
  app.get('/healthz', async (_req, reply) => {
    // The embedded database's thread is being restarted (decision 115): not ready until it is back.
    const thread = ctx.database.thread?.status;
    if (thread && thread.state !== 'ready')
      return reply.code(503).send({ status: 'not ready', database: ctx.database.kind, thread: thread.state, restarts: thread.restarts });
    await ctx.db.execute(sql`select 1`);
    return { status: 'ok', database: ctx.database.kind };
  });
  // Liveness: the process answers at all (a restart is the cure only when this fails, not when the
  // database is away for a moment).
  app.get('/livez', async () => ({ status: 'ok' }));

  app.addHook('onResponse', async (req, reply) => {
    httpDuration.observe(
      { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  // Metrics on the main port only with a token: they describe the deployment and are nobody else's business.
  const metricsToken = ctx.config.METRICS_TOKEN;
  if (metricsToken) {
    app.get('/metrics', async (req, reply) => {
      const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (!tokenMatches(given, metricsToken))
        return reply.code(401).header('www-authenticate', 'Bearer').send(failure(401, MSG.unauthorized));
      const m = await metricsText();
      return reply.header('content-type', m.contentType).header('cache-control', 'no-store').send(m.body);
    });
  }
}
