import { z } from 'zod';
import { MSG } from './messages.ts';

/** Card payment limits, in whole dollars: what one top-up or automatic recharge may be. */
export const BILLING_LIMITS = { minTopUp: 1, maxTopUp: 1000, maxMinimumBalance: 1000, maxReceiptLineItems: 1 } as const;

/**
 * A whole number of dollars, given as a number or as digits in a string (a form field): absent is `required`,
 * anything else that is not an integer is 'Please enter a number', and it must lie in [min, max].
 */
export const wholeDollars = (required: string, min: number, max: number) =>
  z
    .union([z.number(), z.string()], { error: (i) => (i.input === undefined || i.input === null ? required : MSG.amountNumber) })
    .transform((v, ctx) => {
      if (typeof v === 'string' && v.trim() === '') {
        ctx.addIssue({ code: 'custom', message: required });
        return z.NEVER;
      }
      const n = typeof v === 'number' ? v : /^\s*-?\d+\s*$/.test(v) ? Number(v) : Number.NaN;
      if (!Number.isInteger(n)) {
        ctx.addIssue({ code: 'custom', message: MSG.amountNumber });
        return z.NEVER;
      }
      if (n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `Enter a whole number of dollars from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });

export const addBalanceRequest = z.object({ amount: wholeDollars(MSG.amountRequired, BILLING_LIMITS.minTopUp, BILLING_LIMITS.maxTopUp) });
export type AddBalanceRequest = z.input<typeof addBalanceRequest>;

/**
 * A card's expiry as typed, MM/YY: well formed and not before this month (a card is valid through the last day of
 * its month). `now` is for tests.
 */
export const cardExpiry = (now: () => Date = () => new Date()) =>
  z
    .string({ error: MSG.cardExpiryFormat })
    .trim()
    .transform((v, ctx) => {
      const m = /^(0[1-9]|1[0-2])\s*\/\s*(\d{2})$/.exec(v);
      if (!m) {
        ctx.addIssue({ code: 'custom', message: MSG.cardExpiryFormat });
        return z.NEVER;
      }
      const month = Number(m[1]);
      const year = 2000 + Number(m[2]);
      const d = now();
      if (year < d.getUTCFullYear() || (year === d.getUTCFullYear() && month < d.getUTCMonth() + 1)) {
        ctx.addIssue({ code: 'custom', message: MSG.cardExpired });
        return z.NEVER;
      }
      return { month: String(month).padStart(2, '0'), year: String(year) };
    });

/**
 * The card vault's one-time nonce (the field keeps the original API's name). `expirationDate` is the sandbox card
 * form's expiry (MM/YY), checked here and kept by the sandbox gateway; Braintree's own form puts it in the nonce.
 */
export const paymentAddRequest = z.object({
  paymentMethodToken: z.string({ error: MSG.paymentMethodRequired }).trim().min(1, MSG.paymentMethodRequired).max(4096),
  expirationDate: cardExpiry().optional(),
});
export type PaymentAddRequest = z.input<typeof paymentAddRequest>;

/** Autofill: the amount of each automatic recharge and the balance under which it happens; 0 and 0 turn it off. */
export const paymentEditRequest = z.object({
  amountAutoRecharge: wholeDollars(MSG.amountAutoRechargeRequired, 0, BILLING_LIMITS.maxTopUp),
  minimumBalanceForAutoRecharge: wholeDollars(MSG.minimumBalanceRequired, 0, BILLING_LIMITS.maxMinimumBalance),
});
export type PaymentEditRequest = z.input<typeof paymentEditRequest>;

const isoDate = (message: string) =>
  z
    .string({ error: message })
    .min(1, message)
    .refine((s) => !Number.isNaN(Date.parse(s)), message);
export const usageRequest = z
  .object({ starts: isoDate('Starts must be a date (ISO 8601)'), ends: isoDate('Ends must be a date (ISO 8601)') })
  .refine((v) => Date.parse(v.starts) <= Date.parse(v.ends), { message: 'The start date must be before the end date', path: ['ends'] })
  .refine((v) => Date.parse(v.ends) - Date.parse(v.starts) <= 366 * 86_400_000, {
    message: 'Ask for at most a year of usage at a time',
    path: ['ends'],
  });
export type UsageRequest = z.input<typeof usageRequest>;

export const cardDetailsSchema = z.object({
  cardholderName: z.string(),
  last4: z.string(),
  expirationYear: z.string(),
  expirationMonth: z.string(),
  imageUrl: z.string(),
  cardType: z.string(),
});
export type CardDetails = z.infer<typeof cardDetailsSchema>;

export const paymentInfoSchema = z.object({
  paymentActive: z.boolean(),
  details: cardDetailsSchema.nullable(),
  /** Never the vault token itself: a card on file is shown as its masked number. */
  paymentMethodToken: z.string().nullable(),
  amountAutoRecharge: z.number(),
  minimumBalanceForAutoRecharge: z.number(),
  /** Whether payments go to the built-in sandbox gateway (no real money). */
  sandbox: z.boolean(),
  gateway: z.enum(['sandbox', 'braintree']),
});
export type PaymentInfo = z.infer<typeof paymentInfoSchema>;

export const paymentHistoryItemSchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  amount: z.string(),
  paymentInstrumentType: z.literal('credit_card'),
  creditCard: z.object({ cardType: z.string(), maskedNumber: z.string(), cardholderName: z.string() }),
  status: z.string(),
  type: z.literal('sale'),
  /** Ours: 'topup' (Add Balance) or 'auto_recharge'. */
  kind: z.string(),
  currencyIsoCode: z.string(),
  discountAmount: z.string().nullable(),
  discounts: z.array(z.unknown()),
  taxAmount: z.string().nullable(),
  processorResponseText: z.string(),
  transactionId: z.string().nullable(),
});
export type PaymentHistoryItem = z.infer<typeof paymentHistoryItemSchema>;

export const receiptSchema = paymentHistoryItemSchema.extend({
  seller: z.object({ name: z.string(), address: z.string(), email: z.string(), url: z.string() }),
  buyer: z.object({ name: z.string(), email: z.string(), company: z.string(), invoiceExtraInfo: z.string() }),
  lineItems: z.array(z.object({ description: z.string(), quantity: z.number(), unitAmount: z.string(), total: z.string() })),
  total: z.string(),
});
export type Receipt = z.infer<typeof receiptSchema>;

export const usageRecordSchema = z.object({
  id: z.string(),
  /** The day, YYYY-MM-DD in the account's time zone. */
  dt: z.string(),
  tracking: z.number(),
  sms: z.number(),
  costTracking: z.number(),
  costSms: z.number(),
  total: z.number(),
  updatedAt: z.string(),
});
export type UsageRecord = z.infer<typeof usageRecordSchema>;

export const clientTokenSchema = z.object({ token: z.string(), gateway: z.enum(['sandbox', 'braintree']) });
export const addBalanceResponse = z.object({ balance: z.number(), payment: paymentHistoryItemSchema });

/**
 * Braintree's documented test card numbers and the test nonce each stands for. The sandbox card form turns
 * a number into its nonce in the browser, as Braintree's own form would, so no card number is ever sent.
 */
export const SANDBOX_CARDS: Readonly<Record<string, string>> = {
  '4111111111111111': 'fake-valid-visa-nonce',
  '5555555555554444': 'fake-valid-mastercard-nonce',
  '378282246310005': 'fake-valid-amex-nonce',
  '6011111111111117': 'fake-valid-discover-nonce',
  '4000111111111115': 'fake-processor-declined-visa-nonce',
  '5105105105105100': 'fake-processor-declined-mastercard-nonce',
  '378734493671000': 'fake-processor-declined-amex-nonce',
  '6011000990139424': 'fake-processor-declined-discover-nonce',
};

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return digits.length >= 12 && sum % 10 === 0;
}

/** The sandbox nonce for a card number: its test nonce, fake-luhn-invalid-nonce, or fake-valid-nonce. */
export function sandboxNonceFor(cardNumber: string): string {
  const digits = cardNumber.replace(/[\s-]/g, '');
  if (!/^\d+$/.test(digits) || !luhnValid(digits)) return 'fake-luhn-invalid-nonce';
  return SANDBOX_CARDS[digits] ?? 'fake-valid-nonce';
}
