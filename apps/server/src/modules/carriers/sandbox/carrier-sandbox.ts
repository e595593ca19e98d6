// The built-in carrier sandbox: one HTTP server answering the four carriers' paths (they do not collide) with
// their real response shapes, OAuth endpoints included, and scripted journeys (./journeys.ts).
// Carriers without credentials are pointed at it (carriers.ts), so a new install shows parcels moving.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify from 'fastify';
import { normalizeTrackingNumber } from '../detect.ts';
import { journeyFor, promisedWindow, reachedSteps } from './journeys.ts';
import { createSandboxPush, type SandboxPushOptions } from './push.ts';
import {
  canadaPostMessage,
  fedexNotFound,
  fedexTrackResult,
  renderCanadaPost,
  renderUps,
  renderUsps,
  routeFor,
  upsNotFound,
  uspsNotFound,
  type SandboxEvent,
  type SandboxPromise,
} from './render.ts';

export { sandboxPollIntervalMs, sandboxPaceFromEnv, describeSandboxJourney } from './journeys.ts';

/**
 * Where a number's journey started, for the numbers that have a durable start (the app reads it back from the
 * stored label scan, so a restart continues every journey). Numbers it does not return start the first time the
 * sandbox is asked about them, in memory.
 */
export type JourneyStartLookup = (courier: Courier, tids: string[]) => Promise<Map<string, number>>;
export type SandboxOptions = {
  pace?: number;
  now?: () => number;
  maxTracked?: number;
  journeyStart?: JourneyStartLookup;
  push?: SandboxPushOptions;
};
export type SandboxReply = { status: number; headers: Record<string, string>; body: string };

export type Courier = 'ups' | 'usps' | 'fedex' | 'canadapost';

const JSON_TYPE = { 'content-type': 'application/json' };
const CP_TYPE = { 'content-type': 'application/vnd.cpc.track-v2+xml' };
const TOKEN_PREFIX = 'sbx.';

/** Where a number's journey is now, as a carrier reports it. */
type JourneyState = { tid: string; events: SandboxEvent[]; route: ReturnType<typeof routeFor>; promise: SandboxPromise | null };
/** The journeys, for the carriers' routes: the anchors of a request's numbers resolved first, then each one's state. */
type Lookup = {
  now: () => number;
  resolve: (courier: Courier, tids: string[]) => Promise<void>;
  state: (courier: Courier, tid: string) => JourneyState | null;
};
type SandboxRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: string;
};
/** One carrier's paths: its reply, or null when the request is not one of them. */
type CarrierRoute = (req: SandboxRequest, lookup: Lookup) => Promise<SandboxReply | null> | SandboxReply | null;

const json = (status: number, body: unknown): SandboxReply => ({ status, headers: JSON_TYPE, body: JSON.stringify(body) });
const token = () => TOKEN_PREFIX + randomBytes(12).toString('hex');
const bearer = (h: Record<string, string | string[] | undefined>) => /^Bearer sbx\./.test(String(h.authorization ?? ''));
const UPS_UNAUTHORIZED = { response: { errors: [{ code: '250002', message: 'Invalid Authentication Information.' }] } };
const uspsUnauthorized = (apiVersion: string) =>
  json(401, { apiVersion, error: { code: '401', message: 'The client application identifier is invalid.', errors: [] } });

/** OAuth (carrier notes §1.2, §2.2, §3.2). Any client id/secret is accepted; tokens are stateless. */
const oauth: CarrierRoute = ({ method, path, headers }, { now }) => {
  if (method !== 'POST') return null;
  if (path === '/security/v1/oauth/token') {
    if (!/^Basic /.test(String(headers.authorization ?? ''))) return json(401, UPS_UNAUTHORIZED);
    return json(200, {
      token_type: 'Bearer',
      issued_at: String(now()),
      client_id: 'sandbox',
      access_token: token(),
      scope: '',
      expires_in: '14399',
      refresh_count: '0',
      status: 'approved',
    });
  }
  if (path === '/oauth2/v3/token') {
    return json(200, {
      access_token: token(),
      token_type: 'Bearer',
      issued_at: now(),
      expires_in: 28799,
      status: 'approved',
      scope: 'tracking',
      issuer: 'sandbox',
    });
  }
  if (path === '/oauth/token') return json(200, { access_token: token(), token_type: 'bearer', expires_in: 3599, scope: 'CXS-TP' });
  return null;
};

