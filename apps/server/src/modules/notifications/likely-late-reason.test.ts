// "Likely late" from our own delivery history (decision 151): the mail and the SMS say the history's reason.
import { describe, expect, it } from 'vitest';
import { likelyLateReason } from '@shiptrail/contract';
import { estimateEmail, estimateSms, type EstimateMessageInput } from './templates.ts';

const base: EstimateMessageInput = {
  tid: '1Z5R89390350075608',
  title: 'Chair',
  courier: 'ups',
  status: 'InTransit',
  previousStatus: null,
  checkpoint: null,
  link: 'https://shiptrail.test/track/u1/1Z5R89390350075608',
  brand: 'Chair Co',
  kind: 'LikelyLate',
  estimate: { date: '2026-12-02', from: null, to: null, source: 'carrier', updatedAt: 'x' },
  lateReason: likelyLateReason({ source: 'history', usualDays: 21 }),
};

describe('likely late from history in the messages', () => {
  it('the mail and the SMS give the usual days; without a reason they read as before', () => {
    const mail = estimateEmail(base);
    expect(mail.text).toContain(
      'Your parcel from Chair Co will likely arrive later than the carrier promised. Our delivery history on this lane says it usually takes 21 days. Follow the link for the latest.',
    );
    expect(mail.html).toContain('Our delivery history on this lane says it usually takes 21 days.');
    expect(estimateSms(base)).toBe(
      'Chair Co: parcel 1Z5R89390350075608 will likely arrive late. Our delivery history on this lane says it usually takes 21 days. Expected Wed 2 Dec. https://shiptrail.test/track/u1/1Z5R89390350075608',
    );
    expect(estimateSms({ ...base, lateReason: null })).toBe(
      'Chair Co: parcel 1Z5R89390350075608 will likely arrive late. Expected Wed 2 Dec. https://shiptrail.test/track/u1/1Z5R89390350075608',
    );
  });
});
