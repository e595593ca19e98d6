import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatDay, maskEmail, maskPhone, percentOf, statusLabel } from './format';

describe('format', () => {
  it('rounds percents and gives 0 when there is nothing', () => {
    expect(percentOf(0, 0)).toBe(0);
    expect(percentOf(1, 3)).toBe(33);
    expect(percentOf(2, 3)).toBe(67);
  });
  it("shows dates in the reader's locale, one format for dates, times and usage days (decision 102)", () => {
    expect(formatDate('2024-03-05T12:00:00', 'en-GB')).toBe('05/03/2024');
    expect(formatDate('2024-03-05T12:00:00', 'en-US')).toBe('03/05/2024');
    expect(formatDateTime('2024-03-05T09:07:00', 'en-GB')).toBe('05/03/2024, 09:07');
    expect(formatDateTime('2024-03-05T09:07:00', 'en-US')).toMatch(/^03\/05\/2024, 09:07\sAM$/);
    // A usage row's day is a calendar day: no time zone moves it to the 4th.
    expect(formatDay('2024-03-05', 'en-US')).toBe('03/05/2024');
    expect(formatDay('2024-03-05', 'de-DE')).toBe('05.03.2024');
    expect(formatDay('2024-03-05', 'en-US', false)).toBe('03/05');
  });
  it('masks contact details', () => {
    expect(maskEmail('jane@example.com')).toBe('j***@example.com');
    expect(maskPhone('(212) 555-1234')).toBe('(***) ***-1234');
  });
  it('labels statuses', () => {
    expect(statusLabel('OutForDelivery')).toBe('Out For Delivery');
    // The notification log's estimate events (decision 123).
    expect(statusLabel('LikelyLate')).toBe('Likely late');
  });
});
