import { useEffect, useSyncExternalStore } from 'react';
import type { ShipmentStatus, UpdateShipmentRequest } from '@shiptrail/contract';
import { ApiError, request } from '../../../lib/api-client';
import { idbAll, idbDelete, idbLiveList, idbPut, idbUpdate } from '../../../lib/idb';
import { onReachableAgain } from '../../../lib/connection';
import { outcomeOf, type SendOutcome } from './send-outcome';

// The courier's outbox (decision 120): every checkpoint a courier records is first kept on the phone, in
// IndexedDB, with its own Idempotency-Key and the time it was made (occurredAt), then sent. Without signal it
// waits, in order, and goes when the phone is back online (the `online` event) or the app starts again. An item
// leaves only after the server took it (2xx) or refused it for good (a 4xx other than a busy key or a rate limit):
// a refusal is kept in a "not sent" list, in words, until the courier dismisses it. Sending the same item twice
// (two tabs, a reply lost on the way) is harmless: the server answers a known key with its first reply.

export interface OutboxItem {
  seq?: number;
  /** The Idempotency-Key: one per action, made when the courier saved it. */
  key: string;
  /** Whose action it is: another account signed in on the phone does not send it. */
  account: string;
  tid: string;
  status: ShipmentStatus;
  /** When the courier acted (also in body.occurredAt). */
  occurredAt: string;
  body: UpdateShipmentRequest;
  state: 'waiting' | 'refused';
  /** Why the server refused it, in its words. */
  error?: string;
}

// ------------------------------------------------------------------ the list, shared by every component of the tab
const list = idbLiveList<OutboxItem>('outbox', 'shiptrail-outbox', (a, b) => (a.seq ?? 0) - (b.seq ?? 0));

/** The outbox of `account`, live: what waits to be sent and what the server refused. */
export function useOutbox(account: string | undefined) {
  const all = useSyncExternalStore(list.subscribe, list.rows);
  const mine = all.filter((i) => i.account === account);
  return { waiting: mine.filter((i) => i.state === 'waiting'), refused: mine.filter((i) => i.state === 'refused') };
}

/** Keep an action on the phone before anything is sent; resolves with it (its seq set). */
export async function enqueue(account: string, body: UpdateShipmentRequest, now = new Date()): Promise<OutboxItem> {
  const occurredAt = now.toISOString();
  const item: OutboxItem = {
    key: crypto.randomUUID(),
    account,
    tid: body.tid,
    status: (body.status ?? 'InTransit') as ShipmentStatus,
    occurredAt,
    body: { ...body, occurredAt },
    state: 'waiting',
  };
  item.seq = (await idbPut('outbox', item)) as number | undefined;
  await list.changed();
  return item;
}

export async function dismiss(item: OutboxItem) {
  if (item.seq !== undefined) await idbDelete('outbox', item.seq);
  await list.changed();
}

async function sendOne(item: OutboxItem): Promise<SendOutcome | { refused: ApiError }> {
  try {
    await request('/v1/shipment/update', { body: item.body, headers: { 'Idempotency-Key': item.key } });
    await idbDelete('outbox', item.seq!);
    return 'sent';
  } catch (e) {
    const o = outcomeOf(e);
    if (o !== 'refused') return o;
    return { refused: e as ApiError };
  }
}

/** One drain at a time across the phone's tabs (Web Locks); in this tab alone where the browser has none. */
let draining: Promise<Map<string, SendOutcome | ApiError>> | null = null;
function exclusive<T>(work: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  return locks ? (locks.request('shiptrail-outbox', work) as Promise<T>) : work();
}

/**
 * Send `account`'s waiting actions in the order they were made, stopping at the first that must wait (no signal):
 * later ones must not overtake it. A refusal is kept in the "not sent" list, except the item whose key is `handBack`:
 * that one is removed and handed back to the caller, whose form shows it. Resolves with what happened to each key tried.
 */
export function drain(account: string, handBack?: string): Promise<Map<string, SendOutcome | ApiError>> {
  const run = async () => {
    const outcomes = new Map<string, SendOutcome | ApiError>();
    await exclusive(async () => {
      const waiting = (await idbAll<OutboxItem>('outbox').catch(() => []))
        .filter((i) => i.account === account && i.state === 'waiting')
        .sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
      for (const item of waiting) {
        const out = await sendOne(item);
        if (typeof out === 'object') {
          outcomes.set(item.key, out.refused);
          if (item.key === handBack) await idbDelete('outbox', item.seq!);
          else await idbUpdate<OutboxItem>('outbox', item.seq!, (v) => ({ ...v, state: 'refused', error: out.refused.message }));
          continue;
        }
        outcomes.set(item.key, out);
        if (out === 'later') break;
      }
    });
    await list.changed();
    return outcomes;
  };
  // A drain asked for while one runs in this tab waits for it, then runs (it may have new items).
  const next = (draining ?? Promise.resolve()).catch(() => undefined).then(run);
  draining = next;
  void next.finally(() => {
    if (draining === next) draining = null;
  });
  return next;
}

/** How often the phone tries again while actions wait to be sent (a failed try without signal costs nothing). */
export const RETRY_MS = 10_000;

/** Sends the outbox when the app starts and each time the phone is back online; `onSent` after anything went. */
export function useOutboxSender(account: string | undefined, onSent: () => void) {
  useEffect(() => {
    if (!account) return;
    const go = () => {
      if (!navigator.onLine) return;
      void drain(account).then((outcomes) => {
        if ([...outcomes.values()].some((o) => o === 'sent' || o instanceof ApiError)) onSent();
      });
    };
    go();
    window.addEventListener('online', go);
    // A phone can come back without an `online` event (a captive portal, a flaky radio; a browser whose
    // navigator.onLine never went false): while something waits, try every few seconds, so it goes within
    // RETRY_MS of the signal's return (decision 138); with nothing waiting, once a minute as before.
    let last = Date.now();
    const every = window.setInterval(() => {
      const waits = list.rows().some((i) => i.account === account && i.state === 'waiting');
      if (!waits && Date.now() - last < 60_000) return;
      last = Date.now();
      go();
    }, RETRY_MS);
    // The server answers again (any request of the app's got a reply) without an `online` event: send now, not at the
    // next retry. Chromium fires none in a page it loaded without signal (the app reopened offline).
    const stopWatching = onReachableAgain(go);
    return () => {
      window.removeEventListener('online', go);
      window.clearInterval(every);
      stopWatching();
    };
  }, [account, onSent]);
}
