import { describe, expect, it } from 'vitest';
import { localMidnight } from './get-courier-day';

describe("the courier's day starts at the phone's midnight", () => {
  it('is the local date at 00:00 with the local offset, which names the same instant', () => {
    const now = new Date(2026, 10, 26, 15, 42, 7);
    const s = localMidnight(now);
    expect(s).toMatch(/^2026-11-26T00:00:00[+-]\d\d:\d\d$/);
    expect(new Date(s).getTime()).toBe(new Date(2026, 10, 26).getTime());
  });
});