/** UPS: GET /api/track/v1/details/{n}. */
const ups: CarrierRoute = async ({ method, path, headers }, { resolve, state }) => {
  if (method !== 'GET' || !path.startsWith('/api/track/v1/details/')) return null;
  if (!bearer(headers)) return json(401, UPS_UNAUTHORIZED);
  const tid = decodeURIComponent(path.slice('/api/track/v1/details/'.length));
  await resolve('ups', [tid]);
  const s = state('ups', tid);
  return json(200, s ? renderUps(s.tid, s.events, s.route, s.promise) : upsNotFound(normalizeTrackingNumber(tid)));
};

/** USPS v3: GET /tracking/v3/tracking/{n}?expand=DETAIL. */
const uspsOne: CarrierRoute = async ({ method, path, headers, query }, { resolve, state }) => {
  if (method !== 'GET' || !path.startsWith('/tracking/v3/tracking/')) return null;
  if (!bearer(headers)) return uspsUnauthorized('/tracking/v3');
  const tid = decodeURIComponent(path.slice('/tracking/v3/tracking/'.length));
  await resolve('usps', [tid]);
  const s = state('usps', tid);
  if (!s) return json(400, uspsNotFound(false));
  const detail = renderUsps(s.tid, s.events, s.route, s.promise) as Record<string, unknown>;
  // SUMMARY (the default) has no event list (carrier notes §2.3).
  if ((query.get('expand') ?? 'SUMMARY').toUpperCase() !== 'DETAIL') delete detail.trackingEvents;
  return json(200, detail);
};

/** USPS v3r2: POST /tracking/v3r2/tracking, array in, array out. */
const uspsMany: CarrierRoute = async ({ method, path, headers, body }, { resolve, state }) => {
  if (method !== 'POST' || path !== '/tracking/v3r2/tracking') return null;
  if (!bearer(headers)) return uspsUnauthorized('/tracking/v3r2');
  const list = safeJson(body);
  if (!Array.isArray(list) || list.length === 0 || list.length > 35)
    return json(400, { apiVersion: '/tracking/v3r2', error: { code: '400', message: 'Send 1 to 35 tracking numbers.', errors: [] } });
  const tidOf = (x: unknown) => String((x as { trackingNumber?: unknown })?.trackingNumber ?? '');
  await resolve('usps', list.map(tidOf));
  return json(
    200,
    list.map((x) => {
      const tid = tidOf(x);
      const s = state('usps', tid);
      return s
        ? renderUsps(s.tid, s.events, s.route, s.promise)
        : { trackingNumber: normalizeTrackingNumber(tid), ...(uspsNotFound(true) as object) };
    }),
  );
};

/** FedEx: POST /track/v1/trackingnumbers, up to 30 numbers. */
const fedex: CarrierRoute = async ({ method, path, headers, body }, { resolve, state }) => {
  if (method !== 'POST' || path !== '/track/v1/trackingnumbers') return null;
  if (!bearer(headers))
    return json(401, {
      transactionId: 'sandbox',
      errors: [{ code: 'NOT.AUTHORIZED.ERROR', message: 'Access token expired. Please modify your request and try again.' }],
    });
  const req = safeJson(body) as {
    includeDetailedScans?: unknown;
    trackingInfo?: Array<{ trackingNumberInfo?: { trackingNumber?: unknown } }>;
  } | null;
  const info = Array.isArray(req?.trackingInfo) ? req.trackingInfo : [];
  if (info.length < 1 || info.length > 30)
    return json(400, {
      transactionId: 'sandbox',
      errors: [{ code: 'TRACKING.TRACKINGNUMBER.EMPTY', message: 'Please provide tracking number.' }],
    });
  const tidOf = (i: (typeof info)[number]) => String(i?.trackingNumberInfo?.trackingNumber ?? '');
  await resolve('fedex', info.map(tidOf));
  const complete = info.map((i) => {
    const tid = tidOf(i);
    const s = state('fedex', tid);
    return s ? fedexTrackResult(s.tid, s.events, s.route, s.promise) : fedexNotFound(normalizeTrackingNumber(tid));
  });
  return json(200, {
    transactionId: 'sandbox',
    output: { alerts: [{ code: 'VIRTUAL.RESPONSE', message: 'This is a Shiptrail sandbox response.' }], completeTrackResults: complete },
  });
};

