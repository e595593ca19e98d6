// The web side of live updates against a real event stream on loopback: frames become cache
// invalidations, bursts merge, and a dropped stream reconnects with Last-Event-ID.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { API_TOKEN_HEADER } from '@shiptrail/contract';
import { followLive, patchStatus, reconnectDelayMs, staleKeysFor, type LiveEvent } from './live';
import { setSession } from './session';

describe('staleKeysFor', () => {
  it('maps each event to the queries it makes stale', () => {
    expect(staleKeysFor({ kind: 'tracking', accountId: 'a', trackingId: 't', tid: 'X', status: 'Delivered', statusChanged: true })).toEqual(
      [['trackings'], ['user-info'], ['notifications']],
    );
    expect(staleKeysFor({ kind: 'balance', accountId: 'a' })).toContainEqual(['user-info']);
    // The day's plan takes a created, given or taken shipment in (decision 125): the plan page refetches.
    expect(
      staleKeysFor({
        kind: 'shipment',
        accountId: 'a',
        courierId: null,
        shipmentId: 's',
        tid: 'X',
        status: 'InfoReceived',
        statusChanged: false,
      }),
    ).toContainEqual(['plans']);
    expect(staleKeysFor({ kind: 'position', accountId: 'a', courierId: 'c' })).toContainEqual(['members']);
    expect(staleKeysFor({ kind: 'reset' })).toBe('all');
  });
  it('backs off from about a second to at most about 30 s', () => {
    expect(reconnectDelayMs(0, () => 0.5)).toBe(1000);
    expect(reconnectDelayMs(3, () => 0.5)).toBe(8000);
    expect(reconnectDelayMs(20, () => 1)).toBeLessThanOrEqual(37_500);
  });
});

describe('patchStatus', () => {
  it('sets the new status on every cached list and record of that number, and leaves the rest as they were', () => {
    const qc = new QueryClient();
    const a = { tid: 'A1', status: 'InTransit', title: 'sofa' };
    const b = { tid: 'B2', status: 'InTransit' };
    qc.setQueryData(['trackings', { numRecords: 10 }], [a, b]);
    qc.setQueryData(['trackings', { numRecords: 50 }], [b]);
    qc.setQueryData(['trackings', 'detail', 'A1'], a);
    qc.setQueryData(['shipments', 'company', {}], [{ tid: 'A1', status: 'InTransit' }]);
    const untouched = qc.getQueryData(['trackings', { numRecords: 50 }]);
    patchStatus(qc, 'trackings', 'A1', 'Delivered');
    expect(qc.getQueryData(['trackings', { numRecords: 10 }])).toEqual([{ tid: 'A1', status: 'Delivered', title: 'sofa' }, b]);
    expect(qc.getQueryData(['trackings', 'detail', 'A1'])).toEqual({ tid: 'A1', status: 'Delivered', title: 'sofa' });
    expect(qc.getQueryData(['trackings', { numRecords: 50 }])).toBe(untouched);
    // A shipment with the same number is another parcel: only the root asked for is touched.
    expect(qc.getQueryData(['shipments', 'company', {}])).toEqual([{ tid: 'A1', status: 'InTransit' }]);
  });
});

describe('followLive', () => {
  let server: http.Server;
  let base = '';
  const requests: http.IncomingHttpHeaders[] = [];
  let onRequest: (res: http.ServerResponse, n: number) => void = () => {};
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': connected\n\n');
      onRequest(res, requests.length);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });

  it('invalidates the queries of each event and reconnects with Last-Event-ID after the stream drops', async () => {
    setSession({ token: 'sess_live', version: '' });
    const qc = new QueryClient();
    let trackingsFetches = 0;
    // An observed query, as a mounted table's is: invalidation refetches it.
    const observer = new QueryObserver(qc, { queryKey: ['trackings', 'list'], queryFn: async () => ++trackingsFetches });
    const unobserve = observer.subscribe(() => {});
    await expect.poll(() => trackingsFetches).toBe(1);
    const seen: LiveEvent[] = [];
    const tracking = { kind: 'tracking', accountId: 'a', trackingId: 't', tid: '1Z', status: 'InTransit', statusChanged: true };
    onRequest = (res, n) => {
      if (n === 1) {
        // A burst: two events, one refetch.
        res.write(`id: e-1\ndata: ${JSON.stringify(tracking)}\n\n`);
        res.write(`id: e-2\ndata: ${JSON.stringify({ ...tracking, status: 'Delivered' })}\n\n`);
        setTimeout(() => res.destroy(), 400);
      } else res.write(`id: e-3\ndata: ${JSON.stringify({ kind: 'alert', accountId: 'a' })}\n\n`);
    };
    const stop = followLive(qc, { path: `${base}/v1/live`, mergeMs: 50, onEvent: (e) => seen.push(e) });
    try {
      await expect.poll(() => trackingsFetches, { timeout: 2000 }).toBe(2);
      await expect.poll(() => requests.length, { timeout: 5000 }).toBe(2);
      await expect.poll(() => seen.map((e) => e.kind), { timeout: 2000 }).toEqual(['tracking', 'tracking', 'alert']);
      expect(requests[0]![API_TOKEN_HEADER]).toBe('sess_live');
      expect(requests[0]!['last-event-id']).toBeUndefined();
      expect(requests[1]!['last-event-id']).toBe('e-2');
      expect(trackingsFetches).toBe(2);
    } finally {
      stop();
      unobserve();
      setSession(null);
    }
  });
  it("a burst of shipment events refetches the list at once and the map's markers once, after the longer window", async () => {
    setSession({ token: 'sess_live', version: '' });
    const qc = new QueryClient();
    let listFetches = 0;
    let markerFetches = 0;
    const list = new QueryObserver(qc, { queryKey: ['shipments', 'list'], queryFn: async () => ++listFetches });
    const markers = new QueryObserver(qc, {
      queryKey: ['shipments', 'markers', ''],
      queryFn: async () => [{ tid: 'SHM1', status: 'InTransit', n: ++markerFetches }],
    });
    const offList = list.subscribe(() => {});
    const offMarkers = markers.subscribe(() => {});
    await expect.poll(() => [listFetches, markerFetches]).toEqual([1, 1]);
    const shipment = {
      kind: 'shipment',
      accountId: 'a',
      courierId: null,
      shipmentId: 's',
      tid: 'SHM1',
      status: 'OutForDelivery',
      statusChanged: true,
    };
    let stream: http.ServerResponse | undefined;
    onRequest = (res) => (stream = res);
    const stop = followLive(qc, { path: `${base}/v1/live`, mergeMs: 50, heavyMergeMs: 3000 });
    try {
      await expect.poll(() => stream !== undefined).toBe(true);
      // Three events, each after the list refetched for the one before: three list refetches, the markers none yet.
      for (let i = 0; i < 3; i++) {
        stream!.write(`id: s-${i}\ndata: ${JSON.stringify(shipment)}\n\n`);
        await expect.poll(() => listFetches, { timeout: 4000 }).toBe(2 + i);
      }
      // The status is in the markers before their refetch.
      expect((qc.getQueryData(['shipments', 'markers', '']) as Array<{ status: string }>)[0]!.status).toBe('OutForDelivery');
      expect(markerFetches).toBe(1);
      // Then one refetch of the markers for the three, when the longer window ends; and no more.
      await expect.poll(() => markerFetches, { timeout: 10_000 }).toBe(2);
      await new Promise((r) => setTimeout(r, 300));
      expect(markerFetches).toBe(2);
    } finally {
      stop();
      offList();
      offMarkers();
      setSession(null);
    }
  }, 20_000);
});
