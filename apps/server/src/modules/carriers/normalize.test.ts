import { describe, expect, it } from 'vitest';
import { expectedFrom, joinLocation, parseCompact, parseIsoLike, parseOffset, resolveTimes } from './normalize.ts';

describe('carrier time and location helpers', () => {
  it('reads ISO-like times with and without an offset, and refuses impossible ones', () => {
    expect(parseIsoLike('2026-03-04T05:06:07-05:00')).toMatchObject({
      y: 2026,
      mo: 3,
      d: 4,
      h: 5,
      mi: 6,
      s: 7,
      offsetMin: -300,
      dateOnly: false,
    });
    expect(parseIsoLike('2026-03-04')).toMatchObject({ dateOnly: true, offsetMin: null });
    expect(parseIsoLike('2026-13-04T00:00:00Z')).toBeNull();
    expect(parseIsoLike('yesterday')).toBeNull();
  });

  it('reads UPS compact dates and times (with or without colons) and offsets up to 14 hours', () => {
    expect(parseCompact('20260304', '050607', 0)).toMatchObject({ y: 2026, mo: 3, d: 4, h: 5, mi: 6, s: 7, offsetMin: 0 });
    expect(parseCompact('20260304', '05:06:07', null)).toMatchObject({ h: 5, mi: 6, s: 7 });
    expect(parseCompact('2026-03-04', '050607', 0)).toBeNull();
    expect(parseOffset('+05:30')).toBe(330);
    expect(parseOffset('-0800')).toBe(-480);
    expect(parseOffset('Z')).toBe(0);
    expect(parseOffset('+15:00')).toBeNull();
  });

  it('an event without an offset borrows the nearest one that has it; with none anywhere the wall clock is UTC', () => {
    const withOffset = parseIsoLike('2026-03-04T10:00:00-05:00');
    const without = parseIsoLike('2026-03-04T08:00:00');
    expect(resolveTimes([withOffset, without])).toEqual(['2026-03-04T15:00:00.000Z', '2026-03-04T13:00:00.000Z']);
    expect(resolveTimes([without, null])).toEqual(['2026-03-04T08:00:00.000Z', null]);
  });

  it('expected delivery is a calendar date for a day (or local midnight), else a UTC instant', () => {
    expect(expectedFrom(parseIsoLike('2026-03-04'))).toBe('2026-03-04');
    expect(expectedFrom(parseIsoLike('2026-03-04T00:00:00+02:00'))).toBe('2026-03-04');
    expect(expectedFrom(parseIsoLike('2026-03-04T18:00:00+02:00'))).toBe('2026-03-04T16:00:00.000Z');
    expect(expectedFrom(null)).toBeNull();
  });

  it('joins the non-empty location parts, squeezing whitespace', () => {
    expect(joinLocation('  New   York ', '', null, 'NY', 42, 'US')).toBe('New York, NY, US');
    expect(joinLocation('', null)).toBeNull();
  });
});
