// Third-party recordings of the carriers' APIs (real captures, sandbox captures, official examples and other projects'
// test fixtures) kept outside the repository, in ../shared/carriers/samples with their MANIFEST.json. Not part of
// `npm test` (a fresh clone has no ../shared): `npm run check:carrier-samples` runs it with CARRIER_SAMPLES_DIR, and
// CI runs that command. The adapters must read these exactly as they read our own fixtures.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanText } from '../../src/modules/carriers/http.ts';
import type { CourierSlug } from '../../src/modules/carriers/types.ts';
import { describeManifest, type ManifestCase } from './manifest-check.ts';

const dir = process.env.CARRIER_SAMPLES_DIR;
if (!dir) throw new Error('CARRIER_SAMPLES_DIR must name the folder of the recorded samples (npm run check:carrier-samples sets it).');

type Recorded = {
  result: 'tracking' | 'not_found' | 'error';
  tracking_number: string | null;
  normalized_status: string | null;
  event_count: number;
  latest_event?: { description: string; exception_description?: string; location_display: string };
  estimated_delivery_raw?: string | null;
  error_message?: string;
  error_detail?: string;
};
type Sample = { file: string; carrier: CourierSlug; http_status: number | null; expected: Recorded | Recorded[] };
const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'MANIFEST.json'), 'utf8')) as { samples: Sample[] };

// Numbers for samples that carry none (error bodies) or a placeholder.
const STAND_IN: Record<CourierSlug, string> = {
  ups: '1Z5R89390357567127',
  usps: '9400111206206406260787',
  fedex: '986578788855',
  canadapost: '0073938000549297',
};
// HTTP status for recordings made without one: Canada Post answers 4xx with <messages> (carrier notes §4.4); the UPS
// ones are an auth error and an invalid request (§1.5).
const STATUS_FOR: Record<string, number> = {
  'ups_v1_error_auth_250003.json': 401,
  'ups_v1_error_invalid_inquiry_TV1002.json': 400,
  'canadapost_not_found_004.xml': 404,
  'usps_oauth_error_invalid_client.json': 401,
};
// Our classification of the request-level error samples (the manifest gives no kind).
const ERROR_KIND: Record<string, string> = {
  'fedex_track_error_400_tracking_number_empty.json': 'malformed',
  'fedex_track_error_401_openapi_example.json': 'auth',
  'fedex_track_error_403_openapi_example.json': 'auth',
  'fedex_track_error_404_openapi_example.json': 'carrier-down',
  'fedex_track_error_500_openapi_example.json': 'carrier-down',
  'fedex_track_error_503_openapi_example.json': 'carrier-down',
  'ups_v1_error_auth_250003.json': 'auth',
  'ups_v1_error_invalid_inquiry_TV1002.json': 'not-found',
  'usps_oauth_error_invalid_client.json': 'auth',
  'usps_v3_error_401_invalid_client_app_real.json': 'auth',
};
// Placeholder examples whose status the manifest leaves open: only a valid status is required of them.
const OPEN_STATUS = new Set(['fedex_track_openapi_example_plus_notfound.json', 'ups_v1_openapi_placeholder_example.json']);

const cases: ManifestCase[] = manifest.samples.map((s) => {
  const name = s.file.split('/').pop()!;
  const expected = (Array.isArray(s.expected) ? s.expected : [s.expected]).map((e) => {
    const n = e.tracking_number;
    if (!e.normalized_status && e.result === 'tracking' && !OPEN_STATUS.has(name)) throw new Error(`${name}: no expected status`);
    return {
      result: e.result,
      tid: n && n !== 'string' ? n : STAND_IN[s.carrier],
      normalized_status: e.normalized_status,
      event_count: e.event_count,
      latest_event: e.latest_event,
      estimated_delivery_raw: e.estimated_delivery_raw,
      error_kind: ERROR_KIND[name],
      error_text:
        e.result === 'not_found'
          ? cleanText(e.error_message || e.error_detail || '').slice(0, 30)
          : cleanText(e.error_message ?? '').slice(0, 40),
    };
  });
  return {
    name,
    file: s.file.replace(/^samples\//, ''),
    carrier: s.carrier,
    status: s.http_status ?? STATUS_FOR[name] ?? 200,
    servedBy: name === 'usps_oauth_error_invalid_client.json' ? 'token' : 'track',
    expected,
  };
});

describe('the recorded samples manifest', () => {
  it('lists the 38 samples', () => {
    expect(cases.length).toBe(38);
  });
});

describeManifest('recorded samples (CARRIER_SAMPLES_DIR/MANIFEST.json)', dir, cases);
