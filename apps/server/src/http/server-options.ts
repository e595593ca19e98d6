import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { FastifyHttpOptions, FastifyReply } from 'fastify';
import type { AppContext } from '../context.ts';
import { failure } from '../lib/http.ts';

/**
 * The HTTP server's own settings: request ids, the timeouts that keep a slow client from holding a socket, and
 * Fastify's routing and connection errors answered in the envelope (never echoing the URL).
 */
export function serverOptions(ctx: AppContext, opts: { logger?: boolean }): FastifyHttpOptions<Server> {
  return {
    loggerInstance: opts.logger === false ? undefined : ctx.log,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w-]{8,64}$/.test(given) ? given : randomUUID();
    },
    trustProxy: ctx.config.TRUST_PROXY,
    bodyLimit: 2 * 1024 * 1024,
    // A request's headers, then its whole body, must arrive in time (a slow client holds no socket for ever). A live
    // stream's request is complete once its headers are in: the stream itself is not cut (docs/operations.md "Limits").
    requestTimeout: ctx.config.REQUEST_TIMEOUT_SECONDS * 1000,
    http: {
      requestTimeout: ctx.config.REQUEST_TIMEOUT_SECONDS * 1000,
      headersTimeout: Math.min(ctx.config.HEADERS_TIMEOUT_SECONDS, ctx.config.REQUEST_TIMEOUT_SECONDS) * 1000,
      // Node checks both timeouts this often (30 s by default, which would let a 1-second timeout run 30).
      connectionsCheckingInterval: Math.max(
        100,
        Math.min(30_000, (Math.min(ctx.config.HEADERS_TIMEOUT_SECONDS, ctx.config.REQUEST_TIMEOUT_SECONDS) * 1000) / 5),
      ),
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 300 },
    // Fastify's own routing and connection errors answer in the envelope too, and never echo the URL.
    frameworkErrors: (err, _req, reply) => {
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const status = tooLong ? 414 : 400;
      const message = tooLong
        ? 'A value in the address is too long (300 characters at most)'
        : err.code === 'FST_ERR_BAD_URL'
          ? 'The address is not valid (a malformed %-escape)'
          : 'Bad request';
      return (reply as unknown as FastifyReply).code(status).send(failure(status, message));
    },
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
      const [status, message] =
        err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'The request headers are too large']
          : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? [408, 'The request took too long to arrive']
            : [400, 'The request is not valid HTTP'];
      const body = JSON.stringify(failure(status, message));
      socket.end(
        `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  };
}
