import type { GeoPlace } from '@shiptrail/contract';

/** What to locate: an address as the shipment forms hold it (any part may be missing but the ZIP). */
export interface AddressQuery {
  address1?: string;
  city?: string;
  state?: string;
  zip: string;
  country?: string;
}

/**
 * A geocoder. Each call answers null / [] when it knows nothing; it throws only when it could not ask (a
 * network failure or a timeout), so that the caller can fall back to the offline data set.
 */
export interface Geocoder {
  readonly name: 'offline' | 'http';
  lookupZip(zip: string, country?: string): Promise<GeoPlace | null>;
  autocomplete(q: string, limit: number): Promise<GeoPlace[]>;
  locate(address: AddressQuery): Promise<GeoPlace | null>;
}

/** 'Canada', 'ca', 'CAN' → 'CA'; the United States likewise → 'US'; anything else as given, upper case. */
export function countryCode(country: string | undefined): string | undefined {
  const c = country?.trim().toUpperCase().replace(/\./g, '');
  if (!c) return undefined;
  if (['US', 'USA', 'UNITED STATES', 'UNITED STATES OF AMERICA', 'AMERICA'].includes(c)) return 'US';
  if (['CA', 'CAN', 'CANADA'].includes(c)) return 'CA';
  return c;
}
