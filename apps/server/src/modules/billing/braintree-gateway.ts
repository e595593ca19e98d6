import braintree from 'braintree';
import type { Config } from '../../config.ts';
import { parseWith } from './webhook-parse.ts';
import {
  GatewayUnavailableError,
  type CardInfo,
  type GatewayTransaction,
  type PaymentGateway,
  type SaleResult,
  type VaultInput,
  type VaultResult,
} from './gateway.ts';

type BraintreeSettings = Pick<
  Config,
  | 'BRAINTREE_ENVIRONMENT'
  | 'BRAINTREE_MERCHANT_ID'
  | 'BRAINTREE_PUBLIC_KEY'
  | 'BRAINTREE_PRIVATE_KEY'
  | 'BRAINTREE_GATEWAY_URL'
  | 'PAYMENT_TIMEOUT_MS'
>;

/** Whether card payments go to Braintree (all four credentials set; the config check refuses a partial set). */
export const braintreeConfigured = (c: BraintreeSettings): boolean =>
  !!(c.BRAINTREE_ENVIRONMENT && c.BRAINTREE_MERCHANT_ID && c.BRAINTREE_PUBLIC_KEY && c.BRAINTREE_PRIVATE_KEY);

/**
 * The SDK's environment: Braintree's own, or a custom gateway address (a loopback fake in tests). The SDK
 * takes host, port and ssl separately; the auth and GraphQL hosts are never called by the calls we use.
 */
export function braintreeEnvironment(c: BraintreeSettings): braintree.Environment {
  if (c.BRAINTREE_GATEWAY_URL) {
    const u = new URL(c.BRAINTREE_GATEWAY_URL);
    const ssl = u.protocol === 'https:';
    const port = u.port || (ssl ? '443' : '80');
    return new braintree.Environment(u.hostname, port, u.origin, ssl, u.hostname, port);
  }
  return c.BRAINTREE_ENVIRONMENT === 'production' ? braintree.Environment.Production : braintree.Environment.Sandbox;
}

/** Statuses of a sale that took (or will take) the money. */
const CHARGED = new Set(['authorized', 'submitted_for_settlement', 'settling', 'settled', 'settlement_pending', 'settlement_confirmed']);

/** SDK error types that mean "no usable answer": whether the call took effect is unknown. */
const UNAVAILABLE = new Set([
  'unexpectedError',
  'serverError',
  'serviceUnavailableError',
  'gatewayTimeoutError',
  'requestTimeoutError',
  'tooManyRequestsError',
]);
const TIMED_OUT = new Set(['gatewayTimeoutError', 'requestTimeoutError']);

interface SdkCard {
  cardType?: string;
  last4?: string;
  maskedNumber?: string;
  expirationMonth?: string;
  expirationYear?: string;
  cardholderName?: string | null;
  imageUrl?: string;
}

interface SdkTransaction {
  id: string;
  status: string;
  amount: string;
  orderId?: string | null;
  processorResponseCode?: string | null;
  processorResponseText?: string | null;
  gatewayRejectionReason?: string | null;
  creditCard?: SdkCard;
  createdAt?: string | Date;
}

interface SdkResult {
  success: boolean;
  message?: string;
  transaction?: SdkTransaction;
  verification?: { status?: string; processorResponseText?: string; gatewayRejectionReason?: string };
  customer?: { id: string };
  paymentMethod?: SdkCard & { token: string };
  clientToken?: string;
}

function transactionOf(t: SdkTransaction): GatewayTransaction {
  const c = t.creditCard ?? {};
  return {
    id: t.id,
    status: t.status,
    amountCents: Math.round(Number(t.amount) * 100),
    orderId: t.orderId ?? '',
    processorResponseCode: t.processorResponseCode ?? '',
    processorResponseText: t.processorResponseText ?? '',
    card: { cardType: c.cardType ?? '', maskedNumber: c.maskedNumber ?? '', cardholderName: c.cardholderName ?? '', last4: c.last4 ?? '' },
    createdAt: t.createdAt ? new Date(t.createdAt).toISOString() : new Date().toISOString(),
  };
}

function saleResultOf(t: SdkTransaction, message?: string): SaleResult {
  const transaction = transactionOf(t);
  if (CHARGED.has(t.status)) return { ok: true, transaction };
  if (t.status === 'gateway_rejected')
    return { ok: false, reason: 'rejected', message: message ?? `Gateway Rejected: ${t.gatewayRejectionReason ?? ''}`, transaction };
  return { ok: false, reason: 'declined', message: t.processorResponseText || message || 'Processor Declined', transaction };
}

/**
 * Braintree through its official Node SDK. Braintree does not deduplicate sales by order id, so a sale first
 * searches its order id: a top-up retried after a timeout, or reconciled after a crash, finds the first sale
 * instead of charging the card again.
 */
export class BraintreeGateway implements PaymentGateway {
  readonly name = 'braintree' as const;
  private readonly gw: braintree.BraintreeGateway;

  constructor(c: BraintreeSettings) {
    this.gw = new braintree.BraintreeGateway({
      environment: braintreeEnvironment(c),
      merchantId: c.BRAINTREE_MERCHANT_ID!,
      publicKey: c.BRAINTREE_PUBLIC_KEY!,
      privateKey: c.BRAINTREE_PRIVATE_KEY!,
    });
    // The SDK's own socket timeout backs up ours, so a hung connection is not kept for its default minute.
    (this.gw as unknown as { config: { timeout: number } }).config.timeout = c.PAYMENT_TIMEOUT_MS * 2;
  }

