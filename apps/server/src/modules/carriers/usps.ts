// USPS Tracking API 3.x (carrier notes §2): OAuth client credentials; v3 GET one number; v3r2 POST an array.
import {
  bearerRequest,
  jsonBody,
  failure,
  fromError,
  joinUrl,
  kindForStatus,
  limitedRequest,
  serviceName,
  success,
  tokenError,
  type AdapterDeps,
  type CarrierAdapter,
} from './adapter.ts';
import { arr, CarrierError, cleanText, isObj, parseJson, str, type HttpResponse } from './http.ts';
import {
  asStatus,
  carrierEstimate,
  expectedFrom,
  joinLocation,
  parseIsoLike,
  parseOffset,
  resolveTimes,
  STATUS_MAPPING,
  timeOnDay,
  type MappedStatus,
  type RawTime,
} from './normalize.ts';
import { createUspsPush } from './push-subscribe.ts';
import { OAuthTokenCache, readExpiresIn } from './oauth.ts';
import type { EstimatedDelivery, NormalizedCheckpoint, TrackResult, TrackingStatus } from './types.ts';

export const USPS_PRODUCTION_URL = 'https://apis.usps.com';
export const USPS_TOKEN_PATH = '/oauth2/v3/token';
export const USPS_TRACK_PATH = '/tracking/v3/tracking/';
export const USPS_TRACK_V3R2_PATH = '/tracking/v3r2/tracking';
// The v3r2 batch limit is not verified; 35 is the old TrackV2 limit commonly quoted (carrier notes §2.3).
export const USPS_V3R2_MAX_BATCH = 35;

/** `adminEmail`: where USPS writes about a subscription (it is required when subscribing). */
export type UspsConfig = { clientId: string; clientSecret: string; api?: 'v3' | 'v3r2'; adminEmail?: string };

export function createUspsAdapter(cfg: UspsConfig, deps: AdapterDeps): CarrierAdapter {
  const oauth = new OAuthTokenCache(async () => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: cfg.clientId,
      client_secret: cfg.clientSecret,
      scope: 'tracking',
    });
    // Token calls count against the hourly quota too (carrier notes §2.6), hence limitedRequest.
    const res = await limitedRequest(deps, joinUrl(deps.baseUrl, USPS_TOKEN_PATH), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    });
    if (res.status !== 200) throw tokenError(res, 'USPS');
    const body = parseJson(res.text);
    const token = isObj(body) ? str(body.access_token) : null;
    if (!token || !isObj(body)) throw new CarrierError('auth', 'USPS token response has no access_token.');
    // A token without the tracking scope makes every call fail with 401 "client application identifier is
    // invalid" (carrier notes §2.2, USPS issues #28/#56): say so clearly instead.
    const scope = str(body.scope);
    if (scope !== null && !scope.split(/\s+/).includes('tracking')) {
      throw new CarrierError('auth', 'The USPS app is not approved for the Tracking API (token scope lacks "tracking").');
    }
    return { accessToken: token, expiresInSec: readExpiresIn(body.expires_in, 28799) };
  });

  async function trackOne(tid: string): Promise<TrackResult> {
    try {
      const res = await bearerRequest(deps, oauth, (token) => ({
        url: joinUrl(deps.baseUrl, USPS_TRACK_PATH + encodeURIComponent(tid)) + '?expand=DETAIL',
        init: { method: 'GET', headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
      }));
      return parseUspsResponse(res, tid);
    } catch (err) {
      return fromError('usps', tid, err);
    }
  }

  async function trackV3r2(tids: string[]): Promise<TrackResult[]> {
    try {
      const res = await bearerRequest(deps, oauth, (token) => ({
        url: joinUrl(deps.baseUrl, USPS_TRACK_V3R2_PATH),
        init: {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' },
          body: JSON.stringify(tids.map((trackingNumber) => ({ trackingNumber }))),
        },
      }));
      return parseUspsV3r2Response(res, tids);
    } catch (err) {
      return tids.map((tid) => fromError('usps', tid, err));
    }
  }

  const v3r2 = cfg.api === 'v3r2';
  return {
    courier: 'usps',
    maxBatch: v3r2 ? USPS_V3R2_MAX_BATCH : 1,
    trackBatch: (tids) => (v3r2 ? trackV3r2(tids) : Promise.all(tids.map(trackOne))),
    push: createUspsPush(deps, oauth, cfg.adminEmail ?? 'support@shiptrail.local'),
  };
}

