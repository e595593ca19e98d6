// Carrier push, the receiving half (docs/carriers.md "Push"): each carrier authenticates its events its own way,
// every comparison is constant-time, and every event is read by the same normaliser as a poll of that carrier.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { arr, isObj, str } from './http.ts';
import type { TrackResult } from './types.ts';
import { normalizeUpsPackage, upsActivityTypeCode, upsStatusCode } from './ups.ts';
import { parseFedexResponse } from './fedex.ts';
import { parseUspsResponse } from './usps.ts';
import { PUSH_TIMESTAMP_WINDOW_MS, type PushCourier } from './push-subscribe.ts';

type Json = Record<string, unknown>;
export type PushHeaders = Record<string, string | string[] | undefined>;
export type PushReading =
  { ok: true; results: TrackResult[] } | { ok: false; status: 400 | 401; reason: 'forged' | 'stale' | 'malformed'; message: string };

const header = (h: PushHeaders, name: string): string => {
  const v = h[name];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
};

/** Constant-time equality of two strings (of any length: unequal lengths compare a digest). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  if (x.length !== y.length) {
    timingSafeEqual(x, x);
    return false;
  }
  return timingSafeEqual(x, y);
}

export const hmacBase64 = (secret: string, message: string): string => createHmac('sha256', secret).update(message).digest('base64');

const refuse = (status: 400 | 401, reason: 'forged' | 'stale' | 'malformed', message: string): PushReading => ({
  ok: false,
  status,
  reason,
  message,
});

/**
 * Authenticate and read one pushed call. UPS: the `credential` header we chose and the UPS user agent, one event
 * per call (a partial result). FedEx: `fdx-signature` = base64 HMAC-SHA256 of the raw body keyed by the security
 * token; the body is a Track API response (full history). USPS: `X-HMAC` = base64 HMAC-SHA256 of timestamp +
 * payload, the payload a Tracking v3 record as a JSON string; the timestamp must be within five minutes.
 */
export function readPush(courier: PushCourier, headers: PushHeaders, raw: string, secret: string, nowMs: number): PushReading {
  if (courier === 'ups') {
    if (!safeEqual(header(headers, 'credential'), secret) || !header(headers, 'user-agent').startsWith('UPSPubSubTrackingService'))
      return refuse(401, 'forged', 'The UPS credential does not match.');
    const event = safeParse(raw);
    const tid = isObj(event) ? str(event.trackingNumber)?.trim().toUpperCase() : null;
    if (!isObj(event) || !tid) return refuse(400, 'malformed', 'A UPS event needs a trackingNumber.');
    const result = upsEventResult(event, tid);
    return result ? { ok: true, results: [result] } : refuse(400, 'malformed', 'The UPS event has no readable time.');
  }
  if (courier === 'fedex') {
    if (!safeEqual(header(headers, 'fdx-signature'), hmacBase64(secret, raw)))
      return refuse(401, 'forged', 'The FedEx signature does not match.');
    const body = safeParse(raw);
    const entries = isObj(body) && isObj(body.output) ? arr(body.output.completeTrackResults).filter(isObj) : [];
    const tids = entries.map((e) => str(e.trackingNumber)).filter((t): t is string => !!t);
    if (tids.length === 0) return refuse(400, 'malformed', 'A FedEx event needs completeTrackResults.');
    return { ok: true, results: parseFedexResponse({ status: 200, text: raw }, tids).filter((r) => r.ok) };
  }
  const envelope = safeParse(raw);
  const timestamp = isObj(envelope) ? str(envelope.timestamp) : null;
  const payload = isObj(envelope) ? str(envelope.payload) : null;
  if (!timestamp || payload === null) return refuse(400, 'malformed', 'A USPS event needs a timestamp and a payload.');
  if (!safeEqual(header(headers, 'x-hmac'), hmacBase64(secret.slice(0, 32), timestamp + payload)))
    return refuse(401, 'forged', 'The USPS signature does not match.');
  const at = Date.parse(timestamp);
  if (!Number.isFinite(at) || Math.abs(nowMs - at) > PUSH_TIMESTAMP_WINDOW_MS)
    return refuse(401, 'stale', 'The USPS event timestamp is outside the five-minute window.');
  const record = safeParse(payload);
  const tid = isObj(record) ? str(record.trackingNumber) : null;
  if (!tid) return refuse(400, 'malformed', 'The USPS payload has no trackingNumber.');
  const r = parseUspsResponse({ status: 200, text: payload }, tid);
  return { ok: true, results: r.ok ? [r] : [] };
}

/** One Track Alert event as a one-activity Track API package, read by the same normaliser as a poll. */
function upsEventResult(e: Json, tid: string): TrackResult | null {
  const loc = isObj(e.activityLocation) ? e.activityLocation : {};
  const st = isObj(e.activityStatus) ? e.activityStatus : {};
  const pkg = {
    trackingNumber: tid,
    activity: [
      {
        location: { address: { city: loc.city, stateProvince: loc.stateProvince, postalCode: loc.postalCode, country: loc.country } },
        status: { type: st.type, code: st.code, description: st.description, statusCode: st.descriptionCode },
        date: e.localActivityDate,
        time: e.localActivityTime,
        gmtDate: e.gmtActivityDate,
        gmtTime: e.gmtActivityTime,
      },
    ],
  };
  const r = normalizeUpsPackage(pkg, tid);
  if (!r.ok || r.checkpoints.length === 0) return null;
  // An informational scan (type U, codes 153-155) says nothing of the status: the tracking keeps its own, where a
  // one-event package would otherwise fall back to In Transit.
  const own = upsStatusCode(str(st.descriptionCode)) ?? upsActivityTypeCode(str(st.type), str(st.code));
  // One event, not the whole picture: the expected date, origin and destination stay as they are.
  return {
    ...r,
    expected: null,
    estimatedDelivery: null,
    origin: null,
    destination: null,
    partial: true,
    keepStatus: own === null || own === 'informational',
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
