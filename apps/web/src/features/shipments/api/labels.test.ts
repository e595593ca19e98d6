// The print page's selection and the label download: a PDF on success, the server's words on refusal.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { envelope, startLoopbackApi, type LoopbackApi } from '../../../lib/testing/loopback-api';
import { ApiError } from '../../../lib/api-client';
import { setSession } from '../../../lib/session';
import { fetchLabels, labelsPath, tidsFromSearch } from './labels';

let api: LoopbackApi;
beforeAll(async () => (api = await startLoopbackApi()));
afterAll(() => api.close());
beforeEach(() => {
  api.seen.length = 0;
  setSession({ token: 'sess_test', version: 'v' });
});

describe('labels', () => {
  it('reads the chosen shipments from the address, once each', () => {
    expect(tidsFromSearch(new URLSearchParams('tids=SHM1,SHM2&tids=SHM1, SHM3,'))).toEqual(['SHM1', 'SHM2', 'SHM3']);
    expect(tidsFromSearch(new URLSearchParams(''))).toEqual([]);
    expect(labelsPath(['SHM1', 'SHM2'])).toBe('/v1/shipment/labels?tids=SHM1%2CSHM2');
  });

  it('fetches the PDF with the session header', async () => {
    api.answer = () => ({ status: 200, body: '%PDF-1.7 fake' });
    // The loopback answers JSON by default; a PDF needs its own content type.
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const res = await realFetch(input, init);
      return new Response(await res.arrayBuffer(), { status: res.status, headers: { 'content-type': 'application/pdf' } });
    }) as typeof fetch;
    try {
      const blob = await fetchLabels(['SHM1', 'SHM2']);
      expect(await blob.text()).toBe('%PDF-1.7 fake');
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(api.seen[0]!.url).toBe('/v1/shipment/labels?tids=SHM1%2CSHM2');
    expect(api.seen[0]!.headers['sm-api-token']).toBe('sess_test');
  });

  it('a refusal becomes an error with the server message', async () => {
    api.answer = () => ({ status: 200, body: envelope(404, 'fail', 'Shipment not found', null) });
    const err = await fetchLabels(['NOPE']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe('Shipment not found');
    expect((err as ApiError).code).toBe(404);
  });
});
