import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ZipCode } from 'zipcodes';
import { buildZipIndex, type ZipIndex } from './zip-index.ts';
import { countryCode, type AddressQuery, type Geocoder } from './geocoder.ts';

// The `zipcodes` data set (US ZIP centroids and Canadian forward sortation areas, ~5 MB of JavaScript) is
// read on the first lookup, not at start-up: a server whose users never open an address form never
// pays its parse time. It is then kept as a compact index (zip-index.ts, decision 159): the package's data is read
// (readPackage), so its 44,175 objects (about 83 MB as a loaded module) are garbage once the index is built.

let index: ZipIndex | undefined;
/** True once the data set has been read (a test proves start-up does not read it). */
export const offlineDataLoaded = () => index !== undefined;

/**
 * The package's rows, read without keeping the package: its data files are one line of JSON each after
 * `exports.codes = `, parsed as JSON (no module, no compiled code kept; the objects are garbage once the index is
 * built). A version of the package laid out otherwise is required and dropped from require's cache.
 */
function readPackage(): ZipCode[] {
  const require = createRequire(import.meta.url);
  const main = require.resolve('zipcodes');
  const dir = path.dirname(main);
  const prefix = 'exports.codes = ';
  const rows: ZipCode[] = [];
  for (const file of ['codes.js', 'codesCanada.js']) {
    const line = readFileSync(path.join(dir, file), 'utf8')
      .split('\n')
      .find((l) => l.startsWith(prefix));
    if (!line) return requirePackage(require, main);
    rows.push(...Object.values(JSON.parse(line.slice(prefix.length).replace(/;\s*$/, '')) as Record<string, ZipCode>));
  }
  return rows;
}

function requirePackage(require: NodeJS.Require, main: string): ZipCode[] {
  const zipcodes = require(main) as typeof import('zipcodes');
  const rows = Object.values(zipcodes.codes);
  const dir = path.dirname(main);
  for (const file of Object.keys(require.cache)) if (file.startsWith(dir + path.sep)) delete require.cache[file];
  return rows;
}

function data(): ZipIndex {
  index ??= buildZipIndex(readPackage());
  return index;
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

export const offlineGeocoder: Geocoder = {
  name: 'offline',

  async lookupZip(zip, country) {
    const key = zipKey(zip);
    if (!key) return null;
    const want = countryCode(country);
    const hit = data().lookup(key);
    if (!hit) return null;
    if (want && (want === 'US' || want === 'CA') && hit.country !== want) return null;
    return hit;
  },

  async autocomplete(q, limit) {
    const d = data();
    const t = q.trim();
    // A ZIP or postal-code prefix.
    if (/^\d{2,5}(-\d{0,4})?$/.test(t)) return d.zipPrefix(t.slice(0, 5), limit);
    const fsa = /^([A-Za-z]\d[A-Za-z]?)\s*(\d[A-Za-z]\d)?$/.exec(t);
    if (fsa) return d.zipPrefix(fsa[1]!.toUpperCase(), limit);
    // "City" or "City, ST".
    const m = /^([^,]+?)\s*(?:,\s*([A-Za-z]{2})\b.*)?$/.exec(t.toLowerCase());
    if (!m) return [];
    const state = m[2]?.toUpperCase();
    return d.cityPrefix(m[1]!, limit, state);
  },

  async locate(address: AddressQuery) {
    const byZip = await this.lookupZip(address.zip, address.country);
    if (byZip) return byZip;
    if (!address.city) return null;
    const [first] = await this.autocomplete(address.state ? `${address.city}, ${address.state}` : address.city, 1);
    return first && first.city.toLowerCase() === address.city.trim().toLowerCase() ? first : null;
  },
};
