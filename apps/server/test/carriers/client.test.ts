// Behaviour of the carrier client through the real HTTP path against the loopback fake: constructed fixtures for
// uncovered cases, OAuth caching/single flight/refresh, batching, rate limits, 429, timeouts, hostile bodies.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { carrierConfigFromEnv, createCarrierClient } from '../../src/modules/carriers/carriers.ts';
import { startFakeCarrier, type FakeCarrier } from './fake-carrier.ts';
import { clientFor, readFixture } from './helpers.ts';

let fake: FakeCarrier;
beforeAll(async () => {
  fake = await startFakeCarrier();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

describe('constructed fixtures (cases without a recorded sample)', () => {
  it('UPS out for delivery, failed attempt (activity fallback, RDD over SDD), returned to sender', async () => {
    fake.script('ups', '1Z5R89390357567127', { status: 200, body: readFixture('ups_out_for_delivery_CONSTRUCTED.json') });
    fake.script('ups', '1Z879E930346834440', { status: 200, body: readFixture('ups_fail_attempt_CONSTRUCTED.json') });
    fake.script('ups', '1Z410E7W0392751591', { status: 200, body: readFixture('ups_exception_returned_CONSTRUCTED.json') });
    const [ofd, fail, ret] = await clientFor(fake.url).track('ups', ['1Z5R89390357567127', '1Z879E930346834440', '1Z410E7W0392751591']);
    expect(ofd?.ok && [ofd.status, ofd.expected]).toEqual(['OutForDelivery', '2025-03-02']);
    expect(fail?.ok && [fail.status, fail.expected, fail.checkpoints.map((c) => c.status)]).toEqual([
      'FailAttempt',
      '2025-03-03',
      ['FailAttempt', 'OutForDelivery', 'InTransit', 'InfoReceived'],
    ]);
    expect(ret?.ok && ret.status).toBe('Exception');
    // UPS needs one GET per number
    expect(fake.trackRequests.ups).toBe(3);
  });

  it('USPS out for delivery, Alert with an attempt code, unknown category falls back to the event code', async () => {
    fake.script('usps', '9400111206206406260787', { status: 200, body: readFixture('usps_out_for_delivery_CONSTRUCTED.json') });
    fake.script('usps', '9400111206206407628746', { status: 200, body: readFixture('usps_alert_attempt_CONSTRUCTED.json') });
    fake.script('usps', '9400111206206407628845', { status: 200, body: readFixture('usps_refused_unknown_category_CONSTRUCTED.json') });
    const rs = await clientFor(fake.url).track('usps', ['9400111206206406260787', '9400111206206407628746', '9400111206206407628845']);
    expect(rs.map((r) => r.ok && r.status)).toEqual(['OutForDelivery', 'FailAttempt', 'Exception']);
    expect(rs[0]?.ok && rs[0].checkpoints[0]!.time).toBe('2025-03-03T13:10:00.000Z');
  });

  it('USPS v3r2: one POST for a batch, v3r2 field names, per-item not found', async () => {
    fake.script('usps', '9405803699300124287899', { status: 200, body: readFixture('usps_v3r2_batch_CONSTRUCTED.json'), whole: true });
    const client = clientFor(fake.url, {
      usps: { baseUrl: fake.url, clientId: 'test-client', clientSecret: 'test-secret', api: 'v3r2', rateLimit: false },
    });
    expect(client.maxBatch('usps')).toBe(35);
    const [a, b] = await client.track('usps', ['9405803699300124287899', '9434611206206406227577']);
    expect(a?.ok && [a.status, a.expected, a.checkpoints[0]!.location]).toEqual(['InTransit', '2025-03-04', 'CEDAR RAPIDS, IA, 52404']);
    expect(!b?.ok && b?.error.kind).toBe('not-found');
    expect(fake.trackRequests.usps).toBe(1);
  });

  it('Canada Post exception in the track-v2 namespace; EDT and an unknown zone', async () => {
    fake.script('canadapost', '7035114477138472', { status: 200, body: readFixture('canadapost_exception_track_v2_CONSTRUCTED.xml') });
    const [r] = await clientFor(fake.url).track('canadapost', ['7035114477138472']);
    if (!r?.ok) throw new Error(JSON.stringify(r));
    expect(r.status).toBe('Exception');
    expect(r.expected).toBe('2025-03-05');
    expect(r.checkpoints[0]!.time).toBe('2025-03-03T10:19:57.000Z');
    // unknown zone borrows the neighbour's EDT offset
    expect(r.checkpoints[1]!.time).toBe('2025-03-01T18:34:57.000Z');
  });

  it('FedEx batch mixing found and not-found numbers, in request order', async () => {
    fake.script('fedex', '794612387705', { status: 200, body: readFixture('fedex/fedex_delivered.json') });
    fake.script('fedex', '700000000017', { status: 200, body: readFixture('fedex/fedex_not_found_sandbox_wording.json') });
    fake.script('fedex', '772899170235', { status: 200, body: readFixture('fedex/fedex_label_created.json') });
    const rs = await clientFor(fake.url).track('fedex', ['700000000017', '794612387705', '772899170235']);
    expect(rs.map((r) => (r.ok ? r.status : r.error.kind))).toEqual(['not-found', 'Delivered', 'InfoReceived']);
    expect(fake.fedexBatchSizes).toEqual([3]);
  });
});

describe('OAuth', () => {
  it('fetches one token for many concurrent calls and reuses it', async () => {
    const client = clientFor(fake.url);
    const tids = Array.from({ length: 12 }, (_, i) => `1Z5R8939035756${String(7000 + i)}`);
    await Promise.all([client.track('ups', tids.slice(0, 6)), client.track('ups', tids.slice(6))]);
    await client.track('ups', ['1Z5R89390357567127']);
    expect(fake.tokenRequests.ups).toBe(1);
    expect(fake.trackRequests.ups).toBe(13);
    // UPS requires transId and transactionSrc (carrier notes §1.3)
    expect(fake.lastHeaders.ups?.transid).toBeTruthy();
    expect(fake.lastHeaders.ups?.transactionsrc).toBe('shiptrail');
  });

  it('refreshes once on 401 and retries', async () => {
    fake.script('fedex', '794612387705', { status: 200, body: readFixture('fedex/fedex_delivered.json') });
    const client = clientFor(fake.url);
    await client.track('fedex', ['794612387705']);
    fake.revokeTokens();
    const [r] = await client.track('fedex', ['794612387705']);
    expect(r?.ok && r.status).toBe('Delivered');
    expect(fake.tokenRequests.fedex).toBe(2);
  });

  it('classifies rejected credentials as auth without retrying forever', async () => {
    const client = clientFor(fake.url, { usps: { baseUrl: fake.url, clientId: 'wrong', clientSecret: 'nope', rateLimit: false } });
    const [r] = await client.track('usps', ['9400111206206406260787']);
    expect(!r?.ok && r?.error.kind).toBe('auth');
    expect(fake.trackRequests.usps).toBe(0);
  });

  it('refuses a USPS token without the tracking scope with a clear message', async () => {
    fake.scriptToken('usps', { status: 200, body: JSON.stringify({ access_token: 'x', expires_in: 28799, scope: 'addresses prices' }) });
    const [r] = await clientFor(fake.url).track('usps', ['9400111206206406260787']);
    expect(!r?.ok && r?.error).toMatchObject({ kind: 'auth', message: expect.stringContaining('tracking') });
  });

  it('Canada Post uses Basic auth on every call (wrong password → auth)', async () => {
    const client = clientFor(fake.url, { canadapost: { baseUrl: fake.url, username: 'cp-user', password: 'bad', rateLimit: false } });
    const [r] = await client.track('canadapost', ['0073938000549297']);
    expect(!r?.ok && r?.error.kind).toBe('auth');
  });
});

describe('batching, rate limits, 429, timeouts', () => {
  it('FedEx splits into batches of at most 30 and returns one result per number', async () => {
    const client = clientFor(fake.url);
    const tids = Array.from({ length: 65 }, (_, i) => String(100000000000 + i));
    const rs = await client.track('fedex', tids);
    expect(rs.map((r) => r.tid)).toEqual(tids);
    expect(rs.every((r) => !r.ok && r.error.kind === 'not-found')).toBe(true);
    expect([...fake.fedexBatchSizes].sort((a, b) => b - a)).toEqual([30, 30, 5]);
  });

  it('honours a per-carrier rate limit', async () => {
    const client = clientFor(fake.url, {}, { rateLimit: { limit: 2, intervalMs: 300 } });
    const t0 = Date.now();
    const rs = await client.track('canadapost', [
      '0073938000549297',
      '7035114477138472',
      '4002847016405018',
      '1371134583769923',
      '1680678172650919',
    ]);
    expect(rs).toHaveLength(5);
    // 5 requests at 2 per 300 ms need at least two further windows
    expect(Date.now() - t0).toBeGreaterThanOrEqual(580);
  });

  it('returns rate-limited instead of blocking when the wait exceeds maxWaitMs', async () => {
    const client = clientFor(fake.url, {}, { rateLimit: { limit: 1, intervalMs: 60_000, maxWaitMs: 100 } });
    const rs = await client.track('canadapost', ['0073938000549297', '7035114477138472']);
    expect(rs[0]?.ok === false && rs[0].error.kind).toBe('not-found');
    expect(rs[1]?.ok === false && rs[1].error).toMatchObject({ kind: 'rate-limited' });
    expect(rs[1]?.ok === false && rs[1].error.retryAfterMs).toBeGreaterThan(50_000);
  });

  it('429 + Retry-After: rate-limited with retryAfterMs, and the limiter pauses further calls', async () => {
    fake.script('usps', '9400111206206406260787', {
      status: 429,
      headers: { 'retry-after': '30' },
      body: JSON.stringify({ apiVersion: '/tracking/v3', error: { code: '429', message: 'Exceeded quota limit.', errors: [] } }),
    });
    const client = clientFor(fake.url);
    const [r] = await client.track('usps', ['9400111206206406260787']);
    expect(!r?.ok && r?.error).toMatchObject({ kind: 'rate-limited', retryAfterMs: 30_000 });
    const before = fake.trackRequests.usps;
    const [r2] = await client.track('usps', ['9400111206206407628746']);
    expect(!r2?.ok && r2?.error.kind).toBe('rate-limited');
    expect(fake.trackRequests.usps).toBe(before);
  });

  it('a carrier that does not answer in time is carrier-down', async () => {
    fake.script('canadapost', '0073938000549297', { status: 200, body: '<x/>', delayMs: 2000 });
    const client = clientFor(fake.url, { timeoutMs: 200 });
    const [r] = await client.track('canadapost', ['0073938000549297']);
    expect(!r?.ok && r?.error).toMatchObject({ kind: 'carrier-down', message: expect.stringContaining('200 ms') });
  });

  it('an unreachable carrier is carrier-down', async () => {
    const client = clientFor('http://127.0.0.1:1');
    const [r] = await client.track('ups', ['1Z5R89390357567127']);
    expect(!r?.ok && r?.error.kind).toBe('carrier-down');
  });
});

describe('untrusted bodies never crash', () => {
  const cases: Array<[string, 'ups' | 'usps' | 'fedex' | 'canadapost', string, Parameters<FakeCarrier['script']>[2], string]> = [
    ['invalid JSON', 'ups', '1Z5R89390357567127', { status: 200, body: '{"trackResponse": {' }, 'malformed'],
    [
      'HTML error page on 502',
      'usps',
      '9400111206206406260787',
      { status: 502, body: '<html>Bad gateway</html>', headers: { 'content-type': 'text/html' } },
      'carrier-down',
    ],
    ['JSON of the wrong shape', 'fedex', '986578788855', { status: 200, body: '[1,2,3]' }, 'malformed'],
    [
      'null everywhere',
      'ups',
      '1Z879E930346834440',
      { status: 200, body: '{"trackResponse":{"shipment":[{"package":[{"activity":[null,{"status":null,"date":7}]}]}]}}' },
      'ok',
    ],
    [
      'a 3 MB body',
      'usps',
      '9400111206206407628746',
      { status: 200, body: JSON.stringify({ junk: 'x'.repeat(3 * 1024 * 1024) }) },
      'malformed',
    ],
    [
      'a gzip bomb (10 MB of zeros)',
      'fedex',
      '477179081230',
      { status: 200, body: Buffer.alloc(10 * 1024 * 1024, 48), gzip: true },
      'malformed',
    ],
    [
      'XML with a DTD',
      'canadapost',
      '0073938000549297',
      { status: 200, body: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><tracking-detail>&a;</tracking-detail>' },
      'malformed',
    ],
    ['not XML at all', 'canadapost', '7035114477138472', { status: 200, body: '{"json":"instead"}' }, 'malformed'],
    ['deeply nested JSON', 'usps', '9400111206206407628845', { status: 200, body: '['.repeat(200_000) + ']'.repeat(200_000) }, 'malformed'],
  ];
  for (const [label, courier, tid, script, want] of cases) {
    it(label, async () => {
      fake.script(courier, tid, script);
      const [r] = await clientFor(fake.url).track(courier, [tid]);
      expect(r?.tid).toBe(tid);
      if (want === 'ok') expect(r?.ok).toBe(true);
      else expect(!r?.ok && r?.error.kind, JSON.stringify(r).slice(0, 200)).toBe(want);
    });
  }

  it('a gzip-encoded FedEx body is decoded', async () => {
    fake.script('fedex', '794612387705', { status: 200, body: readFixture('fedex/fedex_delivered.json'), gzip: true });
    const [r] = await clientFor(fake.url).track('fedex', ['794612387705']);
    expect(r?.ok && r.status).toBe('Delivered');
  });
});

describe('configuration', () => {
  it('reads the env vars; defaults are the production hosts', () => {
    const cfg = carrierConfigFromEnv({
      UPS_CLIENT_ID: 'a',
      UPS_CLIENT_SECRET: 'b',
      CANADAPOST_BASE_URL: 'https://ct.soa-gw.canadapost.ca',
      USPS_RATE_LIMIT: '30/3600',
      FEDEX_RATE_LIMIT: 'off',
    });
    expect(cfg.ups).toMatchObject({ baseUrl: 'https://onlinetools.ups.com', clientId: 'a', clientSecret: 'b' });
    expect(cfg.usps.baseUrl).toBe('https://apis.usps.com');
    expect(cfg.usps.rateLimit).toEqual({ limit: 30, intervalMs: 3_600_000 });
    expect(cfg.fedex).toMatchObject({ baseUrl: 'https://apis.fedex.com', rateLimit: false });
    expect(cfg.canadapost.baseUrl).toBe('https://ct.soa-gw.canadapost.ca');
  });

  it('a carrier without credentials uses the sandbox when there is one, else says it is not configured', async () => {
    const withSandbox = createCarrierClient(carrierConfigFromEnv({ UPS_CLIENT_ID: 'a', UPS_CLIENT_SECRET: 'b' }, 'http://127.0.0.1:9'));
    expect(withSandbox.isSandbox('ups')).toBe(false);
    expect(withSandbox.isSandbox('fedex')).toBe(true);
    expect(withSandbox.maxBatch('fedex')).toBe(30);
    const none = createCarrierClient(carrierConfigFromEnv({}));
    expect(none.isSandbox('usps')).toBe(false);
    const [r] = await none.track('usps', ['9400111206206406260787']);
    expect(!r?.ok && r?.error).toMatchObject({ kind: 'auth', message: expect.stringContaining('not configured') });
  });
});
