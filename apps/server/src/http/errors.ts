import type { FastifyError, FastifyInstance } from 'fastify';
import { MSG } from '@shiptrail/contract';
import { AppError } from '../lib/errors.ts';
import { failure } from '../lib/http.ts';

/**
 * One error model for every reply: an AppError in its envelope, Fastify's own 4xx in words, anything else a logged
 * 500 with no internals; unknown API paths 404, the web app's client-side routes its index.html.
 */
export function errorHandlers(app: FastifyInstance, hasWeb: boolean) {
  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    if (err instanceof AppError) {
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
      return reply.code(err.httpStatus).send(failure(err.httpStatus, err.message, err.payload));
    }
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) {
      req.log.error({ err }, 'unhandled error');
      return reply.code(500).send(failure(500, MSG.internalError));
    }
    // Fastify's own 4xx (bad JSON, wrong content type, body too large): say what was wrong, no internals.
    const message =
      err.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? 'The request body is too large'
        : err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'Unsupported content type: send JSON'
          : err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError
            ? 'The request body is not valid JSON'
            : err.message;
    return reply.code(status).send(failure(status, message));
  });

  app.setNotFoundHandler((req, reply) => {
    const url = req.url.split('?')[0]!;
    if (
      url.startsWith('/v1/') ||
      url === '/v1' ||
      url.startsWith('/dev/') ||
      url.startsWith('/assets/') ||
      req.method !== 'GET' ||
      !hasWeb
    ) {
      return reply.code(404).send(failure(404, MSG.notFound));
    }
    // The web app's client-side routes: serve index.html, never cached, so a deploy takes effect.
    reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html');
  });
}
