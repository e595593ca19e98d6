import { describe, expect, it } from 'vitest';
import { customerWindow, localDate, localMidnight, routeTimes, travelMatrix } from './model.ts';

describe('plan the day: times and travel', () => {
  it("finds a day's local midnight in its time zone, daylight saving included", () => {
    expect(localMidnight('2030-03-05', 'UTC').toISOString()).toBe('2030-03-05T00:00:00.000Z');
    expect(localMidnight('2030-03-05', 'America/Los_Angeles').toISOString()).toBe('2030-03-05T08:00:00.000Z');
    expect(localMidnight('2030-07-05', 'America/Los_Angeles').toISOString()).toBe('2030-07-05T07:00:00.000Z');
    expect(localMidnight('2030-07-05', 'Asia/Kolkata').toISOString()).toBe('2030-07-04T18:30:00.000Z');
    expect(localDate(new Date('2030-03-05T07:59:00Z'), 'America/Los_Angeles')).toBe('2030-03-04');
  });

  it('gives the customer an hour around the arrival, on 5-minute marks', () => {
    const w = customerWindow(new Date('2030-03-05T10:58:00Z'), 30);
    expect([w.from.toISOString(), w.to.toISOString()]).toEqual(['2030-03-05T10:30:00.000Z', '2030-03-05T11:30:00.000Z']);
  });

  it('times a route driven by hand: waits for a window, late past its end or past the shift', () => {
    const depot = { lat: 0, long: 0 };
    const at = { lat: 0, long: 0.1 }; // about 11.1 km, 14.5 km by road: 29 minutes at 30 km/h
    const m = travelMatrix([depot, at], { speedKmh: 30, roadFactor: 1.3 });
    expect(m.time[1]! / 60).toBeCloseTo(28.9, 1);
    const r = routeTimes(8 * 3600, 18 * 3600, [{ service: 300, ready: 9 * 3600, due: 10 * 3600 }], m);
    expect(r.times[0]).toEqual({ start: 9 * 3600, late: false });
    const late = routeTimes(8 * 3600, 18 * 3600, [{ service: 300, ready: 0, due: 8 * 3600 + 600 }], m);
    expect(late.times[0]!.late).toBe(true);
    const overShift = routeTimes(17.5 * 3600, 18 * 3600, [{ service: 300, ready: 0, due: 2 * 86_400 }], m);
    expect(overShift.times[0]!.late).toBe(true);
  });
});
