import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { fieldErrors, type Envelope } from '@shiptrail/contract';
import { AppError } from './errors.ts';

/** The success envelope (design.md §4); code repeats the HTTP status. */
export function success<T>(payload: T, message = 'OK', code = 200): Envelope<T> {
  return { code, status: 'success', message, payload };
}
export function failure(code: number, message: string, payload: unknown = null): Envelope<unknown> {
  return { code, status: 'fail', message, payload };
}

/** Validate input against a contract schema; failures name each field with the spec's message. */
export function parse<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const r = schema.safeParse(data ?? {});
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

export const clientIp = (req: FastifyRequest) => req.ip;
