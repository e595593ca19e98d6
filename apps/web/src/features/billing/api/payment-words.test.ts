import { describe, expect, it } from 'vitest';
import { cardWords, paymentStatusWords } from './payment-words';

describe('payment history in words for people', () => {
  it('says Paid, not SUBMITTED FOR SETTLEMENT', () => {
    expect(paymentStatusWords('submitted_for_settlement')).toEqual({ label: 'Paid', tone: 'paid' });
    expect(paymentStatusWords('settled').label).toBe('Paid');
  });
  it('says why a payment did not go through', () => {
    expect(paymentStatusWords('processor_declined')).toEqual({ label: 'Declined by the bank', tone: 'failed' });
    expect(paymentStatusWords('gateway_rejected').tone).toBe('failed');
    expect(paymentStatusWords('pending')).toEqual({ label: 'Processing', tone: 'waiting' });
    expect(paymentStatusWords('unknown').tone).toBe('waiting');
  });
  it('still reads as words for a code it does not know', () => {
    expect(paymentStatusWords('some_new_state').label).toBe('Some new state');
  });
  it('names the card by its type and last four digits', () => {
    expect(cardWords({ cardType: 'Visa', maskedNumber: '411111******1111' })).toBe('Visa ending in 1111');
    expect(cardWords({ cardType: '', maskedNumber: '555555******4444' })).toBe('Card ending in 4444');
    expect(cardWords({ cardType: 'Visa', maskedNumber: '' })).toBe('Visa');
  });
});
