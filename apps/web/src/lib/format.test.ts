import { describe, expect, it } from 'vitest';
import { formatDate, maskEmail, maskPhone, percentOf, statusLabel } from './format';

describe('format', () => {
  it('rounds percents and gives 0 when there is nothing', () => {
    expect(percentOf(0, 0)).toBe(0);
    expect(percentOf(1, 3)).toBe(33);
    expect(percentOf(2, 3)).toBe(67);
  });
  it('shows dates as day/month/year', () => {
    expect(formatDate('2024-03-05T12:00:00')).toBe('05/03/2024');
  });
  it('masks contact details', () => {
    expect(maskEmail('jane@example.com')).toBe('j***@example.com');
    expect(maskPhone('(212) 555-1234')).toBe('(***) ***-1234');
  });
  it('labels statuses', () => {
    expect(statusLabel('OutForDelivery')).toBe('Out For Delivery');
  });
});
