import type { GeoPlace } from '@shiptrail/contract';
import type { ZipCode } from 'zipcodes';
import { countryCode, type AddressQuery, type Geocoder } from './geocoder.ts';

// The `zipcodes` data set (US ZIP centroids and Canadian forward sortation areas, ~5 MB of JavaScript) is
// imported on the first lookup, not at start-up: a server whose users never open an address form never
// pays its memory or its parse time.

const PROVINCES: Record<string, string> = {
  alberta: 'AB',
  'british columbia': 'BC',
  manitoba: 'MB',
  'new brunswick': 'NB',
  'newfoundland and labrador': 'NL',
  newfoundland: 'NL',
  'nova scotia': 'NS',
  'northwest territories': 'NT',
  nunavut: 'NU',
  ontario: 'ON',
  'prince edward island': 'PE',
  quebec: 'QC',
  québec: 'QC',
  saskatchewan: 'SK',
  yukon: 'YT',
};

interface Entry extends GeoPlace {
  /** Lower-case city for prefix search. */
  key: string;
}

interface Data {
  lookup(zip: string): ZipCode | undefined;
  /** US entries sorted by ZIP, Canadian by FSA. */
  byZip: Entry[];
  /** One entry per (city, state), sorted by city. */
  byCity: Entry[];
}

// Canadian rows name every neighbourhood of the area: "Downtown Toronto (cn Tower / King And Spadina / ...)".
const canadianCity = (city: string) =>
  city
    .replace(/\s*\(.*$/, '')
    .split(' / ')[0]!
    .trim();

function entryOf(z: ZipCode): Entry {
  const ca = z.country === 'Canada';
  const city = ca ? canadianCity(z.city) : z.city;
  const state = ca ? (PROVINCES[z.state.toLowerCase()] ?? z.state) : z.state;
  const country = ca ? 'CA' : 'US';
  return {
    label: `${city}, ${state} ${z.zip}, ${country}`,
    address1: '',
    city,
    state,
    zip: z.zip,
    country,
    lat: z.latitude,
    long: z.longitude,
    key: city.toLowerCase(),
  };
}

let loading: Promise<Data> | undefined;
/** True once the data set has been read (a test proves start-up does not read it). */
export const offlineDataLoaded = () => loading !== undefined;

function data(): Promise<Data> {
  loading ??= import('zipcodes').then((mod) => {
    const zipcodes = (mod as unknown as { default?: typeof mod }).default ?? mod;
    const all = Object.values(zipcodes.codes)
      .filter((z) => Number.isFinite(z.latitude) && Number.isFinite(z.longitude))
      .map(entryOf);
    const byZip = [...all].sort((a, b) => (a.zip < b.zip ? -1 : a.zip > b.zip ? 1 : 0));
    const seen = new Set<string>();
    const byCity: Entry[] = [];
    for (const e of byZip) {
      const k = `${e.key}|${e.state}`;
      if (seen.has(k)) continue;
      seen.add(k);
      byCity.push(e);
    }
    byCity.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.state < b.state ? -1 : 1));
    return { lookup: (zip) => zipcodes.lookup(zip), byZip, byCity };
  });
  return loading;
}

/** '90210-1234' → '90210'; 'm5v 3l9' → 'M5V' (the data set holds Canadian codes by their first three). */
export function zipKey(zip: string): string | undefined {
  const z = zip.trim().toUpperCase().replace(/\s+/g, '');
  const us = /^(\d{5})(-?\d{4})?$/.exec(z);
  if (us) return us[1];
  const ca = /^([A-Z]\d[A-Z])(\d[A-Z]\d)?$/.exec(z);
  if (ca) return ca[1];
  return undefined;
}

const strip = ({ key: _key, ...place }: Entry): GeoPlace => place;

/** First index in `list` whose `field` is >= `prefix` (the lists are sorted by that field). */
function lowerBound(list: Entry[], prefix: string, field: 'zip' | 'key'): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]![field] < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function takePrefix(
  list: Entry[],
  prefix: string,
  field: 'zip' | 'key',
  limit: number,
  keep: (e: Entry) => boolean = () => true,
): GeoPlace[] {
  const out: GeoPlace[] = [];
  for (let i = lowerBound(list, prefix, field); i < list.length && out.length < limit; i++) {
    const e = list[i]!;
    if (!e[field].startsWith(prefix)) break;
    if (keep(e)) out.push(strip(e));
  }
  return out;
}

export const offlineGeocoder: Geocoder = {
  name: 'offline',

  async lookupZip(zip, country) {
    const key = zipKey(zip);
    if (!key) return null;
    const want = countryCode(country);
    const hit = (await data()).lookup(key);
    if (!hit) return null;
    const e = entryOf(hit);
    if (want && (want === 'US' || want === 'CA') && e.country !== want) return null;
    return strip(e);
  },

  async autocomplete(q, limit) {
    const d = await data();
    const t = q.trim();
    // A ZIP or postal-code prefix.
    if (/^\d{2,5}(-\d{0,4})?$/.test(t)) return takePrefix(d.byZip, t.slice(0, 5), 'zip', limit);
    const fsa = /^([A-Za-z]\d[A-Za-z]?)\s*(\d[A-Za-z]\d)?$/.exec(t);
    if (fsa) return takePrefix(d.byZip, fsa[1]!.toUpperCase(), 'zip', limit);
    // "City" or "City, ST".
    const m = /^([^,]+?)\s*(?:,\s*([A-Za-z]{2})\b.*)?$/.exec(t.toLowerCase());
    if (!m) return [];
    const state = m[2]?.toUpperCase();
    return takePrefix(d.byCity, m[1]!, 'key', limit, (e) => !state || e.state === state);
  },

  async locate(address: AddressQuery) {
    const byZip = await this.lookupZip(address.zip, address.country);
    if (byZip) return byZip;
    if (!address.city) return null;
    const [first] = await this.autocomplete(address.state ? `${address.city}, ${address.state}` : address.city, 1);
    return first && first.city.toLowerCase() === address.city.trim().toLowerCase() ? first : null;
  },
};
