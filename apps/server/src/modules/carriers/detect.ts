// Tracking-number detection and validation, driven by the jkeen/tracking_number_data definitions in ./data
// (MIT, see data/LICENSE and data/README.md). How the data is applied follows docs/carrier-numbers.md
// "How jkeen's data is meant to be applied": normalise, anchor the regex, take SerialNumber/CheckDigit,
// apply serial_number_format.prepend_if, run the named checksum, check `additional.exists` lookups (S10).
import upsData from './data/ups.json' with { type: 'json' };
import uspsData from './data/usps.json' with { type: 'json' };
import fedexData from './data/fedex.json' with { type: 'json' };
import canadapostData from './data/canadapost.json' with { type: 'json' };
import s10Data from './data/s10.json' with { type: 'json' };
import fedexLegacyData from './data/fedex_v1.9.0.json' with { type: 'json' };
import localData from './data/local.json' with { type: 'json' };
import { MSG, normalizeTrackingNumber, TRACKING_NUMBER_MAX } from '@shiptrail/contract';
import { COURIERS, type CourierSlug } from './types.ts';

export type DetectedCarrier = { courier: CourierSlug; name: string; checkDigitValid: boolean; service?: string };

export class CarrierDetectError extends Error {
  readonly code: 'UNKNOWN_FORMAT' | 'INVALID_NUMBER';
  constructor(code: 'UNKNOWN_FORMAT' | 'INVALID_NUMBER', message: string) {
    super(message);
    this.name = 'CarrierDetectError';
    this.code = code;
  }
}

// --- the definition schema we read (a subset of jkeen's) -------------------------------------------------

type ChecksumDef =
  | { name: 'mod10'; evens_multiplier?: number; odds_multiplier?: number; reverse?: boolean }
  | { name: 'sum_product_with_weightings_and_modulo'; weightings: number[]; modulo1: number; modulo2: number }
  | { name: 's10'; weightings: number[]; modulo: number }
  | { name: string };

type LookupDef = { name: string; regex_group_name: string; lookup: Array<{ matches?: string; matches_regex?: string; name?: string }> };

type FormatDef = {
  id?: string;
  name: string;
  courier_code?: string;
  regex: string | string[];
  validation?: {
    checksum?: ChecksumDef;
    serial_number_format?: { prepend_if?: { matches_regex: string; content: string } };
    additional?: { exists?: string[] };
  };
  additional?: LookupDef[];
};

type CourierFile = { tracking_numbers: FormatDef[] };

// --- what we add on top of the data: ranking and the trackable part ----------------------------------------

// Lower rank = more specific shape, listed first among equally valid candidates. The pure-digit formats with
// weak checks (12-digit FedEx, 16-digit Canada Post, 15-digit Ground: ~1 in 10 random strings pass) come last
// (carrier numbers §8); length-only formats come after everything else.
const RANK: Record<string, number> = {
  ups: 1,
  s10: 1,
  usps_impb_n: 2,
  usps_impb_c: 2,
  usps_legacy: 2,
  fedex_ground_96: 2,
  fedex_ground_gsn: 2,
  fedex_astra_32: 2,
  // A 34-digit number starting 420 matches both usps_impb_c and fedex_34: USPS first (carrier numbers §8).
  fedex_34: 3,
  fedex_smartpost: 3,
  ups_waybill: 3,
  usps_20: 4,
  fedex_12: 5,
  fedex_ground: 5,
  fedex_ground_sscc_18: 5,
  canada_post: 5,
  usps_impb_loose: 8,
  canadapost_pin_short: 9,
  canadapost_dnc: 9,
};

