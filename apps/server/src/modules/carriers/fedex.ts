// FedEx Track API v1 (carrier notes §3): OAuth client credentials, up to 30 numbers per POST.
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
  resolveTimes,
  STATUS_MAPPING,
  toUtcMs,
  type MappedStatus,
  type RawTime,
} from './normalize.ts';
import { createFedexPush } from './push-subscribe.ts';
import { OAuthTokenCache, readExpiresIn } from './oauth.ts';
import type { EstimatedDelivery, NormalizedCheckpoint, TrackResult, TrackingStatus } from './types.ts';

export const FEDEX_PRODUCTION_URL = 'https://apis.fedex.com';
export const FEDEX_TOKEN_PATH = '/oauth/token';
export const FEDEX_TRACK_PATH = '/track/v1/trackingnumbers';
// "At least one occurrence … Maximum limit is 30" (track.json, carrier notes §3.3).
export const FEDEX_MAX_BATCH = 30;

export type FedexConfig = { clientId: string; clientSecret: string };

export function createFedexAdapter(cfg: FedexConfig, deps: AdapterDeps): CarrierAdapter {
  const oauth = new OAuthTokenCache(async () => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: cfg.clientId, client_secret: cfg.clientSecret });
    const res = await limitedRequest(deps, joinUrl(deps.baseUrl, FEDEX_TOKEN_PATH), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    });
    if (res.status !== 200) throw tokenError(res, 'FedEx');
    const body = parseJson(res.text);
    const token = isObj(body) ? str(body.access_token) : null;
    if (!token) throw new CarrierError('auth', 'FedEx token response has no access_token.');
    return { accessToken: token, expiresInSec: readExpiresIn(isObj(body) ? body.expires_in : undefined, 3599) };
  });

  async function trackBatch(tids: string[]): Promise<TrackResult[]> {
    try {
      const res = await bearerRequest(deps, oauth, (token) => ({
        url: joinUrl(deps.baseUrl, FEDEX_TRACK_PATH),
        init: {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json',
            'accept-encoding': 'gzip',
            'x-locale': 'en_US',
          },
          body: JSON.stringify({
            includeDetailedScans: true,
            trackingInfo: tids.map((trackingNumber) => ({ trackingNumberInfo: { trackingNumber } })),
          }),
        },
      }));
      return parseFedexResponse(res, tids);
    } catch (err) {
      return tids.map((tid) => fromError('fedex', tid, err));
    }
  }

  return { courier: 'fedex', maxBatch: FEDEX_MAX_BATCH, trackBatch, push: createFedexPush(deps, oauth) };
}

/** One result per requested number, in request order. Exported for unit tests. */
export function parseFedexResponse(res: Pick<HttpResponse, 'status' | 'text'>, tids: string[]): TrackResult[] {
  let body: unknown;
  try {
    body = jsonBody(res, 'FedEx');
  } catch (err) {
    return tids.map((tid) => fromError('fedex', tid, err));
  }
  if (res.status !== 200) {
    // Request-level envelope {transactionId, errors:[{code,message}]} (carrier notes §3.5).
    const e = isObj(body) ? arr(body.errors).find(isObj) : undefined;
    const code = e ? str(e.code) : null;
    const msg = cleanText(e?.message) || `FedEx answered HTTP ${res.status}.`;
    // NOT.FOUND.ERROR is about the resource/endpoint, not a number: the whole call failed, retry later.
    const kind = code === 'NOT.FOUND.ERROR' ? 'carrier-down' : kindForStatus(res.status);
    return tids.map((tid) => failure('fedex', tid, kind, msg));
  }
  const complete = isObj(body) && isObj(body.output) ? arr(body.output.completeTrackResults).filter(isObj) : null;
  if (!complete) return tids.map((tid) => failure('fedex', tid, 'malformed', 'FedEx response has no completeTrackResults.'));
  return tids.map((tid, i) => {
    try {
      const entry = complete.find((c) => str(c.trackingNumber) === tid) ?? (complete.length === tids.length ? complete[i] : undefined);
      if (!entry) return failure('fedex', tid, 'malformed', 'FedEx did not return this number.');
      return normalizeFedexEntry(entry, tid);
    } catch (err) {
      return fromError('fedex', tid, err);
    }
  });
}

