// Idempotency-Key on add and CSV import: a replay is the first reply byte for byte and charges nothing; the
// same key with a different request is refused with 422.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq } from 'drizzle-orm';
import { MSG } from '@shiptrail/contract';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { trackings } from '../../src/db/schema.ts';
import { EX, balanceCents, userIdOf } from '../trackings/fixtures.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

async function send(url: string, token: string, key: string, payload: string, contentType = 'application/json') {
  const res = await env.app.inject({
    method: 'POST',
    url,
    headers: { 'sm-api-token': token, 'idempotency-key': key, 'content-type': contentType, 'sm-http-status': 'real' },
    payload,
  });
  return { status: res.statusCode, text: res.payload, body: res.json() };
}
async function trackingCount(userId: string) {
  const [r] = await env.ctx.db.select({ n: count() }).from(trackings).where(eq(trackings.userId, userId));
  return Number(r!.n);
}

describe('Idempotency-Key on POST /v1/trackings/add', () => {
  it('a replay returns the first reply byte for byte and charges once', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    const before = await balanceCents(env, id);
    const body = JSON.stringify({
      tid: EX.ups.delivered,
      title: 'Boots',
      orderId: 'O-7',
      customer: 'Ann',
      notify: { email: 'ann@example.com', phone: '2125551234' },
      note: 'door',
    });
    const first = await send('/v1/trackings/add', a.apiKey, 'order-7', body);
    expect(first.status).toBe(201);
    const again = await send('/v1/trackings/add', a.apiKey, 'order-7', body);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    // The same request written differently (key order, null for a left-out field, spaces in the number) is the same request.
    const same = JSON.stringify({
      note: 'door',
      customer: 'Ann',
      notify: { phone: '2125551234', email: 'ann@example.com' },
      orderId: 'O-7',
      title: 'Boots',
      courier: null,
      tid: '1Z5R 8939 0350 0756 08',
    });
    expect((await send('/v1/trackings/add', a.apiKey, 'order-7', same)).text).toBe(first.text);
    expect(await balanceCents(env, id)).toBe(before - 5);
    expect(await trackingCount(id)).toBe(1);
  });

  it('the same key with a different request is refused with 422, and nothing is added or charged', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    const first = await send('/v1/trackings/add', a.apiKey, 'k-1', JSON.stringify({ tid: EX.fedex.delivered, title: 'one' }));
    expect(first.status).toBe(201);
    const before = await balanceCents(env, id);
    for (const other of [
      { tid: EX.fedex.delivered, title: 'two' },
      { tid: EX.usps.delivered, title: 'one' },
    ]) {
      const r = await send('/v1/trackings/add', a.apiKey, 'k-1', JSON.stringify(other));
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: 422, status: 'fail', message: MSG.idempotencyKeyReused });
    }
    expect(await balanceCents(env, id)).toBe(before);
    expect(await trackingCount(id)).toBe(1);
    // Keys belong to one account: another account may use the same key for its own request.
    const b = await signUp(env.app);
    expect((await send('/v1/trackings/add', b.apiKey, 'k-1', JSON.stringify({ tid: EX.usps.delivered }))).status).toBe(201);
  });
});

describe('Idempotency-Key on POST /v1/trackings/import', () => {
  const csv = [
    'tid,courier,title',
    `${EX.ups.delivered},,Boots`,
    `${EX.fedex.delivered},fedex,Hat`,
    'HELLO,,unknown',
    `${EX.ups.delivered},,again`,
  ].join('\n');

  it('a replay returns the first report byte for byte and charges once', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    const before = await balanceCents(env, id);
    const first = await send('/v1/trackings/import', a.apiKey, 'import-1', csv, 'text/csv');
    expect(first.status).toBe(200);
    expect(first.body.payload).toMatchObject({ created: 2, failed: 2 });
    const again = await send('/v1/trackings/import', a.apiKey, 'import-1', csv, 'text/csv');
    expect(again.text).toBe(first.text);
    expect(await balanceCents(env, id)).toBe(before - 10);
    expect(await trackingCount(id)).toBe(2);
  });

  it('the same key with another file is refused with 422', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    expect((await send('/v1/trackings/import', a.apiKey, 'import-2', csv, 'text/csv')).status).toBe(200);
    const r = await send('/v1/trackings/import', a.apiKey, 'import-2', `${csv}\n${EX.usps.delivered},usps,more`, 'text/csv');
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(MSG.idempotencyKeyReused);
    expect(await trackingCount(id)).toBe(2);
  });
});
