// The sandbox as a pushing carrier: it takes UPS Track Alert, FedEx and USPS subscriptions on the carriers' paths and
// sends each subscribed number's scans to the listener as they happen, in each carrier's shape and signed the way
// that carrier signs (push-subscribe.ts subscribes, push.ts reads). Like UPS, it does not retry a failed delivery:
// the platform's polling backstop catches what was lost. `dropRate` loses a share of events on purpose.
import { randomUUID } from 'node:crypto';
import { normalizeTrackingNumber } from '../detect.ts';
import { FEDEX_SUBSCRIBE_PATH, PUSH_BATCH, UPS_SUBSCRIBE_PATH, USPS_SUBSCRIBE_PATH } from '../push-subscribe.ts';
import { hashNumber } from './journeys.ts';
import { fedexTrackResult, renderUpsPushEvent, renderUsps, type Route, type SandboxEvent, type SandboxPromise } from './render.ts';
import { hmacBase64 } from '../push.ts';

type PushCourier = 'ups' | 'fedex' | 'usps';
type Reply = { status: number; headers: Record<string, string>; body: string };
type State = { tid: string; events: SandboxEvent[]; route: Route; promise: SandboxPromise | null } | null;

export type SandboxPushOptions = {
  enabled: boolean;
  /** The security token of the sandbox's FedEx "project" (FedEx sets it in its portal, not per subscription). */
  fedexSecurityToken: string;
  /** 0-1: share of events lost on the way. */
  dropRate?: number;
};

type Subscription = { courier: PushCourier; tid: string; url: string; secret: string; id: string; sent: number };

const JSON_TYPE = { 'content-type': 'application/json' };
const json = (status: number, body: unknown): Reply => ({ status, headers: JSON_TYPE, body: JSON.stringify(body) });
const MAX_SUBSCRIPTIONS = 200_000;
const SEND_TIMEOUT_MS = 5000;

/** The subscriptions: one per carrier and number, found by key or by id; bounded, the oldest dropped first. */
class Subscriptions {
  readonly byKey = new Map<string, Subscription>();
  private readonly byId = new Map<string, string>();

  add(courier: PushCourier, tid: string, url: string, secret: string): Subscription {
    const key = `${courier}:${tid}`;
    const old = this.byKey.get(key);
    // Subscribing again renews: same events already sent, new listener details.
    const sub: Subscription = { courier, tid, url, secret, id: old?.id ?? randomUUID(), sent: old?.sent ?? 0 };
    this.byKey.set(key, sub);
    this.byId.set(sub.id, key);
    if (this.byKey.size > MAX_SUBSCRIPTIONS) this.remove(this.byKey.keys().next().value!);
    return sub;
  }
  remove(key: string): void {
    const s = this.byKey.get(key);
    if (!s) return;
    this.byKey.delete(key);
    this.byId.delete(s.id);
  }
  keyOfId(id: string): string | undefined {
    return this.byId.get(id);
  }
}

type Resolve = (courier: PushCourier, tids: string[]) => Promise<void>;

/** UPS Track Alert: up to 100 numbers to one destination; numbers that are not UPS's are listed as invalid. */
async function upsSubscribe(b: Record<string, unknown>, subs: Subscriptions, resolve: Resolve): Promise<Reply> {
  const list = Array.isArray(b.trackingNumberList) ? b.trackingNumberList.map((t) => normalizeTrackingNumber(String(t))) : [];
  const dest = (b.destination ?? {}) as { url?: unknown; credential?: unknown };
  if (list.length === 0 || typeof dest.url !== 'string' || typeof dest.credential !== 'string')
    return json(400, { response: { errors: [{ code: 'VSS100', message: 'trackingNumberList and destination are required.' }] } });
  // More than 100 numbers rejects the whole submission (VSS220).
  if (list.length > PUSH_BATCH.ups)
    return json(400, {
      response: { errors: [{ code: 'VSS220', message: 'The entire submission has been rejected: more than 100 tracking numbers.' }] },
    });
  const valid = list.filter((t) => /^1Z[0-9A-Z]{16}$/.test(t));
  await resolve('ups', valid);
  for (const t of valid) subs.add('ups', t, dest.url, dest.credential);
  return json(200, { validTrackingNumbers: valid, invalidTrackingNumbers: list.filter((t) => !valid.includes(t)) });
}

