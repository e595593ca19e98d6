// Carrier push, the subscribing half (docs/carriers.md "Push"): numbers are subscribed at UPS (Track Alert), FedEx
// (Advanced Integrated Visibility webhooks) and USPS (Subscriptions - Tracking v3) with each adapter's own OAuth
// token. Canada Post has no push product and stays polled. What the carriers push back is read in push.ts.
// Decision 090 records the choices where a carrier's documentation is silent.
import { randomUUID } from 'node:crypto';
import { bearerRequest, joinUrl, kindForStatus, type AdapterDeps } from './adapter.ts';
import { arr, CarrierError, isObj, parseJson, str } from './http.ts';
import type { OAuthTokenCache } from './oauth.ts';

export type PushCourier = 'ups' | 'fedex' | 'usps';
export const PUSH_COURIERS: readonly PushCourier[] = ['ups', 'fedex', 'usps'];
export const isPushCourier = (c: string): c is PushCourier => (PUSH_COURIERS as readonly string[]).includes(c);

/** UPS Track Alert v1 (the version whose subscription carries our listener URL and credential). */
export const UPS_SUBSCRIBE_PATH = '/api/track/v1/subscription/standard/package';
/** FedEx's tracking-number association endpoint is reachable only through a project's overview (not published). */
export const FEDEX_SUBSCRIBE_PATH = '/track/v1/notifications/subscriptions';
export const USPS_SUBSCRIBE_PATH = '/subscriptions-tracking/v3/subscriptions';

/** Numbers per subscription request: UPS 100 (more rejects the whole request), FedEx 1,000 per job, USPS one per subscription. */
export const PUSH_BATCH: Record<PushCourier, number> = { ups: 100, fedex: 1000, usps: 1 };
/** Track Alert takes only UPS 1Z and Roadie 1R numbers. */
const UPS_PUSHABLE = /^(?:1Z[0-9A-Z]{16}|1R[0-9A-Z]{14}|1R[0-9A-Z]{26})$/;
/** How long a subscription lasts at the carrier: UPS 14 days; USPS deletes one after 30 days without events; FedEx keeps them (renewed monthly). */
export const PUSH_TTL_MS: Record<PushCourier, number> = { ups: 14 * 86_400_000, usps: 25 * 86_400_000, fedex: 30 * 86_400_000 };
/** USPS signs with a timestamp: events older or newer than this are refused (replays, clock games). */
export const PUSH_TIMESTAMP_WINDOW_MS = 5 * 60_000;

export type SubscribeOutcome = { subscribed: Array<{ tid: string; subscriptionId: string | null }>; refused: string[] };

/** What an adapter offers when its carrier can push. Errors (transport, auth, quota) are thrown as CarrierError. */
export interface CarrierPush {
  readonly maxBatch: number;
  eligible(tid: string): boolean;
  subscribe(tids: string[], listenerUrl: string, secret: string): Promise<SubscribeOutcome>;
  unsubscribe(items: Array<{ tid: string; subscriptionId: string | null }>, listenerUrl: string): Promise<void>;
}

async function postJson(
  deps: AdapterDeps,
  oauth: OAuthTokenCache,
  path: string,
  body: unknown,
  extra: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const res = await bearerRequest(deps, oauth, (token) => ({
    url: joinUrl(deps.baseUrl, path),
    init: {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json', ...extra },
      body: JSON.stringify(body),
    },
  }));
  let parsed: unknown = null;
  try {
    parsed = parseJson(res.text);
  } catch {
    /* an error page: the status decides */
  }
  return { status: res.status, body: parsed };
}

function refusedAll(status: number, carrier: string): never {
  throw new CarrierError(kindForStatus(status), `${carrier} refused the subscription request (HTTP ${status}).`);
}

/**
 * UPS Track Alert: POST up to 100 numbers with the listener URL and a credential UPS echoes back in a
 * `credential` header on every event. A 400 still lists the invalid numbers. There is no per-package delete: a
 * subscription lapses after 14 days, so unsubscribing is letting it lapse.
 */
