// A shipment's checkpoints are listed by their own time, newest first, not in the order they were entered: a
// courier who records a stop late (or a client that sends yesterday's scan) must not put it on top.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestEnv, type TestEnv } from '../helpers.ts';
import { company, createShipment } from './fixtures.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('checkpoint order', () => {
  it('lists checkpoints by their time, newest first, in the shipment, the list and the public page', async () => {
    const c = await company(env.app);
    const s = await createShipment(env.app, c.apiKey);
    const at = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
    const update = (status: string, time: string) =>
      call(env.app, 'POST', '/v1/shipment/update', { token: c.apiKey, body: { tid: s.tid, status, location: status, time } });
    // Entered in this order; happened in the order InfoReceived (created), InTransit, OutForDelivery.
    expect((await update('OutForDelivery', at(20))).statusCode).toBe(200);
    const last = await update('InTransit', at(10));
    const order = (cps: { status: string }[]) => cps.map((x) => x.status);
    expect(order(last.body.payload.checkpoints)).toEqual(['OutForDelivery', 'InTransit', 'InfoReceived']);
    // The status is the checkpoint entered last (the spec), and lastCheckPoint agrees with it (the original SDK
    // reads the update it sent back there).
    expect(last.body.payload.status).toBe('InTransit');
    expect(last.body.payload.lastCheckPoint.status).toBe('InTransit');

    const list = await call(env.app, 'POST', '/v1/shipment/getshipments', { token: c.apiKey, body: {} });
    expect(order(list.body.payload[0].checkpoints)).toEqual(['OutForDelivery', 'InTransit', 'InfoReceived']);

    const info = await call(env.app, 'GET', '/v1/user/info', { token: c.apiKey });
    const pub = await call(env.app, 'GET', `/v1/track/${info.body.payload.profile.uid}_${s.tid}`);
    const shown = pub.body.payload.find?.((x: { tid: string }) => x.tid === s.tid) ?? pub.body.payload;
    expect(order(shown.checkpoints)).toEqual(['OutForDelivery', 'InTransit', 'InfoReceived']);
    expect(shown.lastCheckPoint.status).toBe('InTransit');
  });
});
