// The words of the estimate messages (decision 123): the new estimate in describeEstimate's sentence, branded for a
// company's customer, one SMS segment where possible.
import { describe, expect, it } from 'vitest';
import { estimateEmail, estimateSms, type EstimateMessageInput } from './templates.ts';

const base: EstimateMessageInput = {
  tid: '1Z5R89390350075626',
  title: 'Lamp',
  courier: 'ups',
  status: 'FailAttempt',
  previousStatus: null,
  checkpoint: null,
  link: 'https://shiptrail.test/track/u1/1Z5R89390350075626',
  brand: null,
  kind: 'LikelyLate',
  estimate: { date: '2026-12-02', from: '2026-12-02T10:00:00-06:00', to: '2026-12-02T14:00:00-06:00', source: 'carrier', updatedAt: 'x' },
};

describe('estimate messages', () => {
  it('likely late: the account reads the parcel name, the customer the company, both the new window', () => {
    const own = estimateEmail(base);
    expect(own.subject).toBe('Lamp (1Z5R89390350075626): likely late');
    expect(own.text).toContain('Expected Wed 2 Dec, between 10:00 and 14:00');
    expect(own.html).toContain('Expected Wed 2 Dec, between 10:00 and 14:00');
    const customer = estimateEmail({ ...base, brand: 'Lamp Co <b>' });
    expect(customer.subject).toBe('Lamp Co <b>: your parcel 1Z5R89390350075626 will likely arrive late');
    expect(customer.html).not.toContain('<b>');
    expect(estimateSms({ ...base, brand: 'Lamp Co' })).toBe(
      'Lamp Co: parcel 1Z5R89390350075626 will likely arrive late. Expected Wed 2 Dec, between 10:00 and 14:00 (local time at the destination, UTC-6). https://shiptrail.test/track/u1/1Z5R89390350075626',
    );
  });
  it('estimate changed, and a late parcel the carrier gave no new date for yet', () => {
    expect(estimateEmail({ ...base, kind: 'EstimateChanged' }).subject).toBe('Lamp (1Z5R89390350075626): expected delivery changed');
    expect(estimateSms({ ...base, kind: 'EstimateChanged', estimate: { ...base.estimate!, from: null, to: null } })).toBe(
      'Shiptrail: new expected delivery for parcel 1Z5R89390350075626. Expected Wed 2 Dec. https://shiptrail.test/track/u1/1Z5R89390350075626',
    );
    expect(estimateEmail({ ...base, estimate: null }).text).toContain('No new date from the carrier yet');
  });
  it("says whose clock the carrier's hours are in, in the mail and the SMS; a day or a predicted date has no hours (decision 166)", () => {
    const clock = 'Expected Wed 2 Dec, between 10:00 and 14:00 (local time at the destination, UTC\u22126)';
    for (const kind of ['LikelyLate', 'EstimateChanged'] as const) {
      const mail = estimateEmail({ ...base, kind });
      expect(mail.text).toContain(clock);
      expect(mail.html).toContain(clock);
      // The SMS in the GSM alphabet: an ASCII minus.
      expect(estimateSms({ ...base, kind })).toContain(`${clock.replace('\u2212', '-')}.`);
    }
    const halfHour = estimateSms({ ...base, estimate: { ...base.estimate!, from: '2026-12-02T09:00:00+05:30', to: null } });
    expect(halfHour).toContain('Expected Wed 2 Dec, from 09:00 (local time at the destination, UTC+5:30).');
    const predicted = estimateEmail({
      ...base,
      estimate: { date: '2026-12-02', from: '2026-12-01', to: '2026-12-03', source: 'predicted', updatedAt: 'x' },
    });
    expect(predicted.text).toContain('Expected by Thu 3 Dec (predicted)');
    expect(predicted.text).not.toContain('local time');
    expect(estimateSms({ ...base, estimate: { ...base.estimate!, from: null, to: null } })).not.toContain('local time');
  });
});
