// UPS Track API v1 (carrier notes §1): OAuth client credentials, one inquiry number per GET.
import { randomUUID } from 'node:crypto';
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
import { arr, basicAuth, CarrierError, cleanText, isObj, parseJson, str, type HttpResponse } from './http.ts';
import {
  asStatus,
  carrierEstimate,
  expectedFrom,
  joinLocation,
  parseCompact,
  parseOffset,
  resolveTimes,
  STATUS_MAPPING,
  timeOnDay,
  type MappedStatus,
} from './normalize.ts';
import { OAuthTokenCache, readExpiresIn } from './oauth.ts';
import { createUpsPush } from './push-subscribe.ts';
import type { NormalizedCheckpoint, TrackResult, TrackingStatus } from './types.ts';

export const UPS_PRODUCTION_URL = 'https://onlinetools.ups.com';
export const UPS_TOKEN_PATH = '/security/v1/oauth/token';
export const UPS_TRACK_PATH = '/api/track/v1/details/';

export type UpsConfig = { clientId: string; clientSecret: string; transactionSrc?: string };

export function createUpsAdapter(cfg: UpsConfig, deps: AdapterDeps): CarrierAdapter {
  const oauth = new OAuthTokenCache(async () => {
    // carrier notes §1.2: Basic client_id:secret, form grant_type=client_credentials.
    const res = await limitedRequest(deps, joinUrl(deps.baseUrl, UPS_TOKEN_PATH), {
      method: 'POST',
      headers: {
        authorization: basicAuth(cfg.clientId, cfg.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: 'grant_type=client_credentials',
    });
    if (res.status !== 200) throw tokenError(res, 'UPS');
    const body = parseJson(res.text);
    const token = isObj(body) ? str(body.access_token) : null;
    if (!token) throw new CarrierError('auth', 'UPS token response has no access_token.');
    // expires_in is a string here ("14399"), carrier notes §1.2.
    return { accessToken: token, expiresInSec: readExpiresIn(isObj(body) ? body.expires_in : undefined, 14399) };
  });

  async function trackOne(tid: string): Promise<TrackResult> {
    try {
      const res = await bearerRequest(deps, oauth, (token) => ({
        url:
          joinUrl(deps.baseUrl, UPS_TRACK_PATH + encodeURIComponent(tid)) +
          '?locale=en_US&returnSignature=false&returnMilestones=false&returnPOD=false',
        init: {
          method: 'GET',
          headers: {
            authorization: `Bearer ${token}`,
            // Both required by Tracking.yaml (carrier notes §1.3).
            transId: randomUUID().replace(/-/g, '').slice(0, 32),
            transactionSrc: cfg.transactionSrc ?? 'shiptrail',
            accept: 'application/json',
          },
        },
      }));
      return parseUpsResponse(res, tid);
    } catch (err) {
      return fromError('ups', tid, err);
    }
  }

  return {
    courier: 'ups',
    maxBatch: 1,
    trackBatch: (tids) => Promise.all(tids.map(trackOne)),
    push: createUpsPush(deps, oauth, cfg.transactionSrc ?? 'shiptrail'),
  };
}

/** Map one UPS HTTP response to a result. Exported for unit tests of hostile bodies. */
export function parseUpsResponse(res: Pick<HttpResponse, 'status' | 'text'>, tid: string): TrackResult {
  try {
    const body = jsonBody(res, 'UPS');
    if (res.status !== 200) {
      // Error envelope {"response":{"errors":[{code,message}]}} (carrier notes §1.5).
      const e = isObj(body) && isObj(body.response) ? arr(body.response.errors).find(isObj) : undefined;
      const code = e ? str(e.code) : null;
      const msg = cleanText(e?.message) || `UPS answered HTTP ${res.status}.`;
      if (code === 'TV1002' || code === 'TW0001' || res.status === 404) return failure('ups', tid, 'not-found', msg);
      // 250xxx are licence/credential errors (karrio fixture "Invalid Access License number").
      if (code && /^250\d{3}$/.test(code)) return failure('ups', tid, 'auth', msg);
      return failure('ups', tid, kindForStatus(res.status), msg);
    }
    if (!isObj(body) || !isObj(body.trackResponse)) throw new CarrierError('malformed', 'UPS response has no trackResponse.');
    const shipment = arr(body.trackResponse.shipment).find(isObj);
    if (!shipment) throw new CarrierError('malformed', 'UPS response has no shipment.');
    const pkg = arr(shipment.package).find(isObj);
    if (!pkg) {
      // Not found is HTTP 200 + warnings TW0001 and no package (carrier notes §1.5, UPS-API #102).
      const w = arr(shipment.warnings).find(isObj);
      return failure('ups', tid, 'not-found', cleanText(w?.message) || 'UPS has no information for this number yet.');
    }
    return normalizeUpsPackage(pkg, tid);
  } catch (err) {
    return fromError('ups', tid, err);
  }
}

function upsAddress(a: unknown): string | null {
  if (!isObj(a)) return null;
  return joinLocation(a.city, a.stateProvince, a.postalCode, a.countryCode ?? a.country);
}

export function normalizeUpsPackage(pkg: Record<string, unknown>, tid: string): TrackResult {
  const activities = arr(pkg.activity).filter(isObj).slice(0, 500);
  const per: Array<{ status: TrackingStatus | null | 'informational'; message: string; location: string | null }> = [];
  const times = activities.map((a) => {
    // UTC from gmtDate+gmtTime when present, else local date+time with gmtOffset (carrier notes §1.7).
    const gmt = parseCompact(str(a.gmtDate), str(a.gmtTime), 0);
    if (gmt) return gmt;
    return parseCompact(str(a.date), str(a.time), parseOffset(str(a.gmtOffset)));
  });
  for (const a of activities) {
    const s = isObj(a.status) ? a.status : {};
    const byCode = upsStatusCode(str(s.statusCode));
    const st = byCode ?? upsActivityTypeCode(str(s.type), str(s.code));
    const loc = isObj(a.location) ? upsAddress(a.location.address) : null;
    per.push({ status: st, message: cleanText(s.description) || cleanText(s.simplifiedTextDescription), location: loc });
  }
  const iso = resolveTimes(times);

  // Current status: currentStatus.code when numeric, else the first non-informational activity (carrier notes §5.3).
  let status: TrackingStatus | null = null;
  const cur = isObj(pkg.currentStatus) ? pkg.currentStatus : null;
  if (cur) {
    const c = upsStatusCode(str(cur.code)) ?? upsStatusCode(str(cur.statusCode));
    if (c && c !== 'informational') status = c;
  }
  if (!status) {
    for (const p of per) {
      if (p.status && p.status !== 'informational') {
        status = p.status;
        break;
      }
    }
  }
  const checkpoints: NormalizedCheckpoint[] = [];
  // Walk oldest→newest so informational events inherit the status before them.
  const statuses: TrackingStatus[] = new Array(per.length);
  let carry: TrackingStatus = 'InTransit';
  for (let i = per.length - 1; i >= 0; i--) {
    const s = per[i]!.status;
    if (s && s !== 'informational') carry = s;
    statuses[i] = carry;
  }
  per.forEach((p, i) => {
    if (!iso[i]) return; // an event without a readable time cannot be placed; skip it rather than invent one
    checkpoints.push({ status: statuses[i]!, location: p.location, message: p.message, time: iso[i]! });
  });

  if (!status) status = checkpoints.length ? 'InTransit' : 'Pending';

  // Expected: RDD over SDD; DEL is the actual delivery date, not an estimate (carrier notes §1.4).
  const dates = arr(pkg.deliveryDate).filter(isObj);
  const pick = dates.find((d) => str(d.type) === 'RDD') ?? dates.find((d) => str(d.type) === 'SDD');
  const day = pick ? parseCompact(str(pick.date), null, null) : null;
  const expected = day ? expectedFrom(day) : null;
  // The window: deliveryTime start/end (HHMMSS, local to the destination); DEL is the actual delivery time, not a
  // window. Its offset is the newest scan's (the parcel is near the destination by then; decision 122).
  const dt = isObj(pkg.deliveryTime) ? pkg.deliveryTime : {};
  const windowed = day && str(dt.type)?.trim().toUpperCase() !== 'DEL';
  const newestOffset = activities.map((a) => parseOffset(str(a.gmtOffset))).find((o) => o !== null) ?? null;
  const estimate = carrierEstimate(
    day,
    windowed ? timeOnDay(day, str(dt.startTime)) : null,
    windowed ? timeOnDay(day, str(dt.endTime)) : null,
    newestOffset,
  );

  const addrs = arr(pkg.packageAddress).filter(isObj);
  const origin = upsAddress(addrs.find((a) => str(a.type) === 'ORIGIN')?.address);
  const destination = upsAddress(addrs.find((a) => str(a.type) === 'DESTINATION')?.address);
  // package.service.description (carrier notes §1.4 "service"), e.g. "UPS Ground".
  const service = serviceName(isObj(pkg.service) ? pkg.service.description : null);
  return success('ups', tid, status, checkpoints, expected, origin, destination, estimate, service);
}

// ---- status lookup (carrier notes §5.3) ----
const STATUS = STATUS_MAPPING.ups as {
  status_description_code_to_status: Record<string, MappedStatus>;
  attempt_exception_codes: string[];
  out_for_delivery_activity_codes: string[];
  activity_type_to_status: Record<string, MappedStatus>;
};

/** 3-digit status/description code, compared as an integer ("092" == "92"). */
export function upsStatusCode(code: string | null): TrackingStatus | null | 'informational' {
  if (!code || !/^\d{1,3}$/.test(code.trim())) return null;
  const key = code.trim().padStart(3, '0');
  const v = STATUS.status_description_code_to_status[key];
  if (v === '(informational)') return 'informational';
  return asStatus(v);
}
export function upsActivityTypeCode(type: string | null, code: string | null): TrackingStatus | null | 'informational' {
  const t = (type ?? '').trim().toUpperCase();
  const c = (code ?? '').trim().toUpperCase();
  if (t === 'X' && STATUS.attempt_exception_codes.includes(c)) return 'FailAttempt';
  if (t === 'I' && STATUS.out_for_delivery_activity_codes.includes(c)) return 'OutForDelivery';
  const v = STATUS.activity_type_to_status[t];
  if (v === '(informational)') return 'informational';
  return asStatus(v);
}