/** Canada Post: GET /vis/track/{pin|dnc}/{n}/detail (carrier notes §4). */
const canadaPost: CarrierRoute = async ({ method, path, headers }, { resolve, state }) => {
  const cp = /^\/vis\/track\/(?:pin|dnc)\/([^/]+)\/detail$/.exec(path);
  if (method !== 'GET' || !cp) return null;
  if (!/^Basic /.test(String(headers.authorization ?? '')))
    return { status: 401, headers: CP_TYPE, body: canadaPostMessage('E002', 'AAA Authentication Failure') };
  // The real service refuses */* (carrier notes §4.2); so does the sandbox, to catch a wrong Accept early.
  if (!String(headers.accept ?? '').includes('application/vnd.cpc.track'))
    return { status: 406, headers: CP_TYPE, body: canadaPostMessage('E001', 'Unsupported Accept header') };
  const pin = decodeURIComponent(cp[1]!);
  await resolve('canadapost', [pin]);
  const s = state('canadapost', pin);
  if (!s) return { status: 404, headers: CP_TYPE, body: canadaPostMessage('004', 'No Pin History') };
  return { status: 200, headers: CP_TYPE, body: renderCanadaPost(s.tid, s.events, s.route, s.promise) };
};

const CARRIER_ROUTES: CarrierRoute[] = [oauth, ups, uspsOne, uspsMany, fedex, canadaPost];

/** The scans a journey started at `anchor` has reached at `t`, and the promise as the carrier states it then. */
function journeyAt(
  j: ReturnType<typeof journeyFor>,
  anchor: number,
  t: number,
  pace: number,
): { events: SandboxEvent[]; promise: SandboxPromise | null } {
  const events = reachedSteps(j, Math.max(0, t - anchor), pace).map((s) => ({ kind: s.kind, time: anchor + s.offsetMs }));
  const ended = events.some((e) => e.kind === 'delivered' || e.kind === 'exception');
  // The promise as the carrier states it now (revised after a failed attempt); none once the journey ended.
  const w = ended ? null : promisedWindow(j, Math.max(0, t - anchor), pace);
  const promise = w
    ? {
        fromMs: anchor + w.fromMs,
        toMs: anchor + w.toMs,
        first: w.first ? { fromMs: anchor + w.first.fromMs, toMs: anchor + w.first.toMs } : null,
      }
    : null;
  return { events, promise };
}

/**
 * The sandbox without any HTTP server: `dispatch` maps a request to a reply. Shared by the Fastify server and
 * the raw node:http handler (used by the bench to measure the sandbox's own capacity).
 */
export function createSandboxCore(opts: SandboxOptions = {}) {
  const pace = opts.pace && opts.pace > 0 ? opts.pace : 1;
  const now = opts.now ?? Date.now;
  const maxTracked = opts.maxTracked ?? 200_000;
  // Anchors: when each number's journey started. From the durable lookup when there is one; otherwise the first
  // time the sandbox was asked (in memory, so a standalone sandbox starts its journeys again after a restart).
  const anchors = new Map<string, number>();
  const journeyStart = opts.journeyStart;

  function remember(key: string, a: number): void {
    anchors.set(key, a);
    // Bounded memory: forget the oldest numbers first.
    if (anchors.size > maxTracked) anchors.delete(anchors.keys().next().value!);
  }

  /** Resolve the anchors of the numbers one request asks about (one lookup per request, not per number). */
  async function resolveAnchors(courier: Courier, rawTids: string[], t: number): Promise<void> {
    const missing = [
      ...new Set(
        rawTids
          .map((raw) => normalizeTrackingNumber(raw).slice(0, 64))
          .filter((tid) => journeyFor(tid).name !== 'not-found' && !anchors.has(`${courier}:${tid}`)),
      ),
    ];
    if (missing.length === 0) return;
    const durable = journeyStart ? await journeyStart(courier, missing) : new Map<string, number>();
    for (const tid of missing) remember(`${courier}:${tid}`, durable.get(tid) ?? wholeSecond(t));
  }

  /** The events reached so far, or null when this number's journey is "not found". Anchors resolved first. */
  function state(courier: Courier, rawTid: string): JourneyState | null {
    const tid = normalizeTrackingNumber(rawTid).slice(0, 64);
    const j = journeyFor(tid);
    if (j.name === 'not-found') return null;
    const t = now();
    const key = `${courier}:${tid}`;
    let anchor = anchors.get(key);
    if (anchor === undefined) {
      anchor = wholeSecond(t);
      remember(key, anchor);
    }
    return { tid, ...journeyAt(j, anchor, t, pace), route: routeFor(j.place, courier === 'canadapost') };
  }

  const lookup: Lookup = { now, resolve: (courier, tids) => resolveAnchors(courier, tids, now()), state };
  async function dispatch(
    method: string,
    url: string,
    headers: Record<string, string | string[] | undefined>,
    body: string,
  ): Promise<SandboxReply> {
    const q = url.indexOf('?');
    const req: SandboxRequest = {
      method,
      path: q === -1 ? url : url.slice(0, q),
      query: new URLSearchParams(q === -1 ? '' : url.slice(q + 1)),
      headers,
      body,
    };
    for (const route of CARRIER_ROUTES) {
      const reply = await route(req, lookup);
      if (reply) return reply;
    }
    return (await push.dispatch(method, req.path, headers, safeJson(body))) ?? json(404, { error: 'Not a sandbox route.' });
  }

  // Push: subscriptions answered above, scans sent by a timer the HTTP server starts (push.ts).
  const push = createSandboxPush({
    ...(opts.push ?? { enabled: false, fedexSecurityToken: '' }),
    pace,
    state: (courier, tid) => state(courier, tid),
    resolve: (courier, tids) => resolveAnchors(courier, tids, now()),
  });

  return { dispatch, pace, trackedCount: () => anchors.size, push };
}

