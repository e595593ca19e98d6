// A courier's list comes from the assigned-shipments call, the company's from its own; paging and filters go in the body.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { envelope, startLoopbackApi, type LoopbackApi } from '../../../lib/testing/loopback-api';
import { getShipments } from './get-shipments';

let api: LoopbackApi;
beforeAll(async () => (api = await startLoopbackApi()));
afterAll(() => api.close());
beforeEach(() => {
  api.seen.length = 0;
});

describe('shipments list', () => {
  it('the company asks getshipments with paging and filters', async () => {
    api.answer = () => ({ status: 200, body: envelope(200, 'success', 'OK', [{ tid: 'SHM1' }]) });
    const list = await getShipments({ numRecords: 25, lastTid: 'SHM9', status: ['Delivered'], courier: ['dana@example.com'] }, false);
    expect(list).toEqual([{ tid: 'SHM1' }]);
    expect(api.seen[0]!.method).toBe('POST');
    expect(api.seen[0]!.url).toBe('/v1/shipment/getshipments');
    expect(JSON.parse(api.seen[0]!.body)).toEqual({
      numRecords: 25,
      lastTid: 'SHM9',
      status: ['Delivered'],
      courier: ['dana@example.com'],
    });
  });

  it('a courier asks getassigned, without empty filters; a non-list payload reads as empty', async () => {
    api.answer = () => ({ status: 200, body: envelope(200, 'success', 'OK', null) });
    expect(await getShipments({ numRecords: 10, status: [], courier: [] }, true)).toEqual([]);
    expect(api.seen[0]!.url).toBe('/v1/shipment/getassigned');
    expect(JSON.parse(api.seen[0]!.body)).toEqual({ numRecords: 10 });
  });
});