  /** Run an SDK call, turning "no answer" into GatewayUnavailableError. */
  private async sdk<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      const type = (err as { type?: string }).type;
      if (type && UNAVAILABLE.has(type)) throw new GatewayUnavailableError(TIMED_OUT.has(type) || /timed out/i.test(String(err)), err);
      throw err;
    }
  }

  async clientToken(customerId?: string | null): Promise<string> {
    const r = (await this.sdk(() => this.gw.clientToken.generate(customerId ? { customerId } : {}))) as unknown as SdkResult;
    if (!r.success || !r.clientToken) throw new Error(`Braintree refused a client token: ${r.message ?? ''}`);
    return r.clientToken;
  }

  async vault(input: VaultInput): Promise<VaultResult> {
    let customerId = input.customerId;
    if (!customerId) {
      const c = (await this.sdk(() =>
        this.gw.customer.create({ email: input.email, firstName: input.firstName, lastName: input.lastName }),
      )) as unknown as SdkResult;
      if (!c.success || !c.customer) return { ok: false, reason: 'invalid', message: c.message ?? 'The customer could not be created.' };
      customerId = c.customer.id;
    }
    const r = (await this.sdk(() =>
      this.gw.paymentMethod.create({
        customerId: customerId!,
        paymentMethodNonce: input.nonce.trim(),
        options: { makeDefault: true, verifyCard: true },
      }),
    )) as unknown as SdkResult;
    if (!r.success || !r.paymentMethod) {
      const status = r.verification?.status;
      const reason = status === 'processor_declined' ? 'declined' : status === 'gateway_rejected' ? 'rejected' : 'invalid';
      return { ok: false, reason, message: r.message ?? 'The card could not be saved.' };
    }
    const pm = r.paymentMethod;
    const card: CardInfo = {
      cardType: pm.cardType ?? '',
      last4: pm.last4 ?? '',
      maskedNumber: pm.maskedNumber ?? '',
      expirationMonth: pm.expirationMonth ?? '',
      expirationYear: pm.expirationYear ?? '',
      cardholderName: pm.cardholderName || `${input.firstName} ${input.lastName}`.trim(),
      imageUrl: pm.imageUrl ?? '',
    };
    return { ok: true, token: pm.token, customerId, card };
  }

  async sale(input: { token: string; amountCents: number; orderId: string }): Promise<SaleResult> {
    const earlier = await this.findByOrderId(input.orderId);
    if (earlier) return this.saleResultOfFound(earlier);
    const r = (await this.sdk(() =>
      this.gw.transaction.sale({
        amount: (input.amountCents / 100).toFixed(2),
        paymentMethodToken: input.token,
        orderId: input.orderId,
        options: { submitForSettlement: true },
      }),
    )) as unknown as SdkResult;
    if (r.transaction) return saleResultOf(r.transaction, r.success ? undefined : r.message);
    return { ok: false, reason: 'invalid', message: r.message ?? 'The payment could not be made.' };
  }

  private saleResultOfFound(t: GatewayTransaction): SaleResult {
    if (CHARGED.has(t.status)) return { ok: true, transaction: t };
    if (t.status === 'gateway_rejected') return { ok: false, reason: 'rejected', message: 'Gateway Rejected', transaction: t };
    return { ok: false, reason: 'declined', message: t.processorResponseText || 'Processor Declined', transaction: t };
  }

  async refund(transactionId: string, amountCents?: number): Promise<SaleResult> {
    const r = (await this.sdk(() =>
      amountCents === undefined
        ? this.gw.transaction.refund(transactionId)
        : this.gw.transaction.refund(transactionId, (amountCents / 100).toFixed(2)),
    )) as unknown as SdkResult;
    if (r.transaction) return saleResultOf(r.transaction, r.success ? undefined : r.message);
    return { ok: false, reason: 'invalid', message: r.message ?? 'The refund could not be made.' };
  }

  async find(transactionId: string): Promise<GatewayTransaction | null> {
    try {
      return transactionOf((await this.sdk(() => this.gw.transaction.find(transactionId))) as unknown as SdkTransaction);
    } catch (err) {
      if ((err as { type?: string }).type === 'notFoundError') return null;
      throw err;
    }
  }

  /** The sale made under `orderId`: the one that charged the card if any, else the latest attempt; null when none. */
  async findByOrderId(orderId: string): Promise<GatewayTransaction | null> {
    const found = await this.sdk(
      () =>
        new Promise<SdkTransaction[]>((resolve, reject) => {
          const out: SdkTransaction[] = [];
          const stream = this.gw.transaction.search((s) => s.orderId().is(orderId));
          stream.on('data', (t: SdkTransaction) => out.push(t));
          stream.on('error', reject);
          stream.on('end', () => resolve(out));
        }),
    );
    const sales = found.map(transactionOf).filter((t) => t.orderId === orderId);
    return sales.find((t) => CHARGED.has(t.status)) ?? sales.at(-1) ?? null;
  }

  parseWebhook(signature: string, payload: string) {
    return parseWith(this.gw, signature, payload);
  }
}