/** FedEx: up to 1,000 numbers added or removed; the project's security token signs every call. */
async function fedexSubscribe(b: Record<string, unknown>, subs: Subscriptions, resolve: Resolve, token: string): Promise<Reply> {
  const list = Array.isArray(b.trackingNumbers) ? b.trackingNumbers.map((t) => normalizeTrackingNumber(String(t))) : [];
  if (list.length === 0 || list.length > PUSH_BATCH.fedex || typeof b.destinationUrl !== 'string')
    return json(400, {
      errors: [{ code: 'INVALID.INPUT.EXCEPTION', message: 'Send 1 to 1000 trackingNumbers and a destinationUrl.' }],
    });
  if (b.action === 'REMOVE') {
    for (const t of list) subs.remove(`fedex:${t}`);
    return json(200, { output: { removed: list, rejected: [] } });
  }
  await resolve('fedex', list);
  for (const t of list) subs.add('fedex', t, b.destinationUrl, token);
  return json(200, { output: { jobId: randomUUID(), added: list, rejected: [] } });
}

/** USPS: one number per subscription, with its own listener and 32-character secret. */
async function uspsSubscribe(b: Record<string, unknown>, subs: Subscriptions, resolve: Resolve): Promise<Reply> {
  const tid = normalizeTrackingNumber(String((b.filterProperties as { trackingNumber?: unknown } | undefined)?.trackingNumber ?? ''));
  if (!tid || typeof b.listenerURL !== 'string' || typeof b.secret !== 'string' || b.secret.length !== 32)
    return json(400, { error: { code: '400', message: 'listenerURL, a 32-character secret and filterProperties are required.' } });
  // As USPS does: the same number and listener again is a duplicate, refused with the existing subscription's id.
  const same = subs.byKey.get(`usps:${tid}`);
  if (same && same.url === b.listenerURL)
    return json(400, {
      error: { code: '400', message: 'A subscription with this listener and filter already exists.', subscriptionId: same.id },
    });
  await resolve('usps', [tid]);
  const sub = subs.add('usps', tid, b.listenerURL, b.secret);
  return json(201, { subscriptionId: sub.id, listenerURL: sub.url, filterProperties: { trackingNumber: tid }, status: 'ACTIVE' });
}

/**
 * What a subscription owes its listener now: one call per new UPS event, one whole record for FedEx and USPS. A share
 * `drop` of them is lost on purpose (counted by `lose`).
 */
function due(sub: Subscription, s: State, drop: number, lose: () => void): Call[] {
  if (!s || s.events.length <= sub.sent) return [];
  const fresh = s.events.slice(sub.sent);
  const from = sub.sent;
  sub.sent = s.events.length;
  const kept = (i: number) => !(drop > 0 && (hashNumber(`${sub.tid}#${i}`) % 1000) / 1000 < drop);
  if (sub.courier === 'ups') {
    return fresh.flatMap((e, i) => {
      if (!kept(from + i)) return (lose(), []);
      const body = JSON.stringify(renderUpsPushEvent(s.tid, e, s.route, s.promise));
      return [{ headers: { 'user-agent': 'UPSPubSubTrackingService', credential: sub.secret }, body }];
    });
  }
  if (!kept(s.events.length - 1)) return (lose(), []);
  if (sub.courier === 'fedex') {
    const body = JSON.stringify({
      transactionId: randomUUID(),
      output: { completeTrackResults: [fedexTrackResult(s.tid, s.events, s.route, s.promise)] },
    });
    return [{ headers: { 'fdx-signature': hmacBase64(sub.secret, body) }, body }];
  }
  const payload = JSON.stringify(renderUsps(s.tid, s.events, s.route, s.promise));
  const timestamp = new Date().toISOString();
  return [
    {
      headers: { 'x-hmac': hmacBase64(sub.secret, timestamp + payload) },
      body: JSON.stringify({ subscriptionId: sub.id, timestamp, payload }),
    },
  ];
}

