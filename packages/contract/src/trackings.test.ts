import { describe, expect, it } from 'vitest';
import { MSG } from './messages.ts';
import { LIMITS, TRACKING_NUMBER_MAX } from './constants.ts';
import { fieldErrors } from './common.ts';
import { addTrackingRequest, courierInput, estimateOffsetMinutes, estimateZoneNote, listTrackingsQuery } from './trackings.ts';

const errors = (r: { success: boolean; error?: unknown }) => (r.success ? {} : fieldErrors(r.error as never));

describe('add a tracking', () => {
  it('trims the number, reads courier names, normalises notify contacts', () => {
    const r = addTrackingRequest.parse({
      tid: ' 1Z999AA10123456784 ',
      courier: 'Canada Post',
      title: ' Shoes ',
      notify: { email: 'Ada@Example.com', phone: '+1 212 555 1234' },
    });
    expect(r).toMatchObject({
      tid: '1Z999AA10123456784',
      courier: 'canadapost',
      title: 'Shoes',
      notify: { email: 'ada@example.com', phone: '(212) 555-1234' },
    });
  });
  it('an empty or missing courier means "detect it"', () => {
    expect(addTrackingRequest.parse({ tid: 'X1', courier: '' }).courier).toBeNull();
    expect(addTrackingRequest.parse({ tid: 'X1' }).courier).toBeNull();
    expect(courierInput.parse('UPS')).toBe('ups');
    expect(courierInput.parse('fed-ex')).toBe('fedex');
  });
  it('gives the form messages for each bad field', () => {
    expect(errors(addTrackingRequest.safeParse({}))).toEqual({ tid: MSG.trackingNumberRequired });
    expect(errors(addTrackingRequest.safeParse({ tid: '   ' }))).toEqual({ tid: MSG.trackingNumberRequired });
    expect(errors(addTrackingRequest.safeParse({ tid: 'x'.repeat(TRACKING_NUMBER_MAX + 1) })).tid).toBe(MSG.trackingNumberTooLong);
    expect(errors(addTrackingRequest.safeParse({ tid: 'X1', courier: 'dhl' })).courier).toBe(
      'Unknown courier: use ups, usps, fedex or canadapost',
    );
    expect(errors(addTrackingRequest.safeParse({ tid: 'X1', notify: { email: 'nope', phone: '123' } }))).toEqual({
      'notify.email': MSG.emailInvalid,
      'notify.phone': MSG.phoneInvalid,
    });
    expect(errors(addTrackingRequest.safeParse({ tid: 'X1', note: 'n'.repeat(2001) }))).toHaveProperty('note');
  });
});

describe('list query', () => {
  it('defaults and caps numRecords', () => {
    expect(listTrackingsQuery.parse({}).numRecords).toBe(LIMITS.trackingsPerPage);
    expect(listTrackingsQuery.parse({ numRecords: '100000' }).numRecords).toBe(LIMITS.maxTrackingsPerPage);
    expect(errors(listTrackingsQuery.safeParse({ numRecords: '0' })).numRecords).toBe('numRecords must be at least 1');
    expect(errors(listTrackingsQuery.safeParse({ numRecords: 'ten' })).numRecords).toBe('numRecords must be a number');
  });
  it('reads status and courier filters as comma lists or repeated values, and refuses unknown ones', () => {
    expect(listTrackingsQuery.parse({ status: 'Delivered, InTransit', courier: ['ups', 'fedex'] })).toMatchObject({
      status: ['Delivered', 'InTransit'],
      courier: ['ups', 'fedex'],
    });
    expect(listTrackingsQuery.parse({ status: '' }).status).toEqual([]);
    expect(listTrackingsQuery.safeParse({ status: 'Lost' }).success).toBe(false);
    expect(listTrackingsQuery.safeParse({ courier: 'dhl' }).success).toBe(false);
  });
});

describe("the estimate's clock", () => {
  const window = (from: string | null, to: string | null, source: 'carrier' | 'predicted' = 'carrier') => ({ from, to, source });
  const fixed = (minutes: number) => () => minutes;

  it('reads the offset a bound is written with', () => {
    expect(estimateOffsetMinutes('2026-12-01T10:00:00-05:00')).toBe(-300);
    expect(estimateOffsetMinutes('2026-12-01T10:00-0330')).toBe(-210);
    expect(estimateOffsetMinutes('2026-12-01T10:00:00.000+05:30')).toBe(330);
    expect(estimateOffsetMinutes('2026-12-01T10:00:00Z')).toBe(0);
    expect(estimateOffsetMinutes('2026-12-01T10:00:00')).toBeNull();
    expect(estimateOffsetMinutes('2026-12-01')).toBeNull();
    expect(estimateOffsetMinutes(null)).toBeNull();
  });

  it("names the destination's clock when the reader's differs at that instant", () => {
    const w = window('2026-12-01T10:00:00-05:00', '2026-12-01T14:00:00-05:00');
    expect(estimateZoneNote(w, fixed(60))).toBe('local time at the destination (UTC\u22125)');
    expect(estimateZoneNote(window(null, '2026-12-01T20:00:00+05:30'), fixed(0))).toBe('local time at the destination (UTC+5:30)');
    expect(estimateZoneNote(window('2026-12-01T10:00:00Z', null), fixed(-300))).toBe('local time at the destination (UTC)');
  });

  it('says nothing when the clocks agree, for a day, or for a prediction', () => {
    expect(estimateZoneNote(window('2026-12-01T10:00:00-05:00', '2026-12-01T14:00:00-05:00'), fixed(-300))).toBeNull();
    expect(estimateZoneNote(window(null, null), fixed(60))).toBeNull();
    expect(estimateZoneNote(window('2026-12-01', '2026-12-03', 'predicted'), fixed(60))).toBeNull();
  });

  it("asks for the reader's offset at the window's own instant (summer time)", () => {
    const asked: string[] = [];
    estimateZoneNote(window('2026-07-01T10:00:00-04:00', null), (d) => (asked.push(d.toISOString()), -240));
    expect(asked).toEqual(['2026-07-01T14:00:00.000Z']);
  });
});