const NOT_FOUND_CODES = new Set(['150001', '150002', '150003', '150004', '150009']);
const NOT_FOUND_TEXT = /not yet available|may be incorrect|tracking is not available|could not locate|not found/i;

/** Error envelope {apiVersion, error:{code,message,errors:[{code,title,detail}]}} (carrier notes §2.5). */
function uspsError(status: number, body: unknown, tid: string): TrackResult {
  const err = isObj(body) && isObj(body.error) ? body.error : null;
  const first = err ? arr(err.errors).find(isObj) : undefined;
  const subCode = first ? str(first.code) : null;
  const text =
    cleanText(err?.message) ||
    cleanText(first?.title) ||
    cleanText(first?.detail) ||
    (isObj(body) ? cleanText(body.error_description) : '');
  const message = text || `USPS answered HTTP ${status}.`;
  // Not found: 404, or 400 with a not-available code, or the not-available texts; not by code alone, because
  // v3r2 reuses 150006 (a 3849-ID volume error in the inventory) for "not yet available" (carrier notes §2.5).
  const anyText = [err?.message, first?.title, first?.detail].map((t) => str(t) ?? '').join(' ');
  if (status === 404 || (status === 400 && ((subCode && NOT_FOUND_CODES.has(subCode)) || NOT_FOUND_TEXT.test(anyText)))) {
    return failure('usps', tid, 'not-found', message);
  }
  return failure('usps', tid, kindForStatus(status), message);
}

export function parseUspsResponse(res: Pick<HttpResponse, 'status' | 'text'>, tid: string): TrackResult {
  try {
    const body = jsonBody(res, 'USPS');
    if (res.status !== 200) return uspsError(res.status, body, tid);
    if (!isObj(body)) throw new CarrierError('malformed', 'USPS response is not an object.');
    if (isObj(body.error)) return uspsError(400, body, tid);
    return normalizeUspsDetail(body, tid);
  } catch (err) {
    return fromError('usps', tid, err);
  }
}

/** v3r2: array out, one element per number; accepts detail objects, error envelopes, and a whole-call error. */
export function parseUspsV3r2Response(res: Pick<HttpResponse, 'status' | 'text'>, tids: string[]): TrackResult[] {
  let body: unknown;
  try {
    body = jsonBody(res, 'USPS');
  } catch (err) {
    return tids.map((tid) => fromError('usps', tid, err));
  }
  if (!Array.isArray(body)) {
    // Whole-call error such as the recorded 404 150006 (carrier notes §2.5).
    return tids.map((tid) =>
      res.status === 200 ? failure('usps', tid, 'malformed', 'USPS v3r2 response is not an array.') : uspsError(res.status, body, tid),
    );
  }
  const items = body.filter(isObj);
  return tids.map((tid, i) => {
    try {
      const item = items.find((x) => str(x.trackingNumber) === tid) ?? (items.length === tids.length ? items[i] : undefined);
      if (!item) return failure('usps', tid, 'malformed', 'USPS did not return this number.');
      if (isObj(item.error)) return uspsError(Number(str(item.error.code)) || 404, item, tid);
      if (str(item.statusCode) && Number(item.statusCode) >= 400) return uspsError(Number(item.statusCode), item, tid);
      return normalizeUspsDetail(item, tid);
    } catch (err) {
      return fromError('usps', tid, err);
    }
  });
}

function eventTime(e: Record<string, unknown>): RawTime | null {
  // eventTimestamp is local without offset; GMTOffset gives the offset. Compute from those two when both exist:
  // real data has GMTTimestamps whose date disagrees with the local time (usps_v3_moving_through_network_real:
  // 18:31 local at -06:00 with GMT "…-25T00:31Z"); else GMTTimestamp; else the local time (carrier notes §6).
  const local = parseIsoLike(str(e.eventTimestamp));
  const off = parseOffset(str(e.GMTOffset));
  if (local && local.offsetMin === null && off !== null) return { ...local, offsetMin: off };
  if (local && local.offsetMin !== null) return local;
  const gmt = parseIsoLike(str(e.GMTTimestamp));
  if (gmt) return { ...gmt, offsetMin: gmt.offsetMin ?? 0 };
  return local;
}

