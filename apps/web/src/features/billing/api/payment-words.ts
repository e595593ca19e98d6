/**
 * Payment history in words for people (decision 102): the gateway's status codes (Braintree's, which the
 * sandbox copies) become a short status and the card its type and last four digits, never the masked number
 * "411111******1111" or "SUBMITTED FOR SETTLEMENT".
 */
const STATUS_WORDS: Record<string, string> = {
  submitted_for_settlement: 'Paid',
  settling: 'Paid',
  settlement_pending: 'Paid',
  settlement_confirmed: 'Paid',
  settled: 'Paid',
  authorized: 'Paid',
  authorizing: 'Processing',
  pending: 'Processing',
  processing: 'Processing',
  unknown: 'Checking with the bank',
  processor_declined: 'Declined by the bank',
  settlement_declined: 'Declined by the bank',
  gateway_rejected: 'Refused',
  failed: 'Failed',
  fail: 'Failed',
  authorization_expired: 'Expired',
  voided: 'Cancelled',
  refunded: 'Refunded',
};

export type PaymentTone = 'paid' | 'waiting' | 'failed';

/** The status a person reads, and its tone (green, grey, red). An unknown code still reads as words. */
export function paymentStatusWords(status: string): { label: string; tone: PaymentTone } {
  const label = STATUS_WORDS[status] ?? (status ? status.replaceAll('_', ' ').replace(/^./, (c) => c.toUpperCase()) : 'Unknown');
  const tone: PaymentTone = label === 'Paid' ? 'paid' : label === 'Processing' || label === 'Checking with the bank' ? 'waiting' : 'failed';
  return { label, tone };
}

/** "Visa ending in 1111" (the card on file's words) from the card type and its masked number (or "Card ending in 1111", or just the type). */
export function cardWords(card: { cardType: string; maskedNumber: string }): string {
  const type = card.cardType.trim() || 'Card';
  const last4 = card.maskedNumber.replace(/\D/g, '').slice(-4);
  return last4.length === 4 ? `${type} ending in ${last4}` : type;
}
