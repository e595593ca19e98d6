import { z } from 'zod';

// Geocoding for the company screens: a ZIP or postal code to its place (the wizard's city/state autofill) and
// address suggestions while typing. Served by the offline ZIP data set, or by a Nominatim-compatible service
// when one is configured.

export const GEO_MESSAGES = {
  zipRequired: 'Enter a ZIP or postal code',
  zipNotFound: 'We could not find that ZIP or postal code',
  queryRequired: 'Type at least 2 characters',
} as const;

/** The countries the offline data set covers; anything else asks the configured geocoder only. */
export const GEO_COUNTRIES = ['US', 'CA'] as const;

export const geoLookupQuery = z.object({
  zip: z.string({ error: GEO_MESSAGES.zipRequired }).trim().min(1, GEO_MESSAGES.zipRequired).max(20, GEO_MESSAGES.zipNotFound),
  country: z.string().trim().max(60).optional(),
});
export type GeoLookupQuery = z.input<typeof geoLookupQuery>;

export const geoAutocompleteQuery = z.object({
  q: z.string({ error: GEO_MESSAGES.queryRequired }).trim().min(2, GEO_MESSAGES.queryRequired).max(200, 'Type at most 200 characters'),
  limit: z.coerce.number().int().min(1).max(10).default(6),
});
export type GeoAutocompleteQuery = z.input<typeof geoAutocompleteQuery>;

/** A place: what an address field can be filled with. `address1` is '' when the match is a ZIP or a city. */
export const geoPlaceSchema = z.object({
  label: z.string(),
  address1: z.string(),
  city: z.string(),
  state: z.string(),
  zip: z.string(),
  /** ISO 3166 alpha-2 where known (US, CA), else the geocoder's country name. */
  country: z.string(),
  lat: z.number(),
  long: z.number(),
});
export type GeoPlace = z.infer<typeof geoPlaceSchema>;
export const geoSuggestionsSchema = z.array(geoPlaceSchema);

/** Where the map takes its tiles; `tileUrl` null means no tile server: the offline outlines only. */
export const mapConfigSchema = z.object({
  tileUrl: z.string().nullable(),
  attribution: z.string(),
});
export type MapConfig = z.infer<typeof mapConfigSchema>;

/** Map constants: the couriers map's centre and zooms. */
export const MAP_DEFAULTS = {
  center: { lat: 39.5, lng: -98.35 },
  zoom: 5,
  detailZoom: 8,
  minHeight: 700,
} as const;
