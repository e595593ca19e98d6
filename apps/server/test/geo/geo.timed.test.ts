import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEO_MESSAGES } from '@shiptrail/contract';
import { offlineDataLoaded } from '../../src/modules/geo/offline.ts';
import { call, createTestEnv, type TestEnv } from '../helpers.ts';
import { onLoopback, type Loopback } from '../loopback.ts';
import { company, courier, createShipment, readmeShipment } from '../shipments/fixtures.ts';

/** The README shipment with the coordinates taken out (and ZIPs the offline data knows). */
function shipmentWithoutCoordinates(originZip = '90403', destinationZip = 'M5V 3L9') {
  const s = readmeShipment();
  return {
    ...s,
    origin: { ...s.origin, lat: null, long: null, zip: originZip },
    destination: { ...s.destination, lat: null, long: null, zip: destinationZip, country: 'Canada', state: 'ON' },
  };
}

describe('geocoding, offline (no GEOCODER_URL)', () => {
  let env: TestEnv;
  let token: string;
  beforeAll(async () => {
    env = await createTestEnv();
    token = (await company(env.app)).session;
  });
  afterAll(async () => {
    await env?.close();
  });

  it('does not read the ZIP data set until the first lookup', async () => {
    // The app is built and serving; only a geocoding call loads the 5 MB data set.
    expect((await call(env.app, 'GET', '/v1/user/info', { token })).statusCode).toBe(200);
    expect(offlineDataLoaded()).toBe(false);
    await call(env.app, 'GET', '/v1/user/geo/lookup?zip=90210', { token });
    expect(offlineDataLoaded()).toBe(true);
  });

  it('looks a US ZIP (ZIP+4 too) and a Canadian postal code up: city, state, coordinates', async () => {
    const us = await call(env.app, 'GET', '/v1/user/geo/lookup?zip=90210-1234', { token });
    expect(us.statusCode).toBe(200);
    expect(us.body.payload).toMatchObject({ city: 'Beverly Hills', state: 'CA', zip: '90210', country: 'US' });
    expect(us.body.payload.lat).toBeCloseTo(34.09, 1);
    expect(us.body.payload.long).toBeCloseTo(-118.41, 1);
    const ca = await call(env.app, 'GET', '/v1/user/geo/lookup?zip=m5v%203l9', { token });
    expect(ca.body.payload).toMatchObject({ city: 'Downtown Toronto', state: 'ON', zip: 'M5V', country: 'CA' });
    // A country that does not match the code is not a match.
    const wrong = await call(env.app, 'GET', '/v1/user/geo/lookup?zip=90210&country=Canada', { token });
    expect(wrong.statusCode).toBe(404);
  });

  it('answers a person-readable 404 for an unknown code and 400 for none; needs a signed-in caller', async () => {
    const unknown = await call(env.app, 'GET', '/v1/user/geo/lookup?zip=00000', { token });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body.message).toBe(GEO_MESSAGES.zipNotFound);
    const junk = await call(env.app, 'GET', '/v1/user/geo/lookup?zip=hello', { token });
    expect(junk.statusCode).toBe(404);
    const none = await call(env.app, 'GET', '/v1/user/geo/lookup', { token });
    expect(none.statusCode).toBe(400);
    expect(none.body.message).toBe(GEO_MESSAGES.zipRequired);
    const anon = await call(env.app, 'GET', '/v1/user/geo/lookup?zip=90210');
    expect(anon.statusCode).toBe(401);
    const short = await call(env.app, 'GET', '/v1/user/geo/autocomplete?q=a', { token });
    expect(short.statusCode).toBe(400);
    expect(short.body.message).toBe(GEO_MESSAGES.queryRequired);
  });

  it('suggests places for a ZIP prefix, a city prefix (with an optional state) and a postal-code prefix', async () => {
    const zip = await call(env.app, 'GET', '/v1/user/geo/autocomplete?q=902&limit=5', { token });
    expect(zip.statusCode).toBe(200);
    expect(zip.body.payload).toHaveLength(5);
    for (const p of zip.body.payload) expect(p.zip.startsWith('902')).toBe(true);
    const city = await call(env.app, 'GET', '/v1/user/geo/autocomplete?q=beverly%20hi', { token });
    expect(city.body.payload.map((p: { city: string; state: string }) => `${p.city}, ${p.state}`)).toContain('Beverly Hills, CA');
    const withState = await call(env.app, 'GET', '/v1/user/geo/autocomplete?q=Springfield,%20IL', { token });
    expect(withState.body.payload).toHaveLength(1);
    expect(withState.body.payload[0]).toMatchObject({ city: 'Springfield', state: 'IL', country: 'US' });
    const fsa = await call(env.app, 'GET', '/v1/user/geo/autocomplete?q=M5V', { token });
    expect(fsa.body.payload[0]).toMatchObject({ zip: 'M5V', state: 'ON', country: 'CA' });
    const nothing = await call(env.app, 'GET', '/v1/user/geo/autocomplete?q=zzzzqq', { token });
    expect(nothing.body.payload).toEqual([]);
  });

  it('gives origin and destination coordinates at create and edit when they came without; keeps given ones', async () => {
    const s = await createShipment(env.app, token, shipmentWithoutCoordinates());
    const origin = s.origin as { lat: number; long: number };
    const destination = s.destination as { lat: number; long: number };
    expect(origin.lat).toBeCloseTo(34.03, 1); // 90403, Santa Monica
    expect(origin.long).toBeCloseTo(-118.49, 1);
    expect(destination.lat).toBeCloseTo(43.65, 1); // M5V, Toronto
    const given = await createShipment(env.app, token, readmeShipment());
    expect(given.origin).toMatchObject({ lat: 34.032016, long: -118.482805 });
    const edit = await call(env.app, 'POST', '/v1/shipment/edit', {
      token,
      body: { tid: given.tid, destination: { address1: '1 Main St', city: 'Beverly Hills', zip: '90210', lat: null, long: null } },
    });
    expect(edit.statusCode).toBe(200);
    expect(edit.body.payload.destination.lat).toBeCloseTo(34.09, 1);
    expect(edit.body.payload.origin).toMatchObject({ lat: 34.032016, long: -118.482805 });
  });

  it('keeps when a courier reported their position (the couriers map shows the time of the fix)', async () => {
    const k = await courier(env.app, token);
    const before = await call(env.app, 'POST', '/v1/user/general/getmembers', { token });
    expect(before.body.payload.find((m: { uid: string }) => m.uid === k.uid)).toMatchObject({ geo: null, geoAt: null });
    const t0 = Date.now();
    expect(
      (await call(env.app, 'POST', '/v1/user/general/position', { token: k.session, body: { lat: 41.88, lng: -87.63 } })).statusCode,
    ).toBe(200);
    const after = await call(env.app, 'POST', '/v1/user/general/getmembers', { token });
    const m = after.body.payload.find((x: { uid: string }) => x.uid === k.uid);
    expect(m.geo).toEqual({ lat: 41.88, lng: -87.63 });
    expect(Date.parse(m.geoAt)).toBeGreaterThanOrEqual(t0 - 1000);
  });

  it('creates the shipment without coordinates when the address cannot be placed', async () => {
    const s = await createShipment(env.app, token, shipmentWithoutCoordinates('00000', 'ZZ 99'));
    expect(s.origin).toMatchObject({ zip: '00000', lat: null, long: null });
    expect(s.destination).toMatchObject({ lat: null, long: null });
  });
});

