// Which request or job a log line belongs to. Every line a request's handler or a job's handler writes,
// through any logger (ctx.log in services included), carries that request's `reqId` or that job's `jobId`
// and `queue`, so one status change can be followed from what caused it to each notification it sent
// (docs/operations.md, "Following one status change in the logs").
import { AsyncLocalStorage } from 'node:async_hooks';

export type LogFields = { reqId?: string; jobId?: string; queue?: string };

const current = new AsyncLocalStorage<LogFields>();

/** Run `fn` with `fields` on every log line it writes (nested contexts add to the outer one). */
export function withLogContext<T>(fields: LogFields, fn: () => T): T {
  return current.run({ ...current.getStore(), ...fields }, fn);
}

/**
 * pino's `mixin`: the current context's fields, minus those the logger already binds (Fastify's request
 * logger binds reqId itself; a key written twice would make two keys in one JSON line).
 */
export function logContextMixin(_merge: object, _level: number, logger?: { bindings(): Record<string, unknown> }): LogFields {
  const store = current.getStore();
  if (!store) return {};
  const bound = logger?.bindings() ?? {};
  const out: LogFields = {};
  for (const [k, v] of Object.entries(store) as Array<[keyof LogFields, string]>) if (!(k in bound)) out[k] = v;
  return out;
}

/**
 * Whether the code running now serves an HTTP request (a person or a client waiting for the answer), not a job: the
 * embedded database gives such statements its next turn first (decision 164). A job's context nested in a request's
 * (its `queue` or `jobId` set) counts as a job.
 */
export function servingRequest(): boolean {
  const store = current.getStore();
  return !!store?.reqId && !store.queue && !store.jobId;
}