// FedEx barcodes carry the trackable number inside them; the Track API wants that number
// (carrier numbers §4: last 15 digits of the 22-digit 96 barcode, last 12 of the 34-digit ones,
// positions 17-28 of ASTRA). USPS routing prefixes 420+ZIP are not part of the number (carrier numbers §3).
function trackablePart(formatId: string, courier: CourierSlug, tid: string, groups: Record<string, string | undefined>): string {
  switch (formatId) {
    case 'fedex_ground_96':
      return tid.slice(-15);
    case 'fedex_34':
    case 'fedex_ground_gsn':
      return tid.slice(-12);
    case 'fedex_astra_32':
      return tid.slice(16, 28);
  }
  if (courier === 'usps' || courier === 'fedex') {
    const routing = (groups.RoutingApplicationId ?? '') + (groups.DestinationZip ?? '') + (groups.DestinationZipPlus4 ?? '');
    if (routing && tid.startsWith(routing)) return tid.slice(routing.length);
  }
  return tid;
}

// --- compiled formats ---------------------------------------------------------------------------------------

type CompiledFormat = {
  id: string;
  name: string;
  /** Fixed courier, or null when it comes from a lookup (S10 country code). */
  courier: CourierSlug | null;
  regex: RegExp;
  checksum: ((serial: string, check: string) => boolean) | null;
  prependIf: { re: RegExp; content: string } | null;
  exists: Array<{ group: string; values: Set<string> }>;
  serviceLookup: { group: string; table: Map<string, string> } | null;
  rank: number;
};

function charValue(ch: string): number {
  const c = ch.charCodeAt(0);
  if (c >= 48 && c <= 57) return c - 48;
  // jkeen CHECKSUM_ALGORITHMS.md: a letter counts as (ASCII - 3) % 10.
  return (c - 3) % 10;
}

function compileChecksum(def: ChecksumDef | undefined): CompiledFormat['checksum'] {
  if (!def) return null;
  if (def.name === 'mod10') {
    const d = def as Extract<ChecksumDef, { name: 'mod10' }>;
    const evens = d.evens_multiplier ?? 1;
    const odds = d.odds_multiplier ?? 1;
    const reverse = d.reverse ?? false;
    return (serial, check) => {
      let sum = 0;
      const n = serial.length;
      for (let i = 0; i < n; i++) {
        const ch = reverse ? serial[n - 1 - i]! : serial[i]!;
        sum += charValue(ch) * (i % 2 === 1 ? odds : evens);
      }
      return (10 - (sum % 10)) % 10 === Number(check);
    };
  }
  if (def.name === 'sum_product_with_weightings_and_modulo') {
    const d = def as Extract<ChecksumDef, { name: 'sum_product_with_weightings_and_modulo' }>;
    return (serial, check) => {
      let sum = 0;
      for (let i = 0; i < serial.length; i++) sum += charValue(serial[i]!) * (d.weightings[i] ?? 0);
      return (sum % d.modulo1) % d.modulo2 === Number(check);
    };
  }
  if (def.name === 's10') {
    const d = def as Extract<ChecksumDef, { name: 's10' }>;
    return (serial, check) => {
      let sum = 0;
      for (let i = 0; i < serial.length; i++) sum += charValue(serial[i]!) * (d.weightings[i] ?? 0);
      const r = sum % d.modulo;
      const expected = r === 1 ? 0 : r === 0 ? 5 : 11 - r;
      return expected === Number(check);
    };
  }
  // An algorithm we do not implement (mod7, luhn, mod_37_36 are unused by these carriers): fail safe, i.e.
  // treat the number as not check-digit valid rather than throwing.
  return () => false;
}

function compileFormat(def: FormatDef, fileCourier: CourierSlug | null, fallbackId: string): CompiledFormat {
  const id = def.id ?? fallbackId;
  const source = Array.isArray(def.regex) ? def.regex.join('') : def.regex;
  const regex = new RegExp(`^${source}$`);
  const prepend = def.validation?.serial_number_format?.prepend_if;
  const exists = (def.validation?.additional?.exists ?? []).map((name) => {
    const lookup = def.additional?.find((a) => a.name === name);
    return { group: lookup?.regex_group_name ?? name, values: new Set((lookup?.lookup ?? []).map((l) => l.matches ?? '')) };
  });
  const service = def.additional?.find((a) => a.name === 'Service Type');
  const courier = (def.courier_code as CourierSlug | undefined) ?? fileCourier;
  return {
    id,
    name: def.name,
    courier,
    regex,
    checksum: compileChecksum(def.validation?.checksum),
    prependIf: prepend ? { re: new RegExp(prepend.matches_regex), content: prepend.content } : null,
    exists,
    serviceLookup: service
      ? {
          group: service.regex_group_name,
          table: new Map(service.lookup.filter((l) => l.matches && l.name).map((l) => [l.matches!, l.name!])),
        }
      : null,
    rank: RANK[id] ?? 6,
  };
}

