import type { FastifyInstance } from 'fastify';
import { findInputProblem } from '@shiptrail/contract';
import { AppError } from '../lib/errors.ts';
import { applyStatusContract } from '../lib/http.ts';
import { withLogContext } from '../lib/log-context.ts';

declare module 'fastify' {
  interface FastifyInstance {
    v1Routes: string[];
  }
}

/** What every request goes through: its id in the logs and the reply, the /v1 route list, the status contract. */
export function requestHooks(app: FastifyInstance) {
  // Every /v1 route, as "METHOD /path": a test checks each is in the contract's endpoint list.
  const v1Routes: string[] = [];
  app.decorate('v1Routes', v1Routes);
  // Every log line written while a request is handled (services' ctx.log too) carries its reqId (lib/log-context.ts).
  app.addHook('onRequest', (req, _reply, done) => withLogContext({ reqId: req.id }, done));
  app.addHook('onRoute', (r) => {
    if (!r.url.startsWith('/v1/') || r.url === '/v1/openapi.json') return;
    for (const m of [r.method].flat()) if (m !== 'HEAD') v1Routes.push(`${m} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
  });

  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  // HTTP 200 for every /v1 envelope unless the client opts in to real status codes.
  app.addHook('onSend', async (req, reply, payload) => {
    applyStatusContract(req, reply);
    return payload;
  });
}

/** No NUL characters and no deep nesting in any input, checked once for every route (the rule lives in the contract). */
export function inputChecks(app: FastifyInstance) {
  app.addHook('preValidation', async (req) => {
    const found = findInputProblem(req.params) ?? findInputProblem(req.query) ?? findInputProblem(req.body);
    if (found) throw new AppError(400, found.message, 'validation', { errors: { [found.path || '_']: found.message } });
  });
}
