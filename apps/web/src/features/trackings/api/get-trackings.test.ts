// The trackings list's paging and filter parameters, as the server receives them.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { envelope, startLoopbackApi, type LoopbackApi } from '../../../lib/testing/loopback-api';
import { getTrackings } from './get-trackings';

let api: LoopbackApi;
beforeAll(async () => (api = await startLoopbackApi()));
afterAll(() => api.close());
beforeEach(() => {
  api.seen.length = 0;
});

describe('trackings list paging and filters', () => {
  it('asks for the page size, the last number seen and the filters as comma lists', async () => {
    api.answer = () => ({ status: 200, body: envelope(200, 'success', 'OK', [{ tid: 'A' }]) });
    const list = await getTrackings({ numRecords: 25, lastTid: '1Z LAST', status: ['Delivered', 'InTransit'], courier: ['ups'] });
    expect(list).toEqual([{ tid: 'A' }]);
    const q = new URL(api.seen[0]!.url, api.base).searchParams;
    expect(Object.fromEntries(q)).toEqual({ numRecords: '25', lastTid: '1Z LAST', status: 'Delivered,InTransit', courier: 'ups' });
  });

  it('the first page sends no lastTid and no empty filters; a non-list payload reads as empty', async () => {
    api.answer = () => ({ status: 200, body: envelope(200, 'success', 'OK', null) });
    expect(await getTrackings({ numRecords: 10, status: [], courier: [] })).toEqual([]);
    expect(new URL(api.seen[0]!.url, api.base).search).toBe('?numRecords=10');
  });
});
