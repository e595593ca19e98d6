// Canada Post tracking web service (carrier notes §4): REST + XML, HTTP Basic on every call, one PIN per call.
import { XMLParser } from 'fast-xml-parser';
import {
  failure,
  fromError,
  joinUrl,
  kindForStatus,
  limitedRequest,
  serviceName,
  success,
  type AdapterDeps,
  type CarrierAdapter,
} from './adapter.ts';
import { basicAuth, CarrierError, cleanText, isObj, str, type HttpResponse } from './http.ts';
import {
  asStatus,
  carrierEstimate,
  expectedFrom,
  joinLocation,
  parseIsoLike,
  resolveTimes,
  STATUS_MAPPING,
  type MappedStatus,
  type RawTime,
} from './normalize.ts';
import type { NormalizedCheckpoint, TrackResult, TrackingStatus } from './types.ts';

export const CANADAPOST_PRODUCTION_URL = 'https://soa-gw.canadapost.ca';
// "`*/*` in place of the header value will return an error" (carrier notes §4.2).
export const CANADAPOST_ACCEPT = 'application/vnd.cpc.track-v2+xml';

export type CanadaPostConfig = { username: string; password: string; language?: 'en-CA' | 'fr-CA' };

export function canadaPostDetailPath(tid: string): string {
  // 15-digit delivery-notice-card numbers have their own resource (carrier notes §4.1).
  const kind = /^\d{15}$/.test(tid) ? 'dnc' : 'pin';
  return `/vis/track/${kind}/${encodeURIComponent(tid)}/detail`;
}

export function createCanadaPostAdapter(cfg: CanadaPostConfig, deps: AdapterDeps): CarrierAdapter {
  async function trackOne(tid: string): Promise<TrackResult> {
    try {
      const res = await limitedRequest(deps, joinUrl(deps.baseUrl, canadaPostDetailPath(tid)), {
        method: 'GET',
        headers: {
          authorization: basicAuth(cfg.username, cfg.password),
          accept: CANADAPOST_ACCEPT,
          'accept-language': cfg.language ?? 'en-CA',
        },
      });
      return parseCanadaPostResponse(res, tid);
    } catch (err) {
      return fromError('canadapost', tid, err);
    }
  }
  return { courier: 'canadapost', maxBatch: 1, trackBatch: (tids) => Promise.all(tids.map(trackOne)) };
}

const parser = new XMLParser({
  ignoreAttributes: true,
  // Namespaces differ between track (v1) and track-v2 media types (carrier notes §4.2, §6 "XML"); strip them.
  removeNSPrefix: true,
  // Keep "0174" as a string; we compare identifiers as integers ourselves.
  parseTagValue: false,
  trimValues: true,
  // Decode &#233; (French fixture) but keep entity expansion bounded.
  htmlEntities: true,
  isArray: (name) => name === 'occurrence' || name === 'message',
});

export function parseCanadaPostXml(text: string): Record<string, unknown> {
  // A BOM or leading whitespace before the declaration breaks strict parsers (the FR fixture starts with a space).
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (!trimmed.startsWith('<')) throw new CarrierError('malformed', 'Canada Post response is not XML.');
  // Carrier bodies never need a DTD; refusing it rules out entity-expansion tricks.
  if (/<!DOCTYPE|<!ENTITY/i.test(trimmed)) throw new CarrierError('malformed', 'Canada Post response contains a DTD.');
  let doc: unknown;
  try {
    doc = parser.parse(trimmed);
  } catch {
    throw new CarrierError('malformed', 'Canada Post response is not well-formed XML.');
  }
  if (!isObj(doc)) throw new CarrierError('malformed', 'Canada Post response is empty.');
  return doc;
}

// Event time zones are names, not offsets (carrier notes §6). Unknown names (international legs) borrow a neighbour's offset.
const ZONES: Record<string, number> = {
  NST: -210,
  NDT: -150,
  AST: -240,
  ADT: -180,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  UTC: 0,
  GMT: 0,
};

function occurrenceTime(o: Record<string, unknown>): RawTime | null {
  const date = str(o['event-date']);
  const time = str(o['event-time']);
  const t = parseIsoLike(date && time ? `${date}T${time}` : date);
  if (!t) return null;
  const zone = (str(o['event-time-zone']) ?? '').trim().toUpperCase();
  return { ...t, offsetMin: zone in ZONES ? ZONES[zone]! : null };
}