/** A Nominatim-compatible fake on loopback: records each request, answers by a per-test script. */
interface Seen {
  at: number;
  url: URL;
  userAgent: string | undefined;
}
function fakeNominatim() {
  const seen: Seen[] = [];
  const answered = { count: 0 };
  let answer: (url: URL) => { status?: number; delayMs?: number; body: unknown } = () => ({ body: [] });
  let loopback: Loopback | undefined;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    seen.push({ at: Date.now(), url, userAgent: req.headers['user-agent'] });
    const a = answer(url);
    setTimeout(() => {
      if (res.destroyed) return;
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.body));
      answered.count++;
    }, a.delayMs ?? 0);
  });
  return {
    seen,
    answered,
    server,
    respond(fn: typeof answer) {
      answer = fn;
    },
    async start() {
      loopback = await onLoopback(server);
      return loopback.url;
    },
    close: () => loopback?.close(),
  };
}

const whiteHouse = {
  lat: '38.8976633',
  lon: '-77.0365739',
  display_name: 'White House, 1600, Pennsylvania Avenue Northwest, Washington, District of Columbia, 20500, United States',
  address: {
    house_number: '1600',
    road: 'Pennsylvania Avenue Northwest',
    city: 'Washington',
    state: 'District of Columbia',
    'ISO3166-2-lvl4': 'US-DC',
    postcode: '20500',
    country: 'United States',
    country_code: 'us',
  },
};

