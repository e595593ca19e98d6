// The estimate a tracking keeps and the news it makes (decisions 122, 123): pure.
import { describe, expect, it } from 'vitest';
import { describeEstimate } from '@shiptrail/contract';
import { planEstimate, postalOf, promiseEnd, type EstimateState } from './estimate.ts';
import type { EstimatedDelivery } from '../carriers/types.ts';

const carrier = (date: string, from: string | null, to: string | null): EstimatedDelivery => ({
  date,
  from,
  to,
  source: 'carrier',
  updatedAt: '2026-11-30T08:00:00.000Z',
});
const EMPTY: EstimateState = { estimatedDelivery: null, promisedBy: null, lateFor: null };
const at = (iso: string) => new Date(iso);
const none = () => null;

function step(
  stored: EstimateState,
  c: EstimatedDelivery | null,
  now: string,
  status: 'InTransit' | 'OutForDelivery' | 'Delivered' = 'InTransit',
) {
  return planEstimate({ stored, status, carrier: c, partial: false, predict: none, now: at(now) });
}

describe('planEstimate', () => {
  const first = carrier('2026-12-01', '2026-12-01T10:00:00-05:00', '2026-12-01T14:00:00-05:00');

  it("keeps the carrier's estimate, its first promise, and its updatedAt while it does not change; no news for the first", () => {
    const a = step(EMPTY, first, '2026-11-30T08:00:00Z');
    expect(a.event).toBeNull();
    expect(a.next.estimatedDelivery).toEqual({ ...first, updatedAt: '2026-11-30T08:00:00.000Z' });
    expect(a.next.promisedBy?.toISOString()).toBe('2026-12-01T19:00:00.000Z');
    const b = step(a.next, { ...first, updatedAt: 'later' }, '2026-11-30T20:00:00Z');
    expect(b.event).toBeNull();
    expect(b.next.estimatedDelivery?.updatedAt).toBe('2026-11-30T08:00:00.000Z');
  });

  it('a revision within the first promise is EstimateChanged; one past it is LikelyLate, once', () => {
    const a = step(EMPTY, first, '2026-11-30T08:00:00Z');
    const earlier = step(a.next, carrier('2026-12-01', '2026-12-01T09:00:00-05:00', '2026-12-01T12:00:00-05:00'), '2026-11-30T09:00:00Z');
    expect(earlier.event).toBe('EstimateChanged');
    expect(earlier.next.estimatedDelivery?.updatedAt).toBe('2026-11-30T09:00:00.000Z');
    // The first promise stays the yardstick.
    expect(earlier.next.promisedBy).toEqual(a.next.promisedBy);
    const later = step(earlier.next, carrier('2026-12-02', null, null), '2026-11-30T10:00:00Z');
    expect(later.event).toBe('LikelyLate');
    const again = step(later.next, carrier('2026-12-02', null, null), '2026-11-30T11:00:00Z');
    expect(again.event).toBeNull();
    // Already late: a further revision is news of the date, not a second "likely late".
    const further = step(again.next, carrier('2026-12-03', null, null), '2026-11-30T12:00:00Z');
    expect(further.event).toBe('EstimateChanged');
  });

  it('the window over and the parcel not out for delivery is LikelyLate once; out for delivery or delivered is not', () => {
    const a = step(EMPTY, first, '2026-11-30T08:00:00Z');
    expect(step(a.next, first, '2026-12-01T18:59:00Z').event).toBeNull();
    expect(step(a.next, first, '2026-12-01T19:01:00Z', 'OutForDelivery').event).toBeNull();
    const late = step(a.next, first, '2026-12-01T19:01:00Z');
    expect(late.event).toBe('LikelyLate');
    expect(step(late.next, first, '2026-12-01T20:00:00Z').event).toBeNull();
    const delivered = step(late.next, null, '2026-12-01T21:00:00Z', 'Delivered');
    expect([delivered.event, delivered.next.estimatedDelivery]).toEqual([null, null]);
  });

  it('judges lateness by when the answer was asked for, not when it is applied', () => {
    const a = step(EMPTY, first, '2026-11-30T08:00:00Z');
    const r = planEstimate({
      stored: a.next,
      status: 'InTransit',
      carrier: first,
      partial: false,
      predict: none,
      now: at('2026-12-01T19:05:00Z'),
      asOf: at('2026-12-01T18:58:00Z'),
    });
    expect(r.event).toBeNull();
  });

  it('a day without a window is over when that day is over everywhere in the Americas', () => {
    expect(new Date(promiseEnd({ date: '2026-12-01', to: null })).toISOString()).toBe('2026-12-02T12:00:00.000Z');
  });

  it('without a carrier estimate: the prediction, no news; none without history; a pushed event keeps what is stored', () => {
    const predicted: EstimatedDelivery = { date: '2026-12-02', from: '2026-12-01', to: '2026-12-03', source: 'predicted', updatedAt: 'x' };
    const p = planEstimate({
      stored: EMPTY,
      status: 'InTransit',
      carrier: null,
      partial: false,
      predict: () => predicted,
      now: at('2026-12-05T00:00:00Z'),
    });
    expect(p.event).toBeNull();
    expect(p.next.estimatedDelivery).toMatchObject({ source: 'predicted', date: '2026-12-02', from: '2026-12-01', to: '2026-12-03' });
    expect(p.next.promisedBy).toBeNull();
    expect(step(EMPTY, null, '2026-11-30T08:00:00Z').next.estimatedDelivery).toBeNull();
    const a = step(EMPTY, first, '2026-11-30T08:00:00Z');
    const pushed = planEstimate({
      stored: a.next,
      status: 'InTransit',
      carrier: null,
      partial: true,
      predict: none,
      now: at('2026-11-30T09:00:00Z'),
    });
    expect(pushed.next.estimatedDelivery).toEqual(a.next.estimatedDelivery);
  });

  // The adapters already drop the carrier's estimate from a Delivered reading (carriers/adapter.ts), so a full reading
  // alone cannot show this guard: a prediction at hand, or a pushed single event, would otherwise bring one back.
  it('delivered or expired: no estimate, though history could predict one or a pushed event says nothing of it', () => {
    const predicted: EstimatedDelivery = { date: '2026-12-02', from: '2026-12-01', to: '2026-12-03', source: 'predicted', updatedAt: 'x' };
    const stored = step(EMPTY, first, '2026-11-30T08:00:00Z').next;
    for (const status of ['Delivered', 'Expired'] as const) {
      for (const partial of [false, true]) {
        const p = planEstimate({ stored, status, carrier: null, partial, predict: () => predicted, now: at('2026-12-01T12:00:00Z') });
        expect(p.next.estimatedDelivery, `${status}, partial ${partial}`).toBeNull();
        expect(p.event).toBeNull();
      }
    }
  });
});

