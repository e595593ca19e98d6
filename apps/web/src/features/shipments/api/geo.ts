import { useQuery } from '@tanstack/react-query';
import type { GeoPlace } from '@shiptrail/contract';
import { ApiError, requestPayload } from '../../../lib/api-client';

/** A whole US ZIP (ZIP+4 too) or Canadian postal code (its first three are enough): worth looking up. */
export const isLookupZip = (zip: string) => /^\s*(\d{5}(-?\d{4})?|[A-Za-z]\d[A-Za-z]\s*(\d[A-Za-z]\d)?)\s*$/.test(zip);

/** The place of a ZIP or postal code, or null when the geocoder does not know it. */
export async function lookupZip(zip: string, country?: string): Promise<GeoPlace | null> {
  const qs = new URLSearchParams({ zip: zip.trim(), ...(country?.trim() ? { country: country.trim() } : {}) });
  try {
    return await requestPayload<GeoPlace>(`/v1/user/geo/lookup?${qs}`);
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return null;
    throw e;
  }
}

/** Suggestions for what has been typed (ZIP, city, or a street address when a geocoding service is set up). */
export function useGeoSuggestions(q: string) {
  const term = q.trim();
  return useQuery({
    queryKey: ['geo', 'autocomplete', term],
    queryFn: ({ signal }) =>
      requestPayload<GeoPlace[]>(`/v1/user/geo/autocomplete?${new URLSearchParams({ q: term, limit: '6' })}`, { signal }),
    enabled: term.length >= 2,
    staleTime: 5 * 60_000,
    retry: false,
  });
}
