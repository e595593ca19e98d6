// Plumbing shared by the four adapters: the adapter shape, result builders, the authenticated request with
// one token refresh on 401, and 429/Retry-After handling.
import { CarrierError, cleanText, httpRequest, parseJson, parseRetryAfter, type HttpOptions, type HttpResponse } from './http.ts';
import type { OAuthTokenCache } from './oauth.ts';
import type { CarrierPush } from './push-subscribe.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { CarrierErrorKind, CourierSlug, EstimatedDelivery, NormalizedCheckpoint, TrackResult, TrackingStatus } from './types.ts';

export interface CarrierAdapter {
  readonly courier: CourierSlug;
  /** Numbers per carrier request (FedEx 30, the others 1; carrier notes §0). */
  readonly maxBatch: number;
  /** One result per tid, in order. Never throws for carrier problems. */
  trackBatch(tids: string[]): Promise<TrackResult[]>;
  /** Present when the carrier can push events to us (push-subscribe.ts). */
  readonly push?: CarrierPush;
}

export type AdapterDeps = {
  baseUrl: string;
  http: HttpOptions;
  limiter: RateLimiter;
};

export function failure(courier: CourierSlug, tid: string, kind: CarrierErrorKind, message: string, retryAfterMs?: number): TrackResult {
  return {
    ok: false,
    tid,
    courier,
    error: retryAfterMs === undefined ? { kind, message } : { kind, message, retryAfterMs },
  };
}

export function fromError(courier: CourierSlug, tid: string, err: unknown): TrackResult {
  if (err instanceof CarrierError) return failure(courier, tid, err.kind, err.message, err.retryAfterMs);
  // A bug in a parser on hostile input must not crash the refresh engine; report it as a bad response.
  const msg = err instanceof Error ? err.message : String(err);
  return failure(courier, tid, 'malformed', `Could not read the carrier response (${msg.slice(0, 200)}).`);
}

export function success(
  courier: CourierSlug,
  tid: string,
  status: TrackingStatus,
  checkpoints: NormalizedCheckpoint[],
  expected: string | null,
  origin: string | null,
  destination: string | null,
  estimatedDelivery: EstimatedDelivery | null = null,
  service: string | null = null,
): TrackResult {
  return {
    ok: true,
    tid,
    courier,
    status,
    checkpoints,
    // Clear the estimate once delivered (carrier notes §6 "Estimated delivery").
    expected: status === 'Delivered' ? null : expected,
    estimatedDelivery: status === 'Delivered' ? null : estimatedDelivery,
    origin,
    destination,
    service,
  };
}

/** The longest service name kept (the carriers' longest known is about 40 letters). */
export const SERVICE_MAX = 80;

/** A carrier's service name as text: HTML and entities stripped (USPS `mailClass`), spaces collapsed; null when empty. */
export function serviceName(v: unknown): string | null {
  return cleanText(v, SERVICE_MAX) || null;
}

/** Default classification of an HTTP status the carrier-specific parser did not recognise. */
export function kindForStatus(status: number): CarrierErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate-limited';
  if (status >= 500) return 'carrier-down';
  if (status === 400 || status === 422) return 'malformed';
  return 'carrier-down';
}

/**
 * Parse a JSON body; for a non-200 answer whose body is not JSON (an HTML error page from a gateway) the HTTP
 * status decides the kind, so a 502 page is carrier-down rather than malformed.
 */
export function jsonBody(res: Pick<HttpResponse, 'status' | 'text'>, carrierName: string): unknown {
  try {
    return parseJson(res.text);
  } catch (err) {
    if (res.status !== 200) throw new CarrierError(kindForStatus(res.status), `${carrierName} answered HTTP ${res.status}.`);
    throw err;
  }
}

/** Send a request after the rate limiter lets us; a 429 pauses the limiter and becomes a rate-limited error. */
export async function limitedRequest(
  deps: AdapterDeps,
  url: string,
  init: { method: 'GET' | 'POST' | 'DELETE'; headers: Record<string, string>; body?: string },
): Promise<HttpResponse> {
  await deps.limiter.acquire();
  const res = await httpRequest(url, init, deps.http);
  if (res.status === 429) {
    // Retry-After is documented for USPS and seen elsewhere (carrier notes §2.5); without it back off a minute.
    const wait = parseRetryAfter(res.headers.get('retry-after')) ?? 60_000;
    deps.limiter.pauseFor(wait);
    throw new CarrierError('rate-limited', 'The carrier is rate limiting our requests.', wait);
  }
  if (res.status === 503) {
    const wait = parseRetryAfter(res.headers.get('retry-after'));
    if (wait !== undefined) deps.limiter.pauseFor(wait);
  }
  return res;
}

/** Bearer request with one refresh-and-retry when the carrier answers 401 (expired or revoked token). */
export async function bearerRequest(
  deps: AdapterDeps,
  oauth: OAuthTokenCache,
  build: (token: string) => { url: string; init: { method: 'GET' | 'POST' | 'DELETE'; headers: Record<string, string>; body?: string } },
): Promise<HttpResponse> {
  let token = await oauth.get();
  let req = build(token);
  let res = await limitedRequest(deps, req.url, req.init);
  if (res.status === 401) {
    oauth.invalidate(token);
    token = await oauth.get();
    req = build(token);
    res = await limitedRequest(deps, req.url, req.init);
  }
  return res;
}

/** Classify a failed token response (RFC 6749 error body or a carrier envelope). */
export function tokenError(res: HttpResponse, carrierName: string): CarrierError {
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
  if (res.status === 429) return new CarrierError('rate-limited', `${carrierName} refused a token request (quota).`, retryAfter ?? 60_000);
  if (res.status >= 500) return new CarrierError('carrier-down', `${carrierName} token endpoint failed (HTTP ${res.status}).`, retryAfter);
  let detail = '';
  try {
    const body = JSON.parse(res.text) as Record<string, unknown>;
    const d = body?.error_description ?? body?.error ?? (body?.response as { errors?: Array<{ message?: string }> })?.errors?.[0]?.message;
    if (typeof d === 'string') detail = `: ${d.slice(0, 200)}`;
  } catch {
    /* non-JSON error page */
  }
  return new CarrierError('auth', `${carrierName} rejected our credentials (HTTP ${res.status})${detail}`);
}

export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}