function newestScanMs(r: Record<string, unknown>): number {
  let best = -Infinity;
  for (const e of arr(r.scanEvents)) {
    if (!isObj(e)) continue;
    const t = parseIsoLike(str(e.date));
    if (t) best = Math.max(best, toUtcMs(t));
  }
  return best;
}

function fedexAddress(a: unknown): string | null {
  if (!isObj(a)) return null;
  return joinLocation(a.city, a.stateOrProvinceCode, a.postalCode, a.countryCode);
}

/**
 * The status of the latest status detail: its code decides, DE split by reason; derivedCode only when the code is
 * missing or unknown (carrier notes §5.4; the OD/derived IT trap in §3.8). Null when neither names a status.
 */
function fedexLatestStatus(chosen: Record<string, unknown>, scans: Record<string, unknown>[]): TrackingStatus | null {
  const lsd = isObj(chosen.latestStatusDetail) ? chosen.latestStatusDetail : {};
  const code = str(lsd.code);
  if (code?.toUpperCase() === 'DE') {
    const reasons = arr(lsd.ancillaryDetails).filter(isObj);
    const attempt =
      reasons.some((a) => fedexIsAttemptReason(str(a.reason), str(a.reasonDescription))) ||
      (scans[0] ? fedexIsAttemptReason(str(scans[0].exceptionCode), null) : false);
    return attempt ? 'FailAttempt' : 'Exception';
  }
  return fedexCode(code) ?? fedexDerivedCode(str(lsd.derivedCode));
}

function normalizeFedexEntry(entry: Record<string, unknown>, tid: string): TrackResult {
  const results = arr(entry.trackResults).filter(isObj);
  // A result is tracking data when it has a status or scans; the OpenAPI example carries an `error` object on a
  // successful result, so `error` alone does not make it an error (carrier notes §3.5, samples note).
  const withData = results.filter((r) => isObj(r.latestStatusDetail) || arr(r.scanEvents).length > 0);
  if (withData.length === 0) {
    const err = results.map((r) => (isObj(r.error) ? r.error : null)).find(Boolean) ?? null;
    const code = err ? str(err.code) : null;
    const msg = cleanText(err?.message) || 'FedEx returned no tracking data for this number.';
    if (!code || code.includes('NOTFOUND') || code.includes('NOT.FOUND')) return failure('fedex', tid, 'not-found', msg);
    return failure('fedex', tid, 'malformed', msg);
  }
  // Duplicates: the result whose newest scan is latest (carrier notes §3.8).
  let chosen = withData[0]!;
  for (const r of withData) if (newestScanMs(r) > newestScanMs(chosen)) chosen = r;

  const scans = arr(chosen.scanEvents).filter(isObj).slice(0, 500);
  const iso = resolveTimes(scans.map((e) => parseIsoLike(str(e.date))));
  const statuses: TrackingStatus[] = new Array(scans.length);
  let carry: TrackingStatus = 'InTransit';
  for (let i = scans.length - 1; i >= 0; i--) {
    const e = scans[i]!;
    const type = str(e.eventType);
    let s = fedexCode(type);
    if (type?.toUpperCase() === 'DE') {
      s = fedexIsAttemptReason(str(e.exceptionCode), str(e.exceptionDescription)) ? 'FailAttempt' : 'Exception';
    }
    // Never derivedStatusCode: an RS scan carries derivedStatusCode DL "Delivered" (carrier notes §3.8).
    carry = s ?? carry;
    statuses[i] = carry;
  }
  const checkpoints: NormalizedCheckpoint[] = [];
  scans.forEach((e, i) => {
    if (!iso[i]) return;
    const desc = cleanText(e.eventDescription);
    const exc = cleanText(e.exceptionDescription);
    checkpoints.push({
      status: statuses[i]!,
      location: fedexAddress(e.scanLocation),
      message: exc && exc !== desc ? `${desc}: ${exc}` : desc,
      time: iso[i]!,
    });
  });

  const status = fedexLatestStatus(chosen, scans) ?? (checkpoints.length ? (statuses[0] ?? 'InTransit') : 'Pending');

  // ESTIMATED_DELIVERY, else the estimated window's end. standardTransitTimeWindow is a service standard, not
  // this parcel's estimate (sandbox captures put it before the ship date), so it is not used.
  const dates = arr(chosen.dateAndTimes).filter(isObj);
  const est = dates.find((d) => str(d.type) === 'ESTIMATED_DELIVERY');
  const win =
    isObj(chosen.estimatedDeliveryTimeWindow) && isObj(chosen.estimatedDeliveryTimeWindow.window)
      ? chosen.estimatedDeliveryTimeWindow.window
      : {};
  const expected = expectedFrom(parseIsoLike(str(est?.dateTime) ?? str(win.ends)));
  const estimate = fedexEstimate(chosen, parseIsoLike(str(est?.dateTime)), win, scans);

  const addrOf = (o: unknown): unknown =>
    isObj(o) && isObj(o.locationContactAndAddress) ? o.locationContactAndAddress.address : undefined;
  const origin =
    fedexAddress(addrOf(chosen.originLocation)) ??
    fedexAddress(isObj(chosen.shipperInformation) ? chosen.shipperInformation.address : undefined);
  const destination =
    fedexAddress(addrOf(chosen.destinationLocation)) ??
    fedexAddress(isObj(chosen.recipientInformation) ? chosen.recipientInformation.address : undefined) ??
    fedexAddress(chosen.lastUpdatedDestinationAddress);
  return success('fedex', tid, status, checkpoints, expected, origin, destination, estimate, fedexService(chosen.serviceDetail));
}