// Scans are rendered to the second; a journey starting on a whole second makes its label scan time exactly the
// start, which is how the durable lookup finds it again. Rounded up, so no step is skipped at a fast pace (the
// label is then dated up to a second ahead).
const wholeSecond = (ms: number) => Math.ceil(ms / 1000) * 1000;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const MAX_REQUEST_BYTES = 256 * 1024;

/**
 * A plain node:http request handler for the sandbox (no Fastify): `http.createServer(createCarrierSandboxHandler())`.
 * The bench uses it to measure the sandbox's raw capacity next to the refresh engine's throughput.
 */
export function createCarrierSandboxHandler(opts: SandboxOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const core = createSandboxCore(opts);
  return (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BYTES) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      core.dispatch(req.method ?? 'GET', req.url ?? '/', req.headers, Buffer.concat(chunks).toString('utf8')).then(
        (r) => {
          res.writeHead(r.status, { ...r.headers, 'content-length': Buffer.byteLength(r.body) });
          res.end(r.body);
        },
        () => {
          res.writeHead(500, JSON_TYPE);
          res.end(JSON.stringify({ error: 'Sandbox failure.' }));
        },
      );
    });
  };
}

/** Start the sandbox as a Fastify server. Port 0 picks a free port; `url` is what carriers' base URLs point at. */
export async function startCarrierSandbox(
  opts: {
    port?: number;
    host?: string;
    pace?: number;
    now?: () => number;
    journeyStart?: JourneyStartLookup;
    push?: SandboxPushOptions;
  } = {},
): Promise<{ url: string; close(): Promise<void>; pushStats(): { subscriptions: number; delivered: number; lost: number } }> {
  const core = createSandboxCore({ pace: opts.pace, now: opts.now, journeyStart: opts.journeyStart, push: opts.push });
  const app = Fastify({ logger: false, bodyLimit: MAX_REQUEST_BYTES });
  // Bodies are handed to the core as text: form-encoded token requests and JSON track requests alike.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  const handle = async (
    req: { method: string; url: string; headers: Record<string, string | string[] | undefined>; body?: unknown },
    reply: import('fastify').FastifyReply,
  ) => {
    const r = await core.dispatch(req.method, req.url, req.headers, typeof req.body === 'string' ? req.body : '');
    return reply.code(r.status).headers(r.headers).send(r.body);
  };
  for (const path of [
    '/security/v1/oauth/token',
    '/oauth2/v3/token',
    '/oauth/token',
    '/tracking/v3r2/tracking',
    '/track/v1/trackingnumbers',
  ])
    app.post(path, handle);
  for (const path of ['/api/track/v1/details/:n', '/tracking/v3/tracking/:n', '/vis/track/pin/:n/detail', '/vis/track/dnc/:n/detail'])
    app.get(path, handle);
  app.setNotFoundHandler(handle);
  const address = await app.listen({ port: opts.port ?? 0, host: opts.host ?? '127.0.0.1' });
  const u = new URL(address);
  if (u.hostname === '0.0.0.0' || u.hostname === '::') u.hostname = '127.0.0.1';
  core.push.start();
  return {
    url: u.origin,
    close: async () => {
      await core.push.stop();
      await app.close();
    },
    pushStats: core.push.stats,
  };
}