export function parseCanadaPostResponse(res: Pick<HttpResponse, 'status' | 'text'>, tid: string): TrackResult {
  try {
    let doc: Record<string, unknown>;
    try {
      doc = parseCanadaPostXml(res.text);
    } catch (err) {
      if (res.status !== 200) return failure('canadapost', tid, kindForStatus(res.status), `Canada Post answered HTTP ${res.status}.`);
      throw err;
    }
    if (isObj(doc.messages)) {
      // <messages><message><code>004</code><description>No Pin History</description></message></messages> (carrier notes §4.4)
      const m = (Array.isArray(doc.messages.message) ? doc.messages.message : []).find(isObj);
      const code = (str(m?.code) ?? '').trim();
      const desc = cleanText(m?.description) || `Canada Post answered HTTP ${res.status}.`;
      if (code === '004' || code === '002') return failure('canadapost', tid, 'not-found', desc);
      if (/^E00\d$/.test(code) || /^AA00\d$/.test(code) || res.status === 401 || res.status === 403)
        return failure('canadapost', tid, 'auth', desc);
      if (code === 'Server' || /SLM Monitor/i.test(desc)) return failure('canadapost', tid, 'rate-limited', desc, 60_000);
      return failure('canadapost', tid, res.status >= 400 ? kindForStatus(res.status) : 'malformed', desc);
    }
    if (res.status !== 200) return failure('canadapost', tid, kindForStatus(res.status), `Canada Post answered HTTP ${res.status}.`);
    const detail = doc['tracking-detail'];
    if (!isObj(detail)) throw new CarrierError('malformed', 'Canada Post response has no tracking-detail.');
    return normalizeDetail(detail, tid);
  } catch (err) {
    return fromError('canadapost', tid, err);
  }
}

function normalizeDetail(detail: Record<string, unknown>, tid: string): TrackResult {
  const se = isObj(detail['significant-events']) ? detail['significant-events'] : {};
  const occ = (Array.isArray(se.occurrence) ? se.occurrence : []).filter(isObj).slice(0, 500);
  const iso = resolveTimes(occ.map(occurrenceTime));
  const mapped = occ.map((o) => canadaPostEvent(str(o['event-identifier'])));
  const statuses: TrackingStatus[] = new Array(occ.length);
  let carry: TrackingStatus = 'InTransit';
  for (let i = occ.length - 1; i >= 0; i--) {
    const m = mapped[i];
    if (m && m !== 'informational') carry = m;
    statuses[i] = carry;
  }
  const checkpoints: NormalizedCheckpoint[] = [];
  occ.forEach((o, i) => {
    if (!iso[i]) return;
    checkpoints.push({
      status: statuses[i]!,
      location: joinLocation(o['event-site'], o['event-province']),
      message: cleanText(o['event-description']),
      time: iso[i]!,
    });
  });
  // First non-informational occurrence decides (carrier notes §5.6).
  let status: TrackingStatus | null = null;
  for (const m of mapped) {
    if (m && m !== 'informational') {
      status = m;
      break;
    }
  }
  if (!status) status = 'Pending';
  const expectedRaw = (str(detail['changed-expected-date']) || null) ?? (str(detail['expected-delivery-date']) || null);
  return success(
    'canadapost',
    tid,
    status,
    checkpoints,
    expectedFrom(parseIsoLike(expectedRaw)),
    null,
    joinLocation(detail['destination-postal-id']),
    // Canada Post names a day, never a window (carrier notes §4.3).
    carrierEstimate(parseIsoLike(expectedRaw), null, null, null),
    // service-name, in the language asked for ("Expedited Parcels", "Colis accélérés"; carrier notes §4.3).
    serviceName(detail['service-name']),
  );
}

// ---- status lookup (carrier notes §5.6) ----
const STATUS = STATUS_MAPPING.canadapost as {
  event_identifier_to_status: Record<string, MappedStatus>;
  informational_event_identifiers: number[];
};

/** event-identifier as an integer ("0174" == 174; karrio's string compare is the bug to avoid, carrier notes §4.7). */
export function canadaPostEvent(identifier: string | null): TrackingStatus | 'informational' | null {
  if (!identifier || !/^\d{1,6}$/.test(identifier.trim())) return null;
  const n = Number(identifier.trim());
  if (STATUS.informational_event_identifiers.includes(n)) return 'informational';
  // Everything not listed is in-network movement (carrier notes §5.6 "everything else InTransit").
  return asStatus(STATUS.event_identifier_to_status[String(n)]) ?? 'InTransit';
}
