import { GEO_MESSAGES, type GeoPlace } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../lib/errors.ts';
import type { AddressQuery, Geocoder } from './geocoder.ts';
import { nominatimGeocoder } from './nominatim.ts';
import { offlineGeocoder } from './offline.ts';

export type { AddressQuery, Geocoder } from './geocoder.ts';

/** The configured geocoder (Nominatim-compatible when GEOCODER_URL is set), made on first use. */
export function configuredGeocoder(ctx: AppContext): Geocoder | undefined {
  const c = ctx.config;
  if (!c.GEOCODER_URL) return undefined;
  if (!ctx.resources.geocoder) {
    const rate = c.GEOCODER_RATE_LIMIT || { limit: 1, intervalMs: 1000 };
    ctx.resources.geocoder = nominatimGeocoder({
      baseUrl: c.GEOCODER_URL,
      minIntervalMs: rate.intervalMs / rate.limit,
      timeoutMs: c.GEOCODER_TIMEOUT_MS,
      cacheTtlMs: c.GEOCODER_CACHE_SECONDS * 1000,
      userAgent: `Shiptrail geocoder (${c.publicUrl})`,
    });
  }
  return ctx.resources.geocoder;
}

/**
 * Ask the configured geocoder, and the offline data set when it is not configured, fails, or knows nothing:
 * the offline answer for a US ZIP or a Canadian postal code is always at hand.
 */
async function withFallback<T>(ctx: AppContext, ask: (g: Geocoder) => Promise<T>, empty: (t: T) => boolean): Promise<T> {
  const http = configuredGeocoder(ctx);
  if (http) {
    try {
      const answer = await ask(http);
      if (!empty(answer)) return answer;
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message }, 'geocoder failed; answering from the offline data');
    }
  }
  return ask(offlineGeocoder);
}

export async function lookupZip(ctx: AppContext, zip: string, country?: string): Promise<GeoPlace> {
  const place = await withFallback(
    ctx,
    (g) => g.lookupZip(zip, country),
    (p) => p === null,
  );
  if (!place) throw notFound(GEO_MESSAGES.zipNotFound);
  return place;
}

export function autocomplete(ctx: AppContext, q: string, limit: number): Promise<GeoPlace[]> {
  return withFallback(
    ctx,
    (g) => g.autocomplete(q, limit),
    (list) => list.length === 0,
  );
}

/**
 * Coordinates for an address, or null. Never throws: a shipment is created or edited whether or not its
 * address could be placed on the map.
 */
export async function locateAddress(ctx: AppContext, address: AddressQuery): Promise<{ lat: number; long: number } | null> {
  try {
    const place = await withFallback(
      ctx,
      (g) => g.locate(address),
      (p) => p === null,
    );
    return place ? { lat: place.lat, long: place.long } : null;
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'could not geocode an address');
    return null;
  }
}
