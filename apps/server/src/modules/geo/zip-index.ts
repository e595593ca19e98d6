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

/** The rows by ZIP, as typed arrays and packed strings. */
interface Rows {
  n: number;
  zips: Packed;
  cities: Packed;
  /** Lower-case city names, the search keys. */
  keys: Packed;
  /** City number to key number. */
  keyOfCity: Uint32Array;
  cityOf: Uint32Array;
  stateOf: Uint16Array;
  states: string[];
  canadian: Uint8Array;
  /** NaN stands for the package's null (it has no NaN of its own). */
  lat: Float64Array;
  long: Float64Array;
}

const intern = (ids: Map<string, number>, s: string) => {
  let id = ids.get(s);
  if (id === undefined) ids.set(s, (id = ids.size));
  return id;
};

function packRows(rows: Iterable<ZipCode>): Rows {
  const sorted = [...rows].map(placeOf).sort((a, b) => (a.zip < b.zip ? -1 : a.zip > b.zip ? 1 : 0));
  const n = sorted.length;
  const cityIds = new Map<string, number>();
  const stateIds = new Map<string, number>();
  const r = {
    n,
    zips: pack(sorted.map((p) => p.zip)),
    cityOf: new Uint32Array(n),
    stateOf: new Uint16Array(n),
    canadian: new Uint8Array(n),
    lat: new Float64Array(n),
    long: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const p = sorted[i]!;
    r.cityOf[i] = intern(cityIds, p.city);
    r.stateOf[i] = intern(stateIds, p.state);
    r.canadian[i] = p.country === 'CA' ? 1 : 0;
    r.lat[i] = p.lat ?? NaN;
    r.long[i] = p.long ?? NaN;
  }
  const cityNames = [...cityIds.keys()];
  // A city's key is its lower-case name: "De Kalb" and "De kalb" in one state would be one city.
  const keyIds = new Map<string, number>();
  const keyOfCity = Uint32Array.from(cityNames, (c) => intern(keyIds, c.toLowerCase()));
  return { ...r, cities: pack(cityNames), keys: pack([...keyIds.keys()]), keyOfCity, states: [...stateIds.keys()] };
}

const keyAt = (r: Rows, i: number) => at(r.keys, r.keyOfCity[r.cityOf[i]!]!);
const stateAt = (r: Rows, i: number) => r.states[r.stateOf[i]!]!;

/** The first row (lowest ZIP) of `byZip` for each (city key, state), by key then state. */
function citySearchOrder(r: Rows, byZip: Uint32Array): Uint32Array {
  const seen = new Set<number>();
  const firsts: number[] = [];
  for (const i of byZip) {
    const k = r.keyOfCity[r.cityOf[i]!]! * 65536 + r.stateOf[i]!;
    if (seen.has(k)) continue;
    seen.add(k);
    firsts.push(i);
  }
  firsts.sort((a, b) => {
    const ka = keyAt(r, a);
    const kb = keyAt(r, b);
    return ka < kb ? -1 : ka > kb ? 1 : stateAt(r, a) < stateAt(r, b) ? -1 : 1;
  });
  return Uint32Array.from(firsts);
}

function placeAt(r: Rows, i: number): GeoPlace {
  const zip = at(r.zips, i);
  const city = at(r.cities, r.cityOf[i]!);
  const state = stateAt(r, i);
  const country = r.canadian[i] ? 'CA' : 'US';
  const la = r.lat[i]!;
  const lo = r.long[i]!;
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
}

/** Builds the index from the package's rows; nothing of them is kept. */
export function buildZipIndex(rows: Iterable<ZipCode>): ZipIndex {
  const r = packRows(rows);
  const zipAt = (i: number) => at(r.zips, i);
  // Rows with coordinates, by ZIP (the rows are already in ZIP order).
  const byZip = Uint32Array.from({ length: r.n }, (_, i) => i).filter((i) => Number.isFinite(r.lat[i]) && Number.isFinite(r.long[i]));
  const byCity = citySearchOrder(r, byZip);
  const take = (list: Uint32Array, key: (i: number) => string, prefix: string, limit: number, keep: (i: number) => boolean) => {
    const out: GeoPlace[] = [];
    for (let j = lowerBound(list.length, (m) => key(list[m]!), prefix); j < list.length && out.length < limit; j++) {
      const i = list[j]!;
      if (!key(i).startsWith(prefix)) break;
      if (keep(i)) out.push(placeAt(r, i));
    }
    return out;
  };
  return {
    size: r.n,
    lookup(zip) {
      const i = lowerBound(r.n, zipAt, zip);
      return i < r.n && zipAt(i) === zip ? placeAt(r, i) : undefined;
    },
    zipPrefix: (prefix, limit) => take(byZip, zipAt, prefix, limit, () => true),
    cityPrefix: (prefix, limit, state) =>
      take(
        byCity,
        (i) => keyAt(r, i),
        prefix,
        limit,
        (i) => !state || stateAt(r, i) === state,
      ),
  };
}