type Call = { headers: Record<string, string>; body: string };

/** One call to a listener; true when it answered 2xx. Not retried: a carrier does not (see the top). */
async function send(url: string, call: Call): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...call.headers },
      body: call.body,
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

export function createSandboxPush(
  opts: SandboxPushOptions & {
    pace: number;
    state(courier: PushCourier, tid: string): State;
    resolve(courier: PushCourier, tids: string[]): Promise<void>;
  },
) {
  const subs = new Subscriptions();
  const drop = opts.dropRate ?? 0;
  let sending: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let delivered = 0;
  let lost = 0;
  const resolve: Resolve = opts.resolve;

  /** The subscription endpoints, or null when the path is not one of them. */
  async function dispatch(
    method: string,
    path: string,
    headers: Record<string, string | string[] | undefined>,
    body: unknown,
  ): Promise<Reply | null> {
    const isSub = path === UPS_SUBSCRIBE_PATH || path === FEDEX_SUBSCRIBE_PATH || path.startsWith(USPS_SUBSCRIBE_PATH);
    if (!isSub) return null;
    if (!opts.enabled) return json(404, { error: 'Push is switched off in this sandbox.' });
    if (!/^Bearer sbx\./.test(String(headers.authorization ?? ''))) return json(401, { error: 'Invalid Authentication Information.' });
    const b = (body ?? {}) as Record<string, unknown>;
    if (method === 'POST' && path === UPS_SUBSCRIBE_PATH) return upsSubscribe(b, subs, resolve);
    if (method === 'POST' && path === FEDEX_SUBSCRIBE_PATH) return fedexSubscribe(b, subs, resolve, opts.fedexSecurityToken);
    if (method === 'POST' && path === USPS_SUBSCRIBE_PATH) return uspsSubscribe(b, subs, resolve);
    if (method === 'DELETE' && path.startsWith(USPS_SUBSCRIBE_PATH + '/')) {
      const key = subs.keyOfId(decodeURIComponent(path.slice(USPS_SUBSCRIBE_PATH.length + 1)));
      if (!key) return json(404, { error: { code: '404', message: 'Subscription not found.' } });
      subs.remove(key);
      return { status: 204, headers: {}, body: '' };
    }
    return json(405, { error: 'Method not allowed.' });
  }

  const sendCounted = async (url: string, call: Call) => {
    if (await send(url, call)) delivered++;
    else lost++;
  };

  async function round(): Promise<void> {
    const calls: Array<Promise<void>> = [];
    for (const [key, sub] of subs.byKey) {
      // A subscription's calls go in order (a UPS parcel's events one after the other); parcels go in parallel.
      const s = opts.state(sub.courier, sub.tid);
      const owed = due(sub, s, drop, () => lost++);
      if (owed.length) calls.push(owed.reduce<Promise<void>>((p, c) => p.then(() => sendCounted(sub.url, c)), Promise.resolve()));
      // The journey is over and all of it sent: the carrier stops (as subscriptions end with delivery).
      if (s && s.events.some((e) => e.kind === 'delivered' || e.kind === 'exception') && sub.sent >= s.events.length) subs.remove(key);
    }
    await Promise.all(calls);
  }

  return {
    dispatch,
    start() {
      if (!opts.enabled || timer) return;
      // A real carrier calls as it scans; the sandbox looks for new scans every 100 ms (less at a fast pace).
      const tickMs = Math.max(25, Math.min(100, Math.round(2000 * opts.pace)));
      timer = setInterval(() => {
        if (sending) return;
        sending = round().finally(() => {
          sending = null;
        });
      }, tickMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await sending;
    },
    stats: () => ({ subscriptions: subs.byKey.size, delivered, lost }),
  };
}