function normalizeUspsDetail(body: Record<string, unknown>, tid: string): TrackResult {
  const events = arr(body.trackingEvents).filter(isObj).slice(0, 500);
  const iso = resolveTimes(events.map(eventTime));
  const codes = events.map((e) => str(e.eventCode));
  const perCode = codes.map((c) => uspsEventCode(c));
  const statuses: TrackingStatus[] = new Array(events.length);
  // Oldest to newest: an event whose code we do not know keeps the status before it.
  let carry: TrackingStatus = 'InTransit';
  for (let i = events.length - 1; i >= 0; i--) {
    carry = perCode[i] ?? carry;
    statuses[i] = carry;
  }
  const checkpoints: NormalizedCheckpoint[] = [];
  events.forEach((e, i) => {
    if (!iso[i]) return;
    checkpoints.push({
      status: statuses[i]!,
      location: joinLocation(e.eventCity, e.eventState, e.eventZIP ?? e.eventZIPCode, e.eventCountry),
      message: cleanText(e.eventType),
      time: iso[i]!,
    });
  });

  // statusCategory first, Alert with an attempt code is a FailAttempt; else the newest event code;
  // else InTransit with events, Pending without (carrier notes §5.5).
  let status = uspsCategory(str(body.statusCategory));
  if (status === 'Exception' && /^alert$/i.test(str(body.statusCategory)?.trim() ?? '') && uspsIsAttemptCode(codes[0] ?? null))
    status = 'FailAttempt';
  if (!status) status = perCode[0] ?? null;
  if (!status) status = events.length ? 'InTransit' : 'Pending';

  const dde = isObj(body.deliveryDateExpectation) ? body.deliveryDateExpectation : {};
  const expectedRaw =
    str(body.expectedDeliveryTimeStamp) ??
    str(dde.expectedDeliveryDate) ??
    str(body.predictedDeliveryTimeStamp) ??
    str(body.predictedDeliveryDate) ??
    str(dde.predictedDeliveryDate);
  return success(
    'usps',
    tid,
    status,
    checkpoints,
    expectedFrom(parseIsoLike(expectedRaw)),
    joinLocation(body.originCity, body.originState, body.originZIP, body.originCountry),
    joinLocation(body.destinationCity, body.destinationState, body.destinationZIP, body.destinationCountryCode),
    uspsEstimate(body, dde, expectedRaw ?? str(body.expectedDeliveryDate), events),
    // mailClass, its HTML marks stripped ("USPS Ground Advantage<SUP>&#153;</SUP>"; carrier notes §2.4, §6).
    serviceName(body.mailClass),
  );
}

/**
 * The estimate (carrier notes §2.4, decision 122): the day of the expected (else predicted) date, local without
 * offset; the predicted window's start and end times bound it (v3 top level or v3r2 deliveryDateExpectation),
 * else `expectedDeliveryTime`, else a time on the timestamp other than midnight is the "by" time. Times are local:
 * they take the newest event's GMTOffset.
 */
function uspsEstimate(
  body: Record<string, unknown>,
  dde: Record<string, unknown>,
  dayRaw: string | null,
  events: Array<Record<string, unknown>>,
): EstimatedDelivery | null {
  const day = parseIsoLike(dayRaw);
  if (!day) return null;
  const offset = events.map((e) => parseOffset(str(e.GMTOffset))).find((o) => o !== null) ?? null;
  const start = str(body.predictedDeliveryWindowStartTime) ?? str(dde.predictedDeliveryWindowStartTime);
  const end = str(body.predictedDeliveryWindowEndTime) ?? str(dde.predictedDeliveryWindowEndTime) ?? str(body.expectedDeliveryTime);
  const timed = !day.dateOnly && (day.h !== 0 || day.mi !== 0) ? day : null;
  return carrierEstimate(day, timeOnDay(day, start), end ? timeOnDay(day, end) : timed, offset);
}

// ---- status lookup (carrier notes §5.5) ----
const STATUS = STATUS_MAPPING.usps as {
  status_category_to_status: Record<string, MappedStatus>;
  event_code_to_status: Record<string, MappedStatus>;
};

export function uspsCategory(category: string | null): TrackingStatus | null {
  if (!category) return null;
  return asStatus(STATUS.status_category_to_status[category.trim().toLowerCase()]);
}
export function uspsEventCode(code: string | null): TrackingStatus | null {
  if (!code) return null;
  return asStatus(STATUS.event_code_to_status[code.trim().toUpperCase()]);
}
const USPS_ATTEMPT_CODES = new Set(['02', '30', '51', '52', '53', '54', '55', '56']);
export function uspsIsAttemptCode(code: string | null): boolean {
  return !!code && USPS_ATTEMPT_CODES.has(code.trim().toUpperCase());
}
