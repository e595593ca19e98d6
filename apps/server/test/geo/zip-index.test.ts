import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { GeoPlace } from '@shiptrail/contract';
import type { ZipCode } from 'zipcodes';
import { offlineGeocoder } from '../../src/modules/geo/offline.ts';
import { placeOf } from '../../src/modules/geo/zip-index.ts';

// The offline geocoder's compact index (decision 159) answers as the `zipcodes` package's objects did: the reference
// below is the geocoder as it was before the index, a JavaScript object per row, sorted lists of them.
const zipcodes = createRequire(import.meta.url)('zipcodes') as typeof import('zipcodes');
type Entry = GeoPlace & { key: string };
const all: Entry[] = Object.values(zipcodes.codes)
  .filter((z) => Number.isFinite(z.latitude) && Number.isFinite(z.longitude))
  .map((z) => ({ ...placeOf(z), key: placeOf(z).city.toLowerCase() }));
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

/** The geocoder's search before the index: the first entry at or after the prefix, then while it matches. */
function reference(list: Entry[], prefix: string, field: 'zip' | 'key', limit: number, state?: string): GeoPlace[] {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]![field] < prefix) lo = mid + 1;
    else hi = mid;
  }
  const out: GeoPlace[] = [];
  for (let i = lo; i < list.length && out.length < limit; i++) {
    const { key: _key, ...e } = list[i]!;
    if (!list[i]![field].startsWith(prefix)) break;
    if (!state || e.state === state) out.push(e);
  }
  return out;
}

describe('the offline geocoder as a compact index', () => {
  it('looks up every ZIP and FSA of the package as the package does, those without coordinates too', async () => {
    const codes = Object.values(zipcodes.codes) as ZipCode[];
    expect(codes.length).toBeGreaterThan(44_000);
    let withoutCoordinates = 0;
    for (const z of codes) {
      const want = placeOf(zipcodes.lookup(z.zip)!);
      if (want.lat === null) withoutCoordinates++;
      expect(await offlineGeocoder.lookupZip(z.zip, z.country)).toEqual(want);
    }
    expect(withoutCoordinates).toBeGreaterThan(0);
    expect(await offlineGeocoder.lookupZip('00000', 'US')).toBeNull();
    expect(await offlineGeocoder.lookupZip('M5V', 'US')).toBeNull();
  });

  it('completes ZIP, FSA and city prefixes as the package sorted lists did', async () => {
    const zips = [
      ...new Set(byZip.filter((_, i) => i % 97 === 0).flatMap((e) => [e.zip.slice(0, 2), e.zip.slice(0, 3), e.zip.slice(0, 4)])),
    ];
    for (const p of zips) {
      const q = /^\d/.test(p) ? p : p.toLowerCase();
      if (!/^\d{2,5}$/.test(q) && !/^[A-Za-z]\d[A-Za-z]?$/.test(q)) continue;
      expect(await offlineGeocoder.autocomplete(q, 7), q).toEqual(reference(byZip, p.toUpperCase(), 'zip', 7));
    }
    const cities = byCity.filter((_, i) => i % 53 === 0);
    for (const e of cities) {
      for (const p of [e.key.slice(0, 1), e.key.slice(0, 3).trim(), e.key]) {
        // A city named like a ZIP ("115 Firms") is asked for as a ZIP prefix; a comma separates the state.
        if (p.includes(',') || /^\d/.test(p) || !/^[A-Z]{2}$/.test(e.state)) continue;
        expect(await offlineGeocoder.autocomplete(p, 10), p).toEqual(reference(byCity, p, 'key', 10));
        expect(await offlineGeocoder.autocomplete(`${p}, ${e.state}`, 5), `${p}, ${e.state}`).toEqual(
          reference(byCity, p, 'key', 5, e.state),
        );
      }
    }
  });
});
