import { useSyncExternalStore } from 'react';
import { POSITION_TRAIL_MAX } from '@shiptrail/contract';
import { ApiError, request } from '../../../lib/api-client';
import { idbAll, idbDelete, idbLiveList, idbPut } from '../../../lib/idb';
import { outcomeOf } from './send-outcome';

// The courier's trail on the phone (decision 149): each position the "Share my location" switch takes is first kept
// in IndexedDB (the `trail` store, keyed by account and time), then sent with the others kept, oldest first, in one
// batch (POST /v1/user/general/positions). Without signal they wait, and survive closing the browser; the store is
// bounded (one fix per half sharing interval, at most POSITION_TRAIL_MAX, the oldest dropped first).

export interface TrailFix {
  /** Whose position it is: another account signed in on the phone does not send it. */
  account: string;
  lat: number;
  lng: number;
  /** When the phone took it (ISO). */
  takenAt: string;
  /** When it was kept (ISO, the phone's clock): the store keeps one per half sharing interval. */
  keptAt: string;
}

/** The most fixes kept on the phone: the server takes as many in one batch. About four hours at one per 30 s. */
export const TRAIL_MAX = POSITION_TRAIL_MAX;

/**
 * What keeping `fix` does to the fixes kept for its account (oldest first): whether it is kept, and which of the
 * kept ones go to stay within `cap` (the oldest). A fix kept less than `minGapMs` after the last one was kept (by
 * the phone's clock: a second tab sharing too must not double the rate), or taken no later than the newest kept
 * one (the same fix again), is not kept.
 */
export function admit(kept: readonly TrailFix[], fix: TrailFix, minGapMs: number, cap = TRAIL_MAX): { keep: boolean; drop: TrailFix[] } {
  const mine = kept.filter((k) => k.account === fix.account);
  const newest = mine.at(-1);
  if (newest && (Date.parse(fix.keptAt) - Date.parse(newest.keptAt) < minGapMs || fix.takenAt <= newest.takenAt))
    return { keep: false, drop: [] };
  const over = mine.length + 1 - cap;
  return { keep: true, drop: over > 0 ? mine.slice(0, over) : [] };
}

/**
 * The Idempotency-Key of a batch: the same fixes sent again (a lost reply, another tab) have the same key; a batch
 * that grew meanwhile has another (the server keeps one fix per courier and time anyway).
 */
export const batchKey = (batch: readonly TrailFix[]) =>
  `trail:${batch[0]!.account}:${batch[0]!.takenAt}:${batch.at(-1)!.takenAt}:${batch.length}`;

const byTime = (a: TrailFix, b: TrailFix) => (a.takenAt < b.takenAt ? -1 : a.takenAt > b.takenAt ? 1 : 0);
const keyOf = (f: TrailFix) => [f.account, f.takenAt];

// ------------------------------------------------------------------ the kept fixes, shared by the tab's components
const list = idbLiveList<TrailFix>('trail', 'shiptrail-trail', byTime);

/** The fixes kept on the phone for `account`, oldest first, live. */
export function useTrail(account: string | undefined): TrailFix[] {
  const all = useSyncExternalStore(list.subscribe, list.rows);
  return all.filter((f) => f.account === account);
}

/** Keep a fix on the phone (bounded); resolves with whether it was kept and how many old ones were dropped. */
export async function keepFix(fix: TrailFix, minGapMs: number): Promise<{ kept: boolean; dropped: number }> {
  const kept = (await idbAll<TrailFix>('trail').catch(() => [])).sort(byTime);
  const { keep, drop } = admit(kept, fix, minGapMs);
  if (!keep) return { kept: false, dropped: 0 };
  for (const d of drop) await idbDelete('trail', keyOf(d));
  await idbPut('trail', fix);
  await list.changed();
  return { kept: true, dropped: drop.length };
}

export type TrailSend = { sent: number } | { later: true } | { refused: string };

/** One send at a time across the phone's tabs (Web Locks); in this tab alone where the browser has none. */
function exclusive<T>(work: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  return locks ? (locks.request('shiptrail-trail', work) as Promise<T>) : work();
}

/**
 * Send `account`'s kept fixes, oldest first, in one batch. After the server took them they leave the phone; without
 * signal (or a busy server) they stay; a batch refused for good leaves too (sent again it would block every later
 * fix), and the server's words are handed back.
 */
export function sendTrail(account: string): Promise<TrailSend> {
  return exclusive(async () => {
    const batch = (await idbAll<TrailFix>('trail').catch(() => []))
      .filter((f) => f.account === account)
      .sort(byTime)
      .slice(0, TRAIL_MAX);
    if (batch.length === 0) return { sent: 0 };
    let out: TrailSend;
    try {
      await request('/v1/user/general/positions', {
        body: { positions: batch.map(({ lat, lng, takenAt }) => ({ lat, lng, takenAt })) },
        headers: { 'Idempotency-Key': batchKey(batch) },
      });
      out = { sent: batch.length };
    } catch (e) {
      if (outcomeOf(e) === 'later') return { later: true };
      out = { refused: e instanceof ApiError ? e.message : 'Your positions could not be sent' };
    }
    for (const f of batch) await idbDelete('trail', keyOf(f));
    await list.changed();
    return out;
  });
}