describe('geocoding through a Nominatim-compatible service (GEOCODER_URL)', () => {
  const fake = fakeNominatim();
  let env: TestEnv;
  let token: string;
  const SPACING_MS = 300;
  const TIMEOUT_MS = 600;
  beforeAll(async () => {
    const url = await fake.start();
    env = await createTestEnv({
      GEOCODER_URL: url,
      GEOCODER_RATE_LIMIT: `1/${SPACING_MS / 1000}`,
      GEOCODER_TIMEOUT_MS: String(TIMEOUT_MS),
    });
    token = (await company(env.app)).session;
  });
  afterAll(async () => {
    await env?.close();
    await fake.close();
  });

  it("maps the service's answers to places (two-letter states) and names itself", async () => {
    fake.respond(() => ({ body: [whiteHouse] }));
    const r = await call(env.app, 'GET', '/v1/user/geo/autocomplete?q=1600%20Pennsylvania', { token });
    expect(r.statusCode).toBe(200);
    expect(r.body.payload).toEqual([
      {
        label: whiteHouse.display_name,
        address1: '1600 Pennsylvania Avenue Northwest',
        city: 'Washington',
        state: 'DC',
        zip: '20500',
        country: 'US',
        lat: 38.8976633,
        long: -77.0365739,
      },
    ]);
    const last = fake.seen.at(-1)!;
    expect(last.url.pathname).toBe('/search');
    expect(last.url.searchParams.get('q')).toBe('1600 Pennsylvania');
    expect(last.url.searchParams.get('format')).toBe('jsonv2');
    expect(last.url.searchParams.get('countrycodes')).toBe('us,ca');
    expect(last.userAgent).toMatch(/^Shiptrail geocoder/);
  });

  it('caches answers: the same question asked twice reaches the service once', async () => {
    fake.respond(() => ({ body: [whiteHouse] }));
    const before = fake.seen.length;
    const a = await call(env.app, 'GET', '/v1/user/geo/autocomplete?q=cache%20me', { token });
    const b = await call(env.app, 'GET', '/v1/user/geo/autocomplete?q=cache%20me', { token });
    expect(b.body.payload).toEqual(a.body.payload);
    expect(fake.seen.length - before).toBe(1);
  });

  it('spaces its requests by the rate limit, however many arrive at once', async () => {
    fake.respond(() => ({ body: [whiteHouse] }));
    await new Promise((r) => setTimeout(r, SPACING_MS)); // the previous test's slot has passed
    const before = fake.seen.length;
    const t0 = Date.now();
    await Promise.all(
      ['rate one', 'rate two'].map((q) => call(env.app, 'GET', `/v1/user/geo/autocomplete?q=${encodeURIComponent(q)}`, { token })),
    );
    const times = fake.seen.slice(before).map((s) => s.at);
    expect(times).toHaveLength(2);
    // From when both were asked, not from the first one's arrival: a busy machine can deliver the first one late
    // and so shorten the gap between arrivals (249 ms was seen), but it cannot make the second one early.
    expect(times[1]! - t0).toBeGreaterThanOrEqual(SPACING_MS - 20);
  });

  it('answers from the offline data when the service is too slow, fails, or when the wait for a turn is too long', async () => {
    fake.respond(() => ({ delayMs: 3000, body: [] }));
    // By order, not by the clock (decision 106): the answer came before the service's.
    const answeredBefore = fake.answered.count;
    const slow = await call(env.app, 'GET', '/v1/user/geo/lookup?zip=90210', { token });
    expect(fake.answered.count).toBe(answeredBefore);
    expect(slow.statusCode).toBe(200);
    expect(slow.body.payload).toMatchObject({ city: 'Beverly Hills', state: 'CA' });
    expect(fake.seen.at(-1)!.url.searchParams.get('postalcode')).toBe('90210');

    fake.respond(() => ({ status: 503, body: { error: 'down' } }));
    await new Promise((r) => setTimeout(r, SPACING_MS));
    const failed = await call(env.app, 'GET', '/v1/user/geo/lookup?zip=10001', { token });
    expect(failed.body.payload).toMatchObject({ city: 'New York', state: 'NY' });

    // Five at once with 300 ms between requests and a 600 ms timeout: the later ones do not queue for
    // seconds, they are answered offline at once.
    fake.respond(() => ({ body: [] }));
    await new Promise((r) => setTimeout(r, SPACING_MS));
    const before = fake.seen.length;
    const many = await Promise.all(
      ['60601', '02108', '33101', '98101', '80202'].map((z) => call(env.app, 'GET', `/v1/user/geo/lookup?zip=${z}`, { token })),
    );
    expect(many.every((r) => r.statusCode === 200)).toBe(true);
    // At most the turns that fit in the timeout (0, 300 and, by timer slack, 600 ms) reached the service: the
    // others were answered offline rather than queued for their turn (by count, not by the clock; decision 106)
    // and none of them is still waiting to go out.
    expect(fake.seen.length - before).toBeLessThanOrEqual(3);
    await new Promise((r) => setTimeout(r, 3 * SPACING_MS));
    expect(fake.seen.length - before).toBeLessThanOrEqual(3);
  });

  it("geocodes a new shipment's addresses with a structured search, and still creates it when the service is down", async () => {
    fake.respond((url) => ({ body: url.searchParams.get('postalcode') === '20500' ? [whiteHouse] : [] }));
    await new Promise((r) => setTimeout(r, SPACING_MS));
    const body = shipmentWithoutCoordinates('20500', '90210');
    body.origin = { ...body.origin, address1: '1600 Pennsylvania Ave NW', city: 'Washington', state: 'DC' };
    body.destination = { ...body.destination, country: 'US', state: 'CA', city: 'Beverly Hills' };
    const s = await createShipment(env.app, token, body);
    expect(s.origin).toMatchObject({ lat: 38.8976633, long: -77.0365739 });
    // The service knew nothing of the destination: the offline data placed it.
    expect((s.destination as { lat: number }).lat).toBeCloseTo(34.09, 1);
    const asked = fake.seen.find((x) => x.url.searchParams.get('postalcode') === '20500')!;
    expect(asked.url.searchParams.get('street')).toBe('1600 Pennsylvania Ave NW');
    expect(asked.url.searchParams.get('city')).toBe('Washington');

    await fake.close();
    const down = await createShipment(env.app, token, shipmentWithoutCoordinates('10001', '90210'));
    expect((down.origin as { lat: number }).lat).toBeCloseTo(40.75, 1);
  });
});

