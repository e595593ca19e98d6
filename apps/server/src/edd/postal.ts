// Postal areas for the predictor's fallbacks: a US ZIP's first 3 digits and first digit, a Canadian
// postal code's FSA (first 3 characters) and its first letter (the province or region).
import type { CalendarCountry } from './calendar.ts';

export interface PostalAreas {
  /** ZIP3, FSA, or the first 3 characters of another code; "" when none. */
  area: string;
  /** The first digit of a ZIP, the first letter of a Canadian code; "" when none. */
  region: string;
}

const CANADIAN = /^[ABCEGHJ-NPRSTVXY]\d[A-Z](?:\d[A-Z]\d)?$/;

function clean(postal: string | null | undefined): string {
  return (postal ?? '').toUpperCase().replace(/[\s-]/g, '');
}

export function isCanadianPostal(postal: string | null | undefined): boolean {
  return CANADIAN.test(clean(postal));
}

export function postalAreas(postal: string | null | undefined): PostalAreas {
  const p = clean(postal);
  return { area: p.slice(0, 3), region: p.slice(0, 1) };
}

// The first letter of a Canadian postal code names its province or territory.
export const PROVINCE: Record<string, string> = {
  A: 'NL',
  B: 'NS',
  C: 'PE',
  E: 'NB',
  G: 'QC',
  H: 'QC',
  J: 'QC',
  K: 'ON',
  L: 'ON',
  M: 'ON',
  N: 'ON',
  P: 'ON',
  R: 'MB',
  S: 'SK',
  T: 'AB',
  V: 'BC',
  X: 'NT',
  Y: 'YT',
};

/** The province of a Canadian postal code, or undefined. */
export function canadianProvince(postal: string | null | undefined): string | undefined {
  const p = clean(postal);
  return CANADIAN.test(p) ? PROVINCE[p[0]!] : undefined;
}

/** The calendar country of a destination: Canada for a Canadian postal code, else `fallback` (US by default). */
export function destinationCountry(postal: string | null | undefined, fallback: CalendarCountry = 'US'): CalendarCountry {
  return isCanadianPostal(postal) ? 'CA' : fallback;
}
