// Idempotency-Key on POST /v1/shipment/create: creating a shipment charges the account, so a retried create
// under the same key answers the first reply byte for byte and neither creates nor charges again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq } from 'drizzle-orm';
import { MSG } from '@shiptrail/contract';
import { createTestEnv, type TestEnv } from '../helpers.ts';
import { shipments } from '../../src/db/schema.ts';
import { balanceCents, userIdOf } from '../trackings/fixtures.ts';
import { company, readmeShipment } from './fixtures.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

async function create(token: string, key: string, body: unknown) {
  const res = await env.app.inject({
    method: 'POST',
    url: '/v1/shipment/create/',
    headers: { 'sm-api-token': token, 'idempotency-key': key, 'content-type': 'application/json', 'sm-http-status': 'real' },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, text: res.payload, body: res.json() };
}
async function shipmentCount(companyId: string) {
  const [r] = await env.ctx.db.select({ n: count() }).from(shipments).where(eq(shipments.companyId, companyId));
  return Number(r!.n);
}

describe('Idempotency-Key on POST /v1/shipment/create', () => {
  it('a replay, also a concurrent one, returns the first reply byte for byte: one shipment, one charge', async () => {
    const c = await company(env.app);
    const id = await userIdOf(env, c.email);
    const before = await balanceCents(env, id);
    const first = await create(c.apiKey, 'ship-1', readmeShipment());
    expect(first.status).toBe(201);
    expect(first.body.payload.tid).toMatch(/^SHM\d{12}$/);
    const again = await create(c.apiKey, 'ship-1', readmeShipment());
    expect(again.text).toBe(first.text);
    const racing = await Promise.all([1, 2, 3].map(() => create(c.apiKey, 'ship-2', readmeShipment())));
    const done = racing.filter((r) => r.status === 201);
    expect(done.length).toBeGreaterThan(0);
    for (const r of done) expect(r.text).toBe(done[0]!.text);
    for (const r of racing.filter((x) => x.status !== 201))
      expect(r.body).toMatchObject({ code: 409, message: MSG.idempotencyKeyInProgress });
    expect(await shipmentCount(id)).toBe(2);
    expect(await balanceCents(env, id)).toBe(before - 10);
  });

  it('the same key with a different request is refused with 422, and nothing is created or charged', async () => {
    const c = await company(env.app);
    const id = await userIdOf(env, c.email);
    expect((await create(c.apiKey, 'k', readmeShipment())).status).toBe(201);
    const before = await balanceCents(env, id);
    const other = await create(c.apiKey, 'k', { ...readmeShipment(), orderId: 'ANOTHER-ORDER' });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ code: 422, status: 'fail', message: MSG.idempotencyKeyReused });
    expect(await shipmentCount(id)).toBe(1);
    expect(await balanceCents(env, id)).toBe(before);
  });

  it('without a key every create is a new shipment', async () => {
    const c = await company(env.app);
    const id = await userIdOf(env, c.email);
    for (let i = 0; i < 2; i++) {
      const res = await env.app.inject({
        method: 'POST',
        url: '/v1/shipment/create',
        headers: { 'sm-api-token': c.apiKey, 'sm-http-status': 'real' },
        payload: readmeShipment(),
      });
      expect(res.statusCode).toBe(201);
    }
    expect(await shipmentCount(id)).toBe(2);
  });
});