/**
 * The estimate with its window (carrier notes §3.4, decision 122): ESTIMATED_DELIVERY names the day, the
 * estimated window's begins/ends bound it; without them a time on ESTIMATED_DELIVERY other than midnight is the
 * "by" time. standardTransitTimeWindow (the service standard) is the last resort, only when it does not end before
 * the newest scan (sandbox captures put it before the ship date, when it says nothing of this parcel).
 */
function fedexEstimate(
  chosen: Record<string, unknown>,
  est: RawTime | null,
  win: Record<string, unknown>,
  scans: Array<Record<string, unknown>>,
): EstimatedDelivery | null {
  const newest = scans.map((e) => parseIsoLike(str(e.date))).find((t) => t !== null) ?? null;
  const offset = newest?.offsetMin ?? null;
  const begins = parseIsoLike(str(win.begins));
  const ends = parseIsoLike(str(win.ends));
  if (est || begins || ends) {
    const timed = est && !est.dateOnly && (est.h !== 0 || est.mi !== 0) ? est : null;
    return carrierEstimate(est ?? ends ?? begins, begins, ends ?? (begins ? null : timed), offset);
  }
  const std =
    isObj(chosen.standardTransitTimeWindow) && isObj(chosen.standardTransitTimeWindow.window)
      ? parseIsoLike(str(chosen.standardTransitTimeWindow.window.ends))
      : null;
  if (!std || (newest && toUtcMs(std, offset ?? 0) + DAY_MS <= toUtcMs(newest))) return null;
  return carrierEstimate({ ...std, dateOnly: true }, null, null, offset);
}
const DAY_MS = 86_400_000;

/**
 * serviceDetail.description ("FedEx Ground"), else its type read as words ("FEDEX_GROUND" -> "FedEx Ground";
 * carrier notes §3.4 "service"); null without either.
 */
export function fedexService(detail: unknown): string | null {
  if (!isObj(detail)) return null;
  const description = serviceName(detail.description);
  if (description) return description;
  const type = serviceName(detail.type);
  if (!type) return null;
  return type
    .toLowerCase()
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((w) => (w === 'fedex' ? 'FedEx' : w[0]!.toUpperCase() + w.slice(1)))
    .join(' ');
}

// ---- status lookup (carrier notes §5.4) ----
const STATUS = STATUS_MAPPING.fedex as {
  event_code_to_status: Record<string, MappedStatus>;
  derived_code_to_status: Record<string, MappedStatus>;
  DE_attempt_reasons: string[];
};

export function fedexCode(code: string | null): TrackingStatus | null {
  if (!code) return null;
  return asStatus(STATUS.event_code_to_status[code.trim().toUpperCase()]);
}
export function fedexDerivedCode(code: string | null): TrackingStatus | null {
  if (!code) return null;
  return asStatus(STATUS.derived_code_to_status[code.trim().toUpperCase()]);
}
export function fedexIsAttemptReason(reason: string | null, text: string | null): boolean {
  if (reason && STATUS.DE_attempt_reasons.includes(reason.trim().toUpperCase())) return true;
  return !!text && /not available/i.test(text);
}
