// "Likely late" from our own delivery history (decision 151): planEstimate with the history's verdict. Pure.
import { describe, expect, it } from 'vitest';
import { likelyLateOf, likelyLateReason } from '@shiptrail/contract';
import { planEstimate, type EstimateState } from './estimate.ts';
import type { EstimatedDelivery } from '../carriers/types.ts';

const first: EstimatedDelivery = {
  date: '2026-12-01',
  from: '2026-12-01T10:00:00-05:00',
  to: '2026-12-01T14:00:00-05:00',
  source: 'carrier',
  updatedAt: '2026-11-30T08:00:00.000Z',
};
const EMPTY: EstimateState = { estimatedDelivery: null, promisedBy: null, lateFor: null };
const slow = () => ({ usualDays: 9 });
const onTime = () => null;

function step(
  stored: EstimateState,
  c: EstimatedDelivery | null,
  now: string,
  historyLate: (() => { usualDays: number } | null) | undefined,
  status: 'InTransit' | 'OutForDelivery' = 'InTransit',
) {
  return planEstimate({ stored, status, carrier: c, partial: false, predict: () => null, now: new Date(now), historyLate });
}

describe('likely late from history in planEstimate', () => {
  it("raises LikelyLate once when our history says the carrier's date will be missed, with the usual days", () => {
    const a = step(EMPTY, first, '2026-11-30T09:00:00Z', slow);
    expect(a.event).toBe('LikelyLate');
    expect(a.next.lateFor).toBe('2026-12-01|2026-12-01T14:00:00-05:00|history|9');
    expect(likelyLateOf(a.next.lateFor, a.next.estimatedDelivery)).toEqual({ source: 'history', usualDays: 9 });
    // The next reading, and the window passing on the same estimate: nothing more.
    expect(step(a.next, first, '2026-11-30T12:00:00Z', slow).event).toBeNull();
    expect(step(a.next, first, '2026-12-02T12:00:00Z', slow).event).toBeNull();
  });

  it('says nothing when history agrees with the carrier, without a verdict, or once the parcel is out for delivery', () => {
    expect(step(EMPTY, first, '2026-11-30T09:00:00Z', onTime)).toMatchObject({ event: null, next: { lateFor: null } });
    expect(step(EMPTY, first, '2026-11-30T09:00:00Z', undefined)).toMatchObject({ event: null, next: { lateFor: null } });
    expect(step(EMPTY, first, '2026-11-30T09:00:00Z', slow, 'OutForDelivery').event).toBeNull();
  });

  it('is not asked again once the carrier found the parcel late, and a predicted estimate is never late', () => {
    const passed = step(step(EMPTY, first, '2026-11-30T09:00:00Z', onTime).next, first, '2026-12-02T12:00:00Z', onTime);
    expect(passed.event).toBe('LikelyLate');
    expect(likelyLateOf(passed.next.lateFor, passed.next.estimatedDelivery)).toEqual({ source: 'carrier', usualDays: null });
    let asked = 0;
    expect(step(passed.next, first, '2026-12-02T13:00:00Z', () => (asked++, { usualDays: 9 })).event).toBeNull();
    expect(asked).toBe(0);
    const predicted = planEstimate({
      stored: EMPTY,
      status: 'InTransit',
      carrier: null,
      partial: false,
      predict: () => ({ ...first, source: 'predicted' }),
      now: new Date('2026-11-30T09:00:00Z'),
      historyLate: slow,
    });
    expect(predicted.event).toBeNull();
  });

  it('the reason a message gives', () => {
    expect(likelyLateReason({ source: 'history', usualDays: 9 })).toBe('Our delivery history on this lane says it usually takes 9 days.');
    expect(likelyLateReason({ source: 'carrier', usualDays: null })).toBeNull();
  });
});
