// idempotentReply and storedReply, called directly on a real database: what is stored,
// what a retry gets back, what is refused, and what is never stored (mutation testing, issue 27, found these
// rules unguarded by the route tests).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { MSG } from '@shiptrail/contract';
import { createTestEnv, type TestEnv } from '../helpers.ts';
import { idempotencyKeys } from '../../src/db/schema.ts';
import { AppError } from '../../src/lib/errors.ts';
import { idempotentReply, storedReply, type ExactReply } from '../../src/lib/idempotency.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

// Fixed hashes, so these tests do not run requestHash (its own tests are in src/lib/idempotency.test.ts, without
// a database: a mutant of the hash then costs seconds, not a database per run).
const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);
const scopeOf = (over: Partial<{ userId: string; route: string; key: string; hash: string }> = {}) => ({
  userId: randomUUID(),
  route: 'POST /test',
  key: 'k1',
  hash: HASH_A,
  ...over,
});
/** A unit of work that counts its runs and answers with `reply` (text exactly as given). */
function counted(reply: ExactReply = { statusCode: 201, text: '{"status":"ok", "n":1}' }) {
  const w = { runs: 0, work: async () => (w.runs++, reply) };
  return w;
}
async function rowsOf(userId: string) {
  return env.ctx.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.userId, userId));
}
async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('idempotentReply', () => {
  it('runs the work once and answers a retry with the stored reply, byte for byte', async () => {
    const scope = scopeOf();
    const w = counted();
    const first = await idempotentReply(env.ctx.db, scope, w.work);
    expect(first).toEqual({ statusCode: 201, text: '{"status":"ok", "n":1}' });
    const again = await idempotentReply(env.ctx.db, scope, w.work);
    expect(again).toEqual(first);
    expect(w.runs).toBe(1);
    const [row] = await rowsOf(scope.userId);
    expect(row).toMatchObject({ route: 'POST /test', key: 'k1', statusCode: 201, body: '{"status":"ok", "n":1}', requestHash: scope.hash });
  });

  it('keeps keys apart by account and by route', async () => {
    const scope = scopeOf();
    const w = counted();
    await idempotentReply(env.ctx.db, scope, w.work);
    await idempotentReply(env.ctx.db, { ...scope, userId: randomUUID() }, w.work);
    await idempotentReply(env.ctx.db, { ...scope, route: 'POST /other' }, w.work);
    expect(w.runs).toBe(3);
  });

  it('refuses the same key with another request (422) without running the work', async () => {
    const scope = scopeOf();
    const w = counted();
    await idempotentReply(env.ctx.db, scope, w.work);
    const err = await refusal(idempotentReply(env.ctx.db, { ...scope, hash: HASH_B }, w.work));
    expect(err).toMatchObject({ httpStatus: 422, message: MSG.idempotencyKeyReused, code: 'idempotency_key_reused' });
    expect(w.runs).toBe(1);
  });

  it('uses the first 200 characters of a key, on the first request and on its retry', async () => {
    const key = 'x'.repeat(300);
    const scope = scopeOf({ key });
    const w = counted();
    const first = await idempotentReply(env.ctx.db, scope, w.work);
    expect(await idempotentReply(env.ctx.db, scope, w.work)).toEqual(first);
    expect(await idempotentReply(env.ctx.db, { ...scope, key: key.slice(0, 200) + 'y' }, w.work)).toEqual(first);
    expect(w.runs).toBe(1);
    const rows = await rowsOf(scope.userId);
    expect(rows.map((r) => r.key)).toEqual([key.slice(0, 200)]);
    expect(await storedReply(env.ctx.db, scope)).toEqual(first);
  });

  it('stores no failure: the work throwing leaves no key behind, and a retry runs the work', async () => {
    const scope = scopeOf();
    const boom = new Error('declined');
    await expect(
      idempotentReply(env.ctx.db, scope, async () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await rowsOf(scope.userId)).toEqual([]);
    const w = counted();
    expect(await idempotentReply(env.ctx.db, scope, w.work)).toEqual({ statusCode: 201, text: '{"status":"ok", "n":1}' });
    expect(w.runs).toBe(1);
  });

  it('answers 409 "in progress" while the key is reserved by a request that has not finished, and runs nothing', async () => {
    const scope = scopeOf();
    await env.ctx.db
      .insert(idempotencyKeys)
      .values({ userId: scope.userId, route: scope.route, key: scope.key, statusCode: 0, body: '', requestHash: scope.hash });
    expect(await storedReply(env.ctx.db, scope)).toBeUndefined();
    const w = counted();
    const err = await refusal(idempotentReply(env.ctx.db, scope, w.work, () => new AppError(418, 'not this one')));
    expect(err).toMatchObject({ httpStatus: 409, message: MSG.idempotencyKeyInProgress, code: 'conflict' });
    expect(w.runs).toBe(0);
    const [row] = await rowsOf(scope.userId);
    expect(row).toMatchObject({ statusCode: 0, body: '' });
  });

  it('turns a unique violation in the work that no stored reply explains into onUniqueViolation(), by default 409', async () => {
    const duplicate = async (): Promise<ExactReply> => {
      throw Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
    };
    const custom = new AppError(409, 'That order number is taken.', 'order_taken');
    const scope = scopeOf();
    await expect(idempotentReply(env.ctx.db, scope, duplicate, () => custom)).rejects.toBe(custom);
    const err = await refusal(idempotentReply(env.ctx.db, scopeOf(), duplicate));
    expect(err).toMatchObject({ httpStatus: 409, message: MSG.idempotencyKeyInProgress, code: 'conflict' });
    // The reservation went with the failed transaction: the key is free again.
    expect(await rowsOf(scope.userId)).toEqual([]);
  });

  it('replays a key stored before request hashes were recorded whatever the request', async () => {
    const scope = scopeOf();
    await env.ctx.db
      .insert(idempotencyKeys)
      .values({ userId: scope.userId, route: scope.route, key: scope.key, statusCode: 200, body: '{"old":true}', requestHash: '' });
    const w = counted();
    expect(await idempotentReply(env.ctx.db, { ...scope, hash: HASH_B }, w.work)).toEqual({
      statusCode: 200,
      text: '{"old":true}',
    });
    expect(w.runs).toBe(0);
    const [row] = await env.ctx.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.userId, scope.userId), eq(idempotencyKeys.key, scope.key)));
    expect(row!.requestHash).toBe('');
  });

  it('answers the reply of a request that finished between the look at its key and the reservation, not 409', async () => {
    const scope = scopeOf();
    // The other request (another process) holds the key when this one looks, and finishes before this one
    // tries to reserve it: the reservation fails, and the reply it stored is the answer.
    await env.ctx.db
      .insert(idempotencyKeys)
      .values({ userId: scope.userId, route: scope.route, key: scope.key, statusCode: 0, body: '', requestHash: scope.hash });
    const finishesFirst = new Proxy(env.ctx.db, {
      get(target, prop) {
        if (prop === 'transaction')
          return async (fn: Parameters<typeof target.transaction>[0]) => {
            await target
              .update(idempotencyKeys)
              .set({ statusCode: 201, body: '{"by":"the other request"}' })
              .where(eq(idempotencyKeys.userId, scope.userId));
            return target.transaction(fn);
          };
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const w = counted();
    expect(await idempotentReply(finishesFirst, scope, w.work)).toEqual({ statusCode: 201, text: '{"by":"the other request"}' });
    expect(w.runs).toBe(0);
  });

  it('answers a finished key from its stored reply without opening a transaction', async () => {
    const scope = scopeOf();
    await idempotentReply(env.ctx.db, scope, counted().work);
    let transactions = 0;
    const counting = new Proxy(env.ctx.db, {
      get(target, prop) {
        if (prop === 'transaction') transactions++;
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const w = counted();
    expect(await idempotentReply(counting, scope, w.work)).toEqual({ statusCode: 201, text: '{"status":"ok", "n":1}' });
    expect([w.runs, transactions]).toEqual([0, 0]);
  });

  it('storedReply is undefined for a key never used', async () => {
    expect(await storedReply(env.ctx.db, scopeOf())).toBeUndefined();
  });
});
