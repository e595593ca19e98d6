// A checkpoint's time in a message (templates.ts formatTime): rendered in the status change's transaction, so the
// format of a time zone is made once and kept (decision 177), and a zone Intl does not know reads as UTC.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatTime } from './templates.ts';

describe('formatTime', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('names the time in the zone, and in UTC for a zone Intl does not know or none', () => {
    expect(formatTime('2026-11-26T10:18:00Z', 'America/New_York')).toBe('Nov 26, 2026, 5:18 AM EST');
    expect(formatTime('2026-11-26T10:18:00Z', 'Mars/Olympus_Mons')).toBe('Nov 26, 2026, 10:18 AM UTC');
    expect(formatTime('2026-11-26T10:18:00Z', undefined)).toBe('Nov 26, 2026, 10:18 AM UTC');
    expect(formatTime('not a time', 'UTC')).toBe('');
  });

  it("makes a zone's format once, however many messages it renders", () => {
    const made = vi.spyOn(Intl, 'DateTimeFormat');
    const times = Array.from({ length: 50 }, (_, i) => formatTime(`2026-11-26T10:${String(i).padStart(2, '0')}:00Z`, 'Asia/Kathmandu'));
    expect(times[0]).toBe('Nov 26, 2026, 3:45 PM GMT+5:45');
    expect(made.mock.calls.filter(([, o]) => o?.timeZone === 'Asia/Kathmandu').length).toBeLessThanOrEqual(1);
  });
});
