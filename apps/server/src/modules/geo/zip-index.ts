import type { GeoPlace } from '@shiptrail/contract';
import type { ZipCode } from 'zipcodes';

// The offline geocoder's data (decision 159) as a compact index: the `zipcodes` package's 44,175 rows (US ZIP centroids
// and Canadian forward sortation areas) held as typed arrays and three strings, not as a JavaScript object per row. The
// package itself, once required, holds about 83 MB of objects for as long as the process lives; the index holds about
// 2 MB, and the package's objects are garbage once it is built (offline.ts).

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

// Canadian rows name every neighbourhood of the area: "Downtown Toronto (cn Tower / King And Spadina / ...)".
const canadianCity = (city: string) =>
  city
    .replace(/\s*\(.*$/, '')
    .split(' / ')[0]!
    .trim();

/** One row of the package as the geocoder answers it (the package's own coordinates, null where it has none). */
export function placeOf(z: ZipCode): GeoPlace {
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
  };
}

/** Strings laid end to end in one string, the i-th from start[i] to start[i + 1]. */
interface Packed {
  text: string;
  start: Uint32Array;
}

function pack(strings: string[]): Packed {
  const start = new Uint32Array(strings.length + 1);
  for (let i = 0; i < strings.length; i++) start[i + 1] = start[i]! + strings[i]!.length;
  return { text: strings.join(''), start };
}

const at = (p: Packed, i: number) => p.text.slice(p.start[i], p.start[i + 1]);

export interface ZipIndex {
  /** Rows in the index (all of the package's, those without coordinates too). */
  readonly size: number;
  /** The row of a ZIP or a Canadian FSA, exactly as the package keys it ('90210', 'M5V'). */
  lookup(zip: string): GeoPlace | undefined;
  /** Rows with coordinates whose ZIP starts with `prefix`, by ZIP. */
  zipPrefix(prefix: string, limit: number): GeoPlace[];
  /** One row per (city, state) whose lower-case city starts with `prefix` (its lowest ZIP with coordinates), by city then state. */
  cityPrefix(prefix: string, limit: number, state?: string): GeoPlace[];
}

/** First i in [0, n) whose key(i) >= prefix (key ascending). */
function lowerBound(n: number, key: (i: number) => string, prefix: string): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(mid) < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Builds the index from the package's rows; nothing of them is kept. */
export function buildZipIndex(rows: Iterable<ZipCode>): ZipIndex {
  const sorted = [...rows].map(placeOf).sort((a, b) => (a.zip < b.zip ? -1 : a.zip > b.zip ? 1 : 0));
  const n = sorted.length;
  const cityIds = new Map<string, number>();
  const stateIds = new Map<string, number>();
  const intern = (ids: Map<string, number>, s: string) => {
    let id = ids.get(s);
    if (id === undefined) ids.set(s, (id = ids.size));
    return id;
  };
  const zips = pack(sorted.map((p) => p.zip));
  const cityOf = new Uint32Array(n);
  const stateOf = new Uint16Array(n);
  const canadian = new Uint8Array(n);
  const lat = new Float64Array(n);
  const long = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const p = sorted[i]!;
    cityOf[i] = intern(cityIds, p.city);
    stateOf[i] = intern(stateIds, p.state);
    canadian[i] = p.country === 'CA' ? 1 : 0;
    // NaN stands for the package's null (it has no NaN of its own).
    lat[i] = p.lat ?? NaN;
    long[i] = p.long ?? NaN;
  }
  const cityNames = [...cityIds.keys()];
  const cities = pack(cityNames);
  // A city's key is its lower-case name: "De Kalb" and "De kalb" in one state are one city.
  const keyIds = new Map<string, number>();
  const keyOfCity = Uint32Array.from(cityNames, (c) => intern(keyIds, c.toLowerCase()));
  const keys = pack([...keyIds.keys()]);
  const states = [...stateIds.keys()];
  const located = (i: number) => Number.isFinite(lat[i]) && Number.isFinite(long[i]);

  // Rows with coordinates, by ZIP (the rows are already in ZIP order).
  const byZip = Uint32Array.from(sorted.keys()).filter(located);
  // The first of them (lowest ZIP) for each (city, state), by lower-case city then state.
  const seen = new Set<number>();
  const firsts: number[] = [];
  for (const i of byZip) {
    const k = keyOfCity[cityOf[i]!]! * 65536 + stateOf[i]!;
    if (seen.has(k)) continue;
    seen.add(k);
    firsts.push(i);
  }
  const keyOf = (i: number) => at(keys, keyOfCity[cityOf[i]!]!);
  const stateName = (i: number) => states[stateOf[i]!]!;
  firsts.sort((a, b) => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    return ka < kb ? -1 : ka > kb ? 1 : stateName(a) < stateName(b) ? -1 : 1;
  });
  const byCity = Uint32Array.from(firsts);

  const place = (i: number): GeoPlace => {
    const zip = at(zips, i);
    const city = at(cities, cityOf[i]!);
    const state = stateName(i);
    const country = canadian[i] ? 'CA' : 'US';
    const la = lat[i]!;
    const lo = long[i]!;
    return {
      label: `${city}, ${state} ${zip}, ${country}`,
      address1: '',
      city,
      state,
      zip,
      country,
      lat: Number.isNaN(la) ? null : la,
      long: Number.isNaN(lo) ? null : lo,
    } as GeoPlace;
  };
  const take = (list: Uint32Array, key: (i: number) => string, prefix: string, limit: number, keep: (i: number) => boolean) => {
    const out: GeoPlace[] = [];
    for (let j = lowerBound(list.length, (m) => key(list[m]!), prefix); j < list.length && out.length < limit; j++) {
      const i = list[j]!;
      if (!key(i).startsWith(prefix)) break;
      if (keep(i)) out.push(place(i));
    }
    return out;
  };

  return {
    size: n,
    lookup(zip) {
      const i = lowerBound(n, (m) => at(zips, m), zip);
      return i < n && at(zips, i) === zip ? place(i) : undefined;
    },
    zipPrefix: (prefix, limit) =>
      take(
        byZip,
        (i) => at(zips, i),
        prefix,
        limit,
        () => true,
      ),
    cityPrefix: (prefix, limit, state) => take(byCity, keyOf, prefix, limit, (i) => !state || stateName(i) === state),
  };
}
