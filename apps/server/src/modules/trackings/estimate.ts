// The estimate a tracking shows, and the news it makes (issue 32, decisions 122 and 123): pure, decided by the
// refresh engine on the locked row.
import type { EstimatedDeliveryView, TrackingStatus } from '@shiptrail/contract';
import type { EstimatedDelivery } from '../carriers/types.ts';

/** The two estimate triggers (the contract's TRIGGER_EVENTS). */
export type EstimateEvent = 'EstimateChanged' | 'LikelyLate';

/** What a tracking keeps of its estimates: the one shown, the end of the carrier's first promise, the one found late. */
export type EstimateState = { estimatedDelivery: EstimatedDeliveryView | null; promisedBy: Date | null; lateFor: string | null };

/** A US ZIP or a Canadian postal code in a place as the adapters write it ("CHICAGO, IL, 60607, US"). */
export function postalOf(place: string | null | undefined): string | null {
  const text = (place ?? '').toUpperCase();
  const ca = /\b([ABCEGHJ-NPRSTVXY]\d[A-Z])\s?(\d[A-Z]\d)\b/.exec(text);
  if (ca) return `${ca[1]}${ca[2]}`;
  const us = /\b(\d{5})(?:-\d{4})?\b/.exec(text);
  return us ? us[1]! : null;
}

const HOUR = 3_600_000;

/**
 * When a promise is over: the window's end when it has a time; else the end of its last day wherever that day
 * ends last in the Americas (UTC−12, i.e. noon UTC the day after), so a parcel is never called late while its day
 * can still be running at the destination.
 */
export function promiseEnd(e: Pick<EstimatedDeliveryView, 'date' | 'to'>): number {
  if (e.to && e.to.length > 10) return Date.parse(e.to);
  return Date.parse(`${e.to ?? e.date}T00:00:00Z`) + 36 * HOUR;
}

const keyOf = (e: EstimatedDeliveryView) => `${e.date}|${e.to ?? ''}`;
/** The estimate a `lateFor` was found late for (its first two parts; a third says our history found it: decision 151). */
const lateKey = (lateFor: string | null) => (lateFor === null ? null : lateFor.split('|').slice(0, 2).join('|'));
const same = (a: EstimatedDeliveryView, b: Pick<EstimatedDeliveryView, 'date' | 'from' | 'to' | 'source'>) =>
  a.date === b.date && a.from === b.from && a.to === b.to && a.source === b.source;

/**
 * The next estimate state of a tracking after a carrier answer, and the one piece of news it makes, if any:
 * - the carrier's estimate when it gives one; else the prediction (null without delivered history); none once
 *   delivered or expired. An unchanged estimate keeps its updatedAt. A pushed single event says nothing of it.
 * - LikelyLate, at most once per estimate (`lateFor`): the carrier revises its promise past its first one (and it was
 *   not already late), or the carrier's window is over and the parcel is not out for delivery (nor delivered).
 * - LikelyLate from our history (decision 151): the carrier's estimate stands, the parcel was never found late and is
 *   not out for delivery, and `historyLate` says the delivered parcels like it usually take longer (lateFor
 *   `date|to|history|N`).
 * - EstimateChanged: any other revision of the carrier's own estimate. The first estimate, predictions and a
 *   revision announced as LikelyLate make no EstimateChanged (one message per change).
 */
export function planEstimate(a: {
  stored: EstimateState;
  status: TrackingStatus;
  carrier: EstimatedDelivery | null | undefined;
  partial: boolean;
  predict: () => EstimatedDelivery | null;
  now: Date;
  /** How fresh the carrier's answer is (when it was asked for): lateness is judged at that time. Default `now`. */
  asOf?: Date;
  /**
   * Our history's verdict on the carrier's estimate (decision 151): the usual days when it says the parcel will miss
   * it, else null. Asked only when nothing else made news and the parcel was never found late.
   */
  historyLate?: (estimate: EstimatedDeliveryView) => { usualDays: number } | null;
}): { next: EstimateState; event: EstimateEvent | null } {
  const { stored, now } = a;
  if (a.status === 'Delivered' || a.status === 'Expired') return { next: { ...stored, estimatedDelivery: null }, event: null };
  let est = stored.estimatedDelivery;
  let { promisedBy, lateFor } = stored;
  let event: EstimateEvent | null = null;
  if (!a.partial) {
    const incoming = a.carrier ?? a.predict();
    if (!incoming) est = null;
    else if (!est || !same(est, incoming)) {
      const prev = est;
      est = { date: incoming.date, from: incoming.from, to: incoming.to, source: incoming.source, updatedAt: now.toISOString() };
      if (incoming.source === 'carrier') {
        if (promisedBy === null) promisedBy = new Date(promiseEnd(est));
        else if (prev?.source === 'carrier') {
          event = promiseEnd(est) > promisedBy.getTime() && lateFor === null ? 'LikelyLate' : 'EstimateChanged';
          if (event === 'LikelyLate') lateFor = keyOf(est);
        }
      }
    }
  }
  if (
    event === null &&
    est?.source === 'carrier' &&
    a.status !== 'OutForDelivery' &&
    (a.asOf ?? now).getTime() > promiseEnd(est) &&
    lateKey(lateFor) !== keyOf(est)
  ) {
    event = 'LikelyLate';
    lateFor = keyOf(est);
  }
  // Our own history says the carrier's date will be missed (decision 151): once per parcel, like a revision.
  if (event === null && est?.source === 'carrier' && lateFor === null && a.status !== 'OutForDelivery' && a.historyLate) {
    const late = a.historyLate(est);
    if (late) {
      event = 'LikelyLate';
      lateFor = `${keyOf(est)}|history|${late.usualDays}`;
    }
  }
  return { next: { estimatedDelivery: est, promisedBy, lateFor }, event };
}
