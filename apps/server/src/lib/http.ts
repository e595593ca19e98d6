import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { fieldErrors, HTTP_STATUS_HEADER, HTTP_STATUS_REAL, parseRequest, type Envelope } from '@shiptrail/contract';
import { AppError } from './errors.ts';

/** The success envelope; `code` holds the real result (the HTTP status too, for clients that opt in). */
export function success<T>(payload: T, message = 'OK', code = 200): Envelope<T> {
  return { code, status: 'success', message, payload };
}
/** The success envelope around a payload that is already JSON text (built by the database). */
export function rawSuccess(payloadJson: string, message = 'OK', code = 200): string {
  return `{"code":${code},"status":"success","message":${JSON.stringify(message)},"payload":${payloadJson}}`;
}
export function failure(code: number, message: string, payload: unknown = null): Envelope<unknown> {
  return { code, status: 'fail', message, payload };
}

/** Validate input against a contract schema; failures name each field with the spec's message. */
export function parse<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const r = parseRequest(schema, data);
  if (r.success) return r.data;
  const errors = fieldErrors(r.error);
  const first = Object.values(errors)[0] ?? 'Invalid request';
  throw new AppError(400, first, 'validation', { errors });
}

/** Reply with a non-200 success (201 Created, ...) and the envelope. */
export function created<T>(reply: FastifyReply, payload: T, message: string) {
  reply.code(201);
  return success(payload, message, 201);
}

/** True when the request opted in to real HTTP status codes (header sm-http-status: real). */
export function wantsRealStatus(req: FastifyRequest): boolean {
  const v = req.headers[HTTP_STATUS_HEADER];
  return typeof v === 'string' && v.trim().toLowerCase() === HTTP_STATUS_REAL;
}

/**
 * The /v1 status contract, applied to every reply just before it is sent: an envelope (any JSON reply under
 * /v1: successes, validation and auth failures, 404, 429, Fastify's own errors, 500) goes out with HTTP 200
 * and its real result in `code`, because the original API did so and its SDK reads a non-200 reply as a
 * transport failure. Headers (retry-after, ...) are kept. Clients that send `sm-http-status: real` get the
 * real status. Non-JSON replies (the web app, assets, /healthz) and redirects are left alone.
 */
export function applyStatusContract(req: FastifyRequest, reply: FastifyReply): void {
  if (reply.statusCode === 200 || reply.statusCode < 200 || (reply.statusCode >= 300 && reply.statusCode < 400)) return;
  const path = req.url.split('?')[0]!;
  if (path !== '/v1' && !path.startsWith('/v1/')) return;
  if (!/^application\/json\b/i.test(String(reply.getHeader('content-type') ?? ''))) return;
  if (wantsRealStatus(req)) return;
  reply.code(200);
}
