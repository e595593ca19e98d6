// Idempotency-Key replays are an HTTP concern: what is stored and replayed is the reply as it went on the
// wire. Routes wrap a service call with `idempotentReply`; the service takes the transaction and returns
// data, and knows nothing of keys or replies.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MSG, type Envelope } from '@shiptrail/contract';
import type { Db, Tx } from '../db/client.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { sha256 } from './crypto.ts';
import { AppError, conflict } from './errors.ts';
import * as store from './idempotency.repository.ts';

/** A reply as it goes on the wire: the status and the exact JSON text of the envelope. */
export interface ExactReply {
  statusCode: number;
  text: string;
}
export const exactReply = (statusCode: number, body: Envelope<unknown>): ExactReply => ({ statusCode, text: JSON.stringify(body) });

/** Send the reply text as produced (and, under an Idempotency-Key, stored): never re-serialised. */
export const sendExact = (reply: FastifyReply, out: ExactReply) =>
  reply.code(out.statusCode).type('application/json; charset=utf-8').send(out.text);

/** The request's Idempotency-Key header, or undefined when none (or an empty one) was sent. */
export function idempotencyKeyOf(req: FastifyRequest): string | undefined {
  const key = req.headers['idempotency-key'];
  return typeof key === 'string' && key ? key : undefined;
}

/** JSON with object keys sorted at every depth: two requests that mean the same hash the same. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}
export const requestHash = (canonical: unknown) => sha256(canonicalJson(canonical));

class ReplayFirst extends Error {}

/**
 * The stored reply of a finished request under this key (422 when the key was used for another request), or
 * undefined. Lets a route skip costly work before `idempotentReply` when the answer is known (decoding a courier's
 * images; Plan the day's seconds of solving); `idempotentReply` still decides under the key's lock.
 */
export async function storedReply(
  db: Db,
  scope: { userId: string; route: string; key: string; hash: string },
): Promise<ExactReply | undefined> {
  const row = await store.findIdempotent(db, scope.userId, scope.route, scope.key.slice(0, 200));
  if (!row) return undefined;
  if (row.requestHash && row.requestHash !== scope.hash) throw new AppError(422, MSG.idempotencyKeyReused, 'idempotency_key_reused');
  return row.statusCode > 0 ? { statusCode: row.statusCode, text: row.body } : undefined;
}

/**
 * Run `work` once per (account, route, Idempotency-Key). The key is reserved in the same transaction as the
 * work and holds the exact reply text: a retry (even a concurrent one, which waits on the key's unique index)
 * gets the first reply byte for byte and nothing is done or charged again. The hash of the canonical request
 * is stored with the key, so reusing a key for a different request is refused (422) instead of silently
 * answering with another request's result. Failures are not stored, so a retry after topping up can succeed.
 * A unique violation inside `work` that no stored reply explains becomes `onUniqueViolation()` (by default:
 * the key is in use by a request still running).
 */
export async function idempotentReply(
  db: Db,
  scope: { userId: string; route: string; key: string; hash: string },
  work: (tx: Tx) => Promise<ExactReply>,
  onUniqueViolation: () => AppError = () => conflict(MSG.idempotencyKeyInProgress),
): Promise<ExactReply> {
  const { userId, route, hash } = scope;
  const key = scope.key.slice(0, 200);
  const first = await storedReply(db, scope);
  if (first) return first;
  try {
    return await db.transaction(async (tx) => {
      if (!(await store.reserveIdempotent(tx, userId, route, key, hash))) throw new ReplayFirst();
      const out = await work(tx);
      await store.storeIdempotent(tx, userId, route, key, out.statusCode, out.text);
      return out;
    });
  } catch (err) {
    if (err instanceof ReplayFirst || isUniqueViolation(err)) {
      const stored = await storedReply(db, scope);
      if (stored) return stored;
      if (isUniqueViolation(err)) throw onUniqueViolation();
      throw conflict(MSG.idempotencyKeyInProgress);
    }
    throw err;
  }
}