function slugId(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

function compileFile(file: CourierFile, courier: CourierSlug | null, only?: (d: FormatDef) => boolean): CompiledFormat[] {
  return file.tracking_numbers.filter((d) => (only ? only(d) : true)).map((d) => compileFormat(d, courier, slugId(d.name)));
}

// S10 numbers are issued by postal services; the country code says which (s10.json "Courier" lookup).
// Only the two postal services we track are candidates.
const S10_COUNTRY_TO_COURIER: Record<string, CourierSlug> = { US: 'usps', CA: 'canadapost' };

const FORMATS: CompiledFormat[] = [
  ...compileFile(upsData as CourierFile, 'ups'),
  ...compileFile(uspsData as CourierFile, 'usps'),
  ...compileFile(fedexData as CourierFile, 'fedex'),
  ...compileFile(fedexLegacyData as CourierFile, 'fedex', (d) => d.id === 'fedex_smartpost'),
  ...compileFile(canadapostData as CourierFile, 'canadapost'),
  ...compileFile(s10Data as CourierFile, null),
  ...compileFile(localData as CourierFile, null),
];

// --- public API ---------------------------------------------------------------------------------------------

// Upper-case and drop spaces and dashes: defined once in the contract, with the length limit.
export { normalizeTrackingNumber };

type Candidate = DetectedCarrier & {
  formatId: string;
  hasChecksum: boolean;
  rank: number;
  tid: string;
  /** The service the number's service-type digits name (a UPS 1Z number), null when the format has none. */
  serviceFromNumber: string | null;
};

const MAX_LEN = TRACKING_NUMBER_MAX;
const SHAPE = /^[A-Z0-9]+$/;

function matchFormats(tid: string): Candidate[] {
  if (tid.length < 5 || tid.length > MAX_LEN || !SHAPE.test(tid)) return [];
  const out: Candidate[] = [];
  for (const f of FORMATS) {
    const m = f.regex.exec(tid);
    if (!m) continue;
    const groups = (m.groups ?? {}) as Record<string, string | undefined>;
    let courier = f.courier;
    let existsOk = true;
    for (const e of f.exists) {
      const v = groups[e.group] ?? '';
      if (!e.values.has(v)) existsOk = false;
    }
    if (!existsOk) continue; // e.g. S10 with country XX is not a format match at all (carrier numbers §6)
    if (courier === null) {
      courier = S10_COUNTRY_TO_COURIER[groups.CountryCode ?? ''] ?? null;
      if (courier === null) continue;
    }
    let checkDigitValid = false;
    if (f.checksum) {
      let serial = groups.SerialNumber ?? '';
      if (f.prependIf && f.prependIf.re.test(serial)) serial = f.prependIf.content + serial;
      checkDigitValid = f.checksum(serial, groups.CheckDigit ?? '');
    }
    const serviceCode = f.serviceLookup ? groups[f.serviceLookup.group] : undefined;
    const serviceFromNumber = (serviceCode && f.serviceLookup?.table.get(serviceCode)) || null;
    const service = serviceFromNumber || f.name;
    out.push({
      courier,
      name: COURIERS[courier].name,
      checkDigitValid,
      service,
      serviceFromNumber,
      formatId: f.id,
      hasChecksum: f.checksum !== null,
      rank: f.rank,
      tid: trackablePart(f.id, courier, tid, groups),
    });
  }
  out.sort((a, b) => Number(b.checkDigitValid) - Number(a.checkDigitValid) || a.rank - b.rank);
  return out;
}

function bestPerCourier(cands: Candidate[]): Candidate[] {
  const seen = new Set<CourierSlug>();
  return cands.filter((c) => (seen.has(c.courier) ? false : (seen.add(c.courier), true)));
}

/** Candidate carriers whose formats match, best first (check-digit-valid ones first), one entry per carrier. */
export function detectCarriers(raw: string): DetectedCarrier[] {
  return bestPerCourier(matchFormats(normalizeTrackingNumber(raw))).map(({ courier, name, checkDigitValid, service }) => ({
    courier,
    name,
    checkDigitValid,
    ...(service ? { service } : {}),
  }));
}

/**
 * The service a number names by itself for this carrier (the service-type digits of a UPS 1Z number: "03" is
 * "UPS United States Ground"), else null: the tracking's service until the carrier names one (decision 158).
 */
export function serviceFromNumber(tid: string, courier: string): string | null {
  return bestPerCourier(matchFormats(normalizeTrackingNumber(tid))).find((c) => c.courier === courier)?.serviceFromNumber ?? null;
}

/** Detection details for callers that want the format id and the trackable number (tests, docs, bench). */
export function explainDetection(raw: string): Array<DetectedCarrier & { formatId: string; tid: string }> {
  return bestPerCourier(matchFormats(normalizeTrackingNumber(raw))).map(({ courier, name, checkDigitValid, service, formatId, tid }) => ({
    courier,
    name,
    checkDigitValid,
    ...(service ? { service } : {}),
    formatId,
    tid,
  }));
}

export const UNKNOWN_FORMAT_MESSAGE = 'We could not recognise this tracking number. Choose the courier.';

function mismatchWarning(courier: CourierSlug): string {
  return `This number does not look like a ${COURIERS[courier].name} tracking number; we will try it anyway.`;
}

/**
 * Decide which courier and which number to track.
 * - courier given: always accepted (carrier numbers §7: never hard-reject a number the user assigned to a carrier);
 *   a warning when no format of that courier matches with a valid check digit.
 * - no courier: the best check-digit-valid candidate; if every check digit fails but all candidates belong to
 *   one courier (e.g. a mistyped 1Z number), that courier with a warning; otherwise UNKNOWN_FORMAT.
 */
export function resolveCourier(raw: string, courier: CourierSlug | null): { tid: string; courier: CourierSlug; warning?: string } {
  const normalized = normalizeTrackingNumber(raw);
  if (normalized.length === 0) throw new CarrierDetectError('INVALID_NUMBER', MSG.trackingNumberRequired);
  if (normalized.length > MAX_LEN) throw new CarrierDetectError('INVALID_NUMBER', MSG.trackingNumberTooLong);
  if (!SHAPE.test(normalized)) throw new CarrierDetectError('INVALID_NUMBER', 'A tracking number has only letters and digits');
  const cands = matchFormats(normalized);
  if (courier) {
    const mine = cands.filter((c) => c.courier === courier);
    const good = mine.find((c) => c.checkDigitValid) ?? mine.find((c) => !c.hasChecksum);
    if (good) return { tid: good.tid, courier };
    return { tid: mine[0]?.tid ?? normalized, courier, warning: mismatchWarning(courier) };
  }
  const best = cands[0];
  if (best?.checkDigitValid) return { tid: best.tid, courier: best.courier };
  const couriers = new Set(cands.map((c) => c.courier));
  const withChecksum = cands.find((c) => c.hasChecksum);
  if (couriers.size === 1 && withChecksum) {
    return {
      tid: withChecksum.tid,
      courier: withChecksum.courier,
      warning: `The check digit of this number does not match a ${withChecksum.name} tracking number; please check it. We will try it anyway.`,
    };
  }
  throw new CarrierDetectError('UNKNOWN_FORMAT', UNKNOWN_FORMAT_MESSAGE);
}