describe('the estimate in words and postal codes in places', () => {
  it('says the day, the window in the carrier’s local time, or "by" a predicted day', () => {
    expect(describeEstimate(carrier('2026-12-01', '2026-12-01T10:00:00-05:00', '2026-12-01T14:00:00-05:00'))).toBe(
      'Expected Tue 1 Dec, between 10:00 and 14:00',
    );
    expect(describeEstimate(carrier('2026-12-01', null, null))).toBe('Expected Tue 1 Dec');
    expect(describeEstimate(carrier('2026-12-01', '2026-12-01T10:00:00-05:00', '2026-12-01T10:00:30-05:00'))).toBe(
      'Expected Tue 1 Dec, around 10:00',
    );
    expect(describeEstimate(carrier('2026-12-01', null, '2026-12-01T20:00:00-06:00'))).toBe('Expected Tue 1 Dec, by 20:00');
    expect(describeEstimate({ date: '2026-11-30', from: '2026-11-30', to: '2026-12-01', source: 'predicted' })).toBe(
      'Expected by Tue 1 Dec (predicted)',
    );
  });
  it('finds a ZIP or a Canadian postal code', () => {
    expect(postalOf('CHICAGO, IL, 60607, US')).toBe('60607');
    expect(postalOf('Toronto, ON, M5V 2T6, CA')).toBe('M5V2T6');
    expect(postalOf('Memphis, TN')).toBeNull();
  });
});