describe('map tiles for the web app (/web-config.json)', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv({ MAP_TILE_URL: 'http://127.0.0.1:9/{z}/{x}/{y}.png', MAP_ATTRIBUTION: 'Private tiles' });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('serves the tile URL and attribution (OpenStreetMap by default; "off" means outlines only)', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    const { mapConfig } = await import('../../src/app.ts');
    const base = { DATA_DIR: 'memory://', SESSION_SECRET: 'test-secret-test-secret-test-secret-0123' };
    const byDefault = loadConfig(base);
    expect(mapConfig(byDefault)).toEqual({
      tileUrl: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
      attribution: expect.stringContaining('OpenStreetMap'),
    });
    expect(mapConfig(loadConfig({ ...base, MAP_TILE_URL: 'off' })).tileUrl).toBeNull();
    expect(() => loadConfig({ ...base, MAP_TILE_URL: 'ftp://tiles' })).toThrow(/MAP_TILE_URL/);
    const r = await env.app.inject({ method: 'GET', url: '/web-config.json' });
    expect(r.json().map).toEqual({ tileUrl: 'http://127.0.0.1:9/{z}/{x}/{y}.png', attribution: 'Private tiles' });
    // A plain-http tile server is allowed to serve images to the app.
    expect(String(r.headers['content-security-policy'])).toMatch(/img-src[^;]*http:\/\/127\.0\.0\.1:9/);
  });
});