export function createUpsPush(deps: AdapterDeps, oauth: OAuthTokenCache, transactionSrc: string): CarrierPush {
  return {
    maxBatch: PUSH_BATCH.ups,
    eligible: (tid) => UPS_PUSHABLE.test(tid),
    async subscribe(tids, listenerUrl, secret) {
      const r = await postJson(
        deps,
        oauth,
        UPS_SUBSCRIBE_PATH,
        {
          locale: 'en_US',
          countryCode: 'US',
          trackingNumberList: tids,
          destination: { url: listenerUrl, credentialType: 'Bearer', credential: secret },
        },
        { transId: randomUUID().replace(/-/g, '').slice(0, 32), transactionSrc },
      );
      const body = isObj(r.body) ? r.body : {};
      if (r.status !== 200 && !Array.isArray(body.invalidTrackingNumbers)) refusedAll(r.status, 'UPS');
      const valid = new Set(arr(body.validTrackingNumbers).map(str));
      return {
        subscribed: tids.filter((t) => valid.has(t)).map((tid) => ({ tid, subscriptionId: null })),
        refused: tids.filter((t) => !valid.has(t)),
      };
    },
    async unsubscribe() {
      // Track Alert has no per-package delete; the subscription lapses by itself.
    },
  };
}

/**
 * FedEx tracking-number association (up to 1,000 numbers per job). The webhook URL and its security token are
 * set in the FedEx project, not in the request; the sandbox reads `destinationUrl` instead.
 */
export function createFedexPush(deps: AdapterDeps, oauth: OAuthTokenCache): CarrierPush {
  const associate = async (action: 'ADD' | 'REMOVE', tids: string[], listenerUrl: string) => {
    const r = await postJson(deps, oauth, FEDEX_SUBSCRIBE_PATH, { action, trackingNumbers: tids, destinationUrl: listenerUrl });
    if (r.status !== 200 && r.status !== 202) refusedAll(r.status, 'FedEx');
    const out = isObj(r.body) && isObj(r.body.output) ? r.body.output : {};
    return new Set(arr(out.rejected).map(str));
  };
  return {
    maxBatch: PUSH_BATCH.fedex,
    eligible: () => true,
    async subscribe(tids, listenerUrl) {
      const rejected = await associate('ADD', tids, listenerUrl);
      return {
        subscribed: tids.filter((t) => !rejected.has(t)).map((tid) => ({ tid, subscriptionId: null })),
        refused: tids.filter((t) => rejected.has(t)),
      };
    },
    async unsubscribe(items, listenerUrl) {
      if (items.length)
        await associate(
          'REMOVE',
          items.map((i) => i.tid),
          listenerUrl,
        );
    },
  };
}

/** USPS Subscriptions - Tracking: one subscription per number, with the listener URL and a 32-character secret. */
export function createUspsPush(deps: AdapterDeps, oauth: OAuthTokenCache, adminEmail: string): CarrierPush {
  return {
    maxBatch: PUSH_BATCH.usps,
    eligible: () => true,
    async subscribe(tids, listenerUrl, secret) {
      const out: SubscribeOutcome = { subscribed: [], refused: [] };
      for (const tid of tids) {
        const r = await postJson(deps, oauth, USPS_SUBSCRIBE_PATH, {
          listenerURL: listenerUrl,
          secret: secret.slice(0, 32),
          filterProperties: { trackingNumber: tid },
          adminNotification: [{ email: adminEmail }],
        });
        const id = isObj(r.body) ? str(r.body.subscriptionId) : null;
        // Subscribing a number again (a renewal) is refused as a duplicate, and the refusal names the existing
        // subscription: that one goes on.
        const existing =
          r.status === 400 || r.status === 409
            ? /subscriptionId\W{1,5}([A-Za-z0-9-]{8,64})/.exec(JSON.stringify(r.body ?? ''))?.[1]
            : undefined;
        if ((r.status === 200 || r.status === 201) && id) out.subscribed.push({ tid, subscriptionId: id });
        else if (existing) out.subscribed.push({ tid, subscriptionId: existing });
        else if (r.status === 400 || r.status === 409 || r.status === 422) out.refused.push(tid);
        else refusedAll(r.status, 'USPS');
      }
      return out;
    },
    async unsubscribe(items) {
      for (const i of items) {
        if (!i.subscriptionId) continue;
        const res = await bearerRequest(deps, oauth, (token) => ({
          url: joinUrl(deps.baseUrl, `${USPS_SUBSCRIBE_PATH}/${encodeURIComponent(i.subscriptionId!)}`),
          init: { method: 'DELETE', headers: { authorization: `Bearer ${token}`, 'if-match': '*' } },
        }));
        if (res.status >= 500) refusedAll(res.status, 'USPS');
      }
    },
  };
}
