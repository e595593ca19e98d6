import type { GeoPlace } from '@shiptrail/contract';
import { LRUCache } from 'lru-cache';
import { countryCode, type AddressQuery, type Geocoder } from './geocoder.ts';

export interface NominatimOptions {
  baseUrl: string;
  /** At most one request per `minIntervalMs` (Nominatim's usage policy asks for 1 per second). */
  minIntervalMs: number;
  /** Covers the wait for a turn as well as the request: a caller never waits longer than this. */
  timeoutMs: number;
  cacheTtlMs: number;
  cacheMax?: number;
  /** Nominatim's policy asks every application to identify itself. */
  userAgent: string;
}

interface NominatimResult {
  lat: string;
  lon: string;
  display_name?: string;
  address?: Record<string, string | undefined>;
}

export class GeocoderUnavailable extends Error {}

/** A Nominatim result → a place; US states and Canadian provinces as their two-letter codes. */
export function placeOf(r: NominatimResult): GeoPlace | null {
  const lat = Number(r.lat);
  const long = Number(r.lon);
  if (!Number.isFinite(lat) || !Number.isFinite(long)) return null;
  const a = r.address ?? {};
  const country = a.country_code ? a.country_code.toUpperCase() : (a.country ?? '');
  const iso = a['ISO3166-2-lvl4'];
  const state = iso && /^(US|CA)-/.test(iso) ? iso.slice(3) : (a.state ?? '');
  const city = a.city ?? a.town ?? a.village ?? a.hamlet ?? a.municipality ?? a.suburb ?? '';
  const address1 = [a.house_number, a.road].filter(Boolean).join(' ');
  const zip = a.postcode ?? '';
  return {
    label: r.display_name ?? [address1, city, state, zip].filter(Boolean).join(', '),
    address1,
    city,
    state,
    zip,
    country,
    lat,
    long,
  };
}

/** The country codes to search in: the address's own, else the United States and Canada. */
function countries(country?: string) {
  const c = countryCode(country);
  return c && c.length === 2 ? c.toLowerCase() : 'us,ca';
}

/** The places of an answer; an error status, or a body that is not a JSON list, is the geocoder being unavailable. */
async function resultsOf(res: Response): Promise<NominatimResult[]> {
  if (!res.ok) throw new GeocoderUnavailable(`geocoder answered HTTP ${res.status}`);
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new GeocoderUnavailable('geocoder answered something other than JSON');
  }
  if (!Array.isArray(body)) throw new GeocoderUnavailable('geocoder answered something other than a list');
  return body as NominatimResult[];
}

/**
 * A Nominatim-compatible geocoder (nominatim.openstreetmap.org, a self-hosted Nominatim, or anything speaking
 * its /search). Requests are spaced by `minIntervalMs` across the whole process, answers (empty ones too) are
 * cached by URL, and a request that cannot get its turn and an answer within `timeoutMs` throws
 * GeocoderUnavailable so that the caller falls back to the offline data.
 */
export function nominatimGeocoder(opts: NominatimOptions, fetchImpl: typeof fetch = fetch): Geocoder & { requests: number } {
  const cache = new LRUCache<string, NominatimResult[]>({ max: opts.cacheMax ?? 5000, ttl: opts.cacheTtlMs });
  const inflight = new Map<string, Promise<NominatimResult[]>>();
  let nextSlot = 0;
  const base = opts.baseUrl.replace(/\/+$/, '');
  const self = {
    name: 'http' as const,
    requests: 0,
    lookupZip,
    autocomplete,
    locate,
  };

  async function search(params: Record<string, string | undefined>): Promise<NominatimResult[]> {
    const url = new URL(`${base}/search`);
    for (const [k, v] of Object.entries({ format: 'jsonv2', addressdetails: '1', ...params })) if (v) url.searchParams.set(k, v);
    const key = url.toString();
    const cached = cache.get(key);
    if (cached) return cached;
    const pending = inflight.get(key);
    if (pending) return pending;
    const p = fetchOnce(key).finally(() => inflight.delete(key));
    inflight.set(key, p);
    return p;
  }

  async function fetchOnce(url: string): Promise<NominatimResult[]> {
    const started = Date.now();
    const slot = Math.max(started, nextSlot);
    const wait = slot - started;
    // Waiting in line longer than the timeout would only end in a timeout: answer from the fallback now.
    if (wait >= opts.timeoutMs) throw new GeocoderUnavailable('geocoder busy (rate limit)');
    nextSlot = slot + opts.minIntervalMs;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    self.requests++;
    let res: Response;
    try {
      res = await fetchImpl(url, {
        headers: { accept: 'application/json', 'user-agent': opts.userAgent },
        signal: AbortSignal.timeout(opts.timeoutMs - wait),
      });
    } catch (err) {
      throw new GeocoderUnavailable(`geocoder unreachable: ${(err as Error).message}`);
    }
    const results = await resultsOf(res);
    cache.set(url, results);
    return results;
  }

  async function lookupZip(zip: string, country?: string): Promise<GeoPlace | null> {
    const results = await search({ postalcode: zip.trim(), countrycodes: countries(country), limit: '1' });
    const place = results.map(placeOf).find((p) => p !== null) ?? null;
    return place && { ...place, zip: place.zip || zip.trim().toUpperCase() };
  }

  async function autocomplete(q: string, limit: number): Promise<GeoPlace[]> {
    const results = await search({ q: q.trim(), countrycodes: 'us,ca', limit: String(limit) });
    return results.map(placeOf).filter((p): p is GeoPlace => p !== null);
  }

  async function locate(a: AddressQuery): Promise<GeoPlace | null> {
    const results = await search({
      street: a.address1,
      city: a.city,
      state: a.state,
      postalcode: a.zip,
      countrycodes: countries(a.country),
      limit: '1',
    });
    return results.map(placeOf).find((p) => p !== null) ?? null;
  }

  return self;
}
