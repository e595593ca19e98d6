// Serves each response a manifest lists from a fake carrier on loopback and reads it through the real client
// (OAuth, rate limiter, HTTP, parser), checking the result the manifest expects. Used by fixtures.test.ts (our own
// responses, in `npm test`) and by recorded-samples.shared.test.ts (third-party recordings kept outside the
// repository, run by CI with CARRIER_SAMPLES_DIR).
import fs from 'node:fs';
import path from 'node:path';
import { TRACKING_STATUSES } from '@shiptrail/contract';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CarrierClient } from '../../src/modules/carriers/carriers.ts';
import { cleanText } from '../../src/modules/carriers/http.ts';
import type { CourierSlug, TrackResult } from '../../src/modules/carriers/types.ts';
import { startFakeCarrier, type FakeCarrier } from './fake-carrier.ts';
import { clientFor } from './helpers.ts';

export type Expected = {
  result: 'tracking' | 'not_found' | 'error';
  /** The number to ask for (a stand-in is used where the response carries none). */
  tid: string;
  /** null: the response is placeholder data and only a valid status is required. */
  normalized_status: string | null;
  event_count: number;
  latest_event?: { description: string; exception_description?: string; location_display: string };
  estimated_delivery_raw?: string | null;
  /** The service the result names (decision 158); checked when given, null: the response names none. */
  service?: string | null;
  /** For errors: our classification (auth, malformed, carrier-down, not-found, ...). */
  error_kind?: string;
  /** The text the result's message must contain (already the part worth comparing). */
  error_text?: string;
};

export type ManifestCase = {
  name: string;
  file: string;
  carrier: CourierSlug;
  status: number;
  /** 'token': the body is the OAuth token endpoint's answer. */
  servedBy: 'track' | 'token';
  expected: Expected[];
};

export function readText(dir: string, rel: string): string {
  return fs.readFileSync(path.join(dir, rel), 'utf8');
}

function checkTracking(r: TrackResult, e: Expected, label: string): void {
  expect(r.ok, `${label}: ${JSON.stringify(r).slice(0, 300)}`).toBe(true);
  if (!r.ok) return;
  if (e.normalized_status) expect(r.status, label).toBe(e.normalized_status);
  else expect(TRACKING_STATUSES, label).toContain(r.status);
  expect(r.checkpoints.length, label).toBe(e.event_count);
  const latest = r.checkpoints[0]!;
  const le = e.latest_event!;
  expect(latest.message.startsWith(cleanText(le.description)), `${label}: ${latest.message}`).toBe(true);
  if (le.exception_description) expect(latest.message).toContain(cleanText(le.exception_description));
  expect(latest.location, label).toBe(le.location_display === '' ? null : le.location_display);
  for (const c of r.checkpoints) {
    expect(c.time, label).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  }
  // Expected delivery: the carrier's estimate as a day; cleared once delivered (carrier notes §6).
  const raw = e.estimated_delivery_raw ?? null;
  expect(r.expected, label).toBe(r.status === 'Delivered' || raw === null ? null : raw.slice(0, 10));
  // The normalised estimate names the same day (decision 122).
  if (r.status === 'Delivered') expect(r.estimatedDelivery ?? null, label).toBeNull();
  else if (raw !== null) expect(r.estimatedDelivery?.date, label).toBe(raw.slice(0, 10));
  if (e.service !== undefined) expect(r.service ?? null, `${label}: service`).toBe(e.service);
}

/**
 * A fake carrier on loopback for the enclosing describe block, reset before each test with a fresh client (so each
 * test goes through the token endpoint too). Read `fake` and `client` inside the tests.
 */
export function useFakeCarrier(): { readonly fake: FakeCarrier; readonly client: CarrierClient } {
  const state = {} as { fake: FakeCarrier; client: CarrierClient };
  beforeAll(async () => {
    state.fake = await startFakeCarrier();
  });
  afterAll(async () => {
    await state.fake.close();
  });
  beforeEach(() => {
    state.fake.reset();
    state.client = clientFor(state.fake.url);
  });
  return state;
}

/** One test per case, each through a fresh client (so every case also goes through the token endpoint). */
export function describeManifest(title: string, dir: string, cases: ManifestCase[]): void {
  describe(title, () => {
    const carrier = useFakeCarrier();
    for (const c of cases) {
      it(c.name, async () => {
        const body = readText(dir, c.file);
        const tids = c.expected.map((e) => e.tid);
        if (c.servedBy === 'token') carrier.fake.scriptToken(c.carrier, { status: c.status, body });
        // A multi-number body is served whole for the batch (FedEx).
        else for (const tid of tids) carrier.fake.script(c.carrier, tid, { status: c.status, body, whole: tids.length > 1 });
        const results = await carrier.client.track(c.carrier, tids);
        expect(results.length).toBe(tids.length);
        c.expected.forEach((e, i) => {
          const r = results[i]!;
          const label = `${c.name}[${i}]`;
          expect(r.tid).toBe(tids[i]);
          expect(r.courier).toBe(c.carrier);
          if (e.result === 'tracking') return checkTracking(r, e, label);
          expect(r.ok, label).toBe(false);
          if (r.ok) return;
          expect(r.error.kind, label).toBe(e.result === 'not_found' ? 'not-found' : e.error_kind);
          expect(cleanText(r.error.message), label).toContain(cleanText(e.error_text ?? ''));
        });
        // OAuth carriers went through the token endpoint.
        if (c.carrier !== 'canadapost') expect(carrier.fake.tokenRequests[c.carrier]).toBeGreaterThanOrEqual(1);
      });
    }
  });
}
