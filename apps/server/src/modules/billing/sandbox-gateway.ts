import { randomBytes, randomUUID } from 'node:crypto';
import braintree from 'braintree';
import type {
  CardInfo,
  GatewayEvent,
  GatewayEventKind,
  GatewayTransaction,
  PaymentGateway,
  SaleResult,
  VaultInput,
  VaultResult,
} from './gateway.ts';
import { parseWith } from './webhook-parse.ts';

/**
 * The sandbox's webhook keys. Notifications are signed and parsed by the Braintree SDK itself, with these in
 * place of a merchant's keys; nothing is asked of Braintree. Anyone can sign with them, which is why a
 * deployment refuses the sandbox gateway unless it is switched on (decision 104).
 */
const SANDBOX_WEBHOOK_KEYS = { merchantId: 'shiptrail_sandbox', publicKey: 'sandbox_public_key', privateKey: 'sandbox_private_key' };

/**
 * Braintree's documented sandbox test nonces. The web's sandbox card form maps Braintree's test card numbers
 * to these (see SANDBOX_CARDS in the contract), so a card number never reaches our server.
 */
const VALID: Record<string, { cardType: string; last4: string; bin: string }> = {
  'fake-valid-nonce': { cardType: 'Visa', last4: '1881', bin: '401288' },
  'fake-valid-visa-nonce': { cardType: 'Visa', last4: '1111', bin: '411111' },
  'fake-valid-mastercard-nonce': { cardType: 'MasterCard', last4: '4444', bin: '555555' },
  'fake-valid-amex-nonce': { cardType: 'American Express', last4: '0005', bin: '378282' },
  'fake-valid-discover-nonce': { cardType: 'Discover', last4: '1117', bin: '601111' },
};
/** Cards the processor declines (2000 Do Not Honor): their verification when vaulted fails, as on Braintree with verifyCard. */
const DECLINING: Record<string, { cardType: string; last4: string; bin: string }> = {
  'fake-processor-declined-visa-nonce': { cardType: 'Visa', last4: '1115', bin: '400011' },
  'fake-processor-declined-mastercard-nonce': { cardType: 'MasterCard', last4: '5100', bin: '510510' },
  'fake-processor-declined-amex-nonce': { cardType: 'American Express', last4: '1000', bin: '378734' },
  'fake-processor-declined-discover-nonce': { cardType: 'Discover', last4: '9424', bin: '601100' },
};

const IMAGE: Record<string, string> = {
  Visa: 'https://assets.braintreegateway.com/payment_method_logo/visa.png',
  MasterCard: 'https://assets.braintreegateway.com/payment_method_logo/mastercard.png',
  'American Express': 'https://assets.braintreegateway.com/payment_method_logo/american_express.png',
  Discover: 'https://assets.braintreegateway.com/payment_method_logo/discover.png',
};

/** Where the sandbox keeps its sales by order id (the database in the app; memory by default). */
export interface SandboxSaleStore {
  /** Keep `tx` unless a sale with its order id is kept already; either way, the sale kept for that order id. */
  keepFirst(tx: GatewayTransaction): Promise<GatewayTransaction>;
  byOrderId(orderId: string): Promise<GatewayTransaction | null>;
  byId(id: string): Promise<GatewayTransaction | null>;
}

export function memorySaleStore(): SandboxSaleStore {
  const byOrder = new Map<string, GatewayTransaction>();
  const byId = new Map<string, GatewayTransaction>();
  return {
    async keepFirst(tx) {
      const first = byOrder.get(tx.orderId);
      if (first) return first;
      byOrder.set(tx.orderId, tx);
      byId.set(tx.id, tx);
      return tx;
    },
    byOrderId: async (orderId) => byOrder.get(orderId) ?? null,
    byId: async (id) => byId.get(id) ?? null,
  };
}

interface SandboxCard extends CardInfo {
  declines: boolean;
}

/**
 * The built-in sandbox gateway, used when no Braintree credentials are configured. It behaves like Braintree's
 * sandbox for the values Braintree documents: fake-valid-*-nonce vault, fake-processor-declined-*-nonce fail
 * the verification made when vaulting (Do Not Honor), fake-gateway-rejected-fraud-nonce is rejected, fake-luhn-invalid-nonce is
 * invalid, fake-consumed-nonce (or a nonce of ours used twice) is refused, and a sale of 2000.00-2999.99 is
 * declined with that processor code, 3000.00-3000.99 fails, as on Braintree. A sale repeated with the same
 * order id returns the first sale (kept in the database by the app, so also after a restart). Vaulted cards live in the token itself, so tokens outlive a restart.
 */
export class SandboxGateway implements PaymentGateway {
  readonly name = 'sandbox' as const;
  private readonly refunds = new Map<string, GatewayTransaction>();
  private readonly usedNonces = new Set<string>();
  private readonly sales: SandboxSaleStore;

  /** `delayMs` slows every call down (a slow gateway, for timeout tests); `store` keeps sales by order id. */
  private readonly opts: { delayMs?: number; store?: SandboxSaleStore };

  constructor(opts: { delayMs?: number; store?: SandboxSaleStore } = {}) {
    this.opts = opts;
    this.sales = opts.store ?? memorySaleStore();
  }

  private async pause() {
    if (this.opts.delayMs) await new Promise((r) => setTimeout(r, this.opts.delayMs));
  }

  async clientToken(): Promise<string> {
    await this.pause();
    return `sandbox_${randomBytes(12).toString('hex')}`;
  }

  async vault(input: VaultInput): Promise<VaultResult> {
    await this.pause();
    const nonce = input.nonce.trim();
    if (nonce === 'fake-consumed-nonce' || this.usedNonces.has(nonce))
      return { ok: false, reason: 'invalid', message: 'Cannot use a payment_method_nonce more than once.' };
    if (nonce === 'fake-gateway-rejected-fraud-nonce') return { ok: false, reason: 'rejected', message: 'Gateway Rejected: fraud' };
    if (nonce === 'fake-luhn-invalid-nonce') return { ok: false, reason: 'invalid', message: 'Credit card number is invalid.' };
    const known = VALID[nonce] ?? DECLINING[nonce];
    if (!known) return { ok: false, reason: 'invalid', message: 'Unknown or expired payment_method_nonce.' };
    // Verified when vaulted (verifyCard): the processor's decline is known now, and nothing is stored.
    if (nonce in DECLINING) return { ok: false, reason: 'declined', message: 'Do Not Honor' };
    if (!nonce.startsWith('fake-')) this.usedNonces.add(nonce);
    const year = input.expiry?.year ?? String(new Date().getUTCFullYear() + 3);
    const card: SandboxCard = {
      cardType: known.cardType,
      last4: known.last4,
      maskedNumber: `${known.bin}******${known.last4}`,
      expirationMonth: input.expiry?.month ?? '12',
      expirationYear: year,
      cardholderName: `${input.firstName} ${input.lastName}`.trim(),
      imageUrl: IMAGE[known.cardType] ?? '',
      declines: nonce in DECLINING,
    };
    const token = `sbx.${Buffer.from(JSON.stringify(card)).toString('base64url')}.${randomBytes(4).toString('hex')}`;
    return { ok: true, token, customerId: input.customerId ?? `sbxcus_${randomBytes(6).toString('hex')}`, card };
  }

  private cardOf(token: string): SandboxCard | null {
    const [prefix, body] = token.split('.');
    if (prefix !== 'sbx' || !body) return null;
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SandboxCard;
    } catch {
      return null;
    }
  }

  async sale(input: { token: string; amountCents: number; orderId: string }): Promise<SaleResult> {
    await this.pause();
    const first = await this.sales.byOrderId(input.orderId);
    if (first) return resultOf(first);
    const card = this.cardOf(input.token);
    if (!card) return { ok: false, reason: 'invalid', message: 'Payment method token is invalid.' };
    const dollars = input.amountCents / 100;
    let code = '1000';
    let text = 'Approved';
    let status = 'submitted_for_settlement';
    if (card.declines) [code, text, status] = ['2000', 'Do Not Honor', 'processor_declined'];
    else if (dollars >= 2000 && dollars < 3000)
      [code, text, status] = [String(Math.floor(dollars)), 'Processor Declined', 'processor_declined'];
    else if (dollars >= 3000 && dollars < 3001) [code, text, status] = ['3000', 'Processor Network Unavailable - Try Again', 'failed'];
    const tx: GatewayTransaction = {
      id: randomUUID().replaceAll('-', '').slice(0, 8),
      status,
      amountCents: input.amountCents,
      orderId: input.orderId,
      processorResponseCode: code,
      processorResponseText: text,
      card: { cardType: card.cardType, maskedNumber: card.maskedNumber, cardholderName: card.cardholderName, last4: card.last4 },
      createdAt: new Date().toISOString(),
    };
    // A concurrent sale with the same order id may have been kept first: answer with that one.
    return resultOf(await this.sales.keepFirst(tx));
  }

  async refund(transactionId: string, amountCents?: number): Promise<SaleResult> {
    await this.pause();
    const orig = await this.sales.byId(transactionId);
    if (!orig || orig.status !== 'submitted_for_settlement')
      return { ok: false, reason: 'invalid', message: 'Cannot refund a transaction unless it is settled.' };
    const tx: GatewayTransaction = {
      ...orig,
      id: randomUUID().replaceAll('-', '').slice(0, 8),
      amountCents: amountCents ?? orig.amountCents,
      status: 'submitted_for_settlement',
      createdAt: new Date().toISOString(),
    };
    this.refunds.set(tx.id, tx);
    return { ok: true, transaction: tx };
  }

  async find(transactionId: string): Promise<GatewayTransaction | null> {
    await this.pause();
    return (await this.sales.byId(transactionId)) ?? this.refunds.get(transactionId) ?? null;
  }

  async findByOrderId(orderId: string): Promise<GatewayTransaction | null> {
    await this.pause();
    return this.sales.byOrderId(orderId);
  }

  private webhookGateway?: braintree.BraintreeGateway;
  private webhooks(): braintree.BraintreeGateway {
    return (this.webhookGateway ??= new braintree.BraintreeGateway({
      environment: braintree.Environment.Sandbox,
      ...SANDBOX_WEBHOOK_KEYS,
    }));
  }

  parseWebhook(signature: string, payload: string): Promise<GatewayEvent> {
    return parseWith(this.webhooks(), signature, payload);
  }

  /**
   * The notification Braintree would send about one of our sandbox sales (the SDK's own sample, signed with
   * the sandbox's keys): the form fields to POST to the webhook address, as Braintree does.
   */
  async notification(kind: GatewayEventKind, transactionId: string): Promise<{ bt_signature: string; bt_payload: string }> {
    const sample = (await this.webhooks().webhookTesting.sampleNotification(kind as never, transactionId)) as {
      bt_signature: string;
      bt_payload: string;
    };
    return sample;
  }
}

function resultOf(t: GatewayTransaction): SaleResult {
  return t.status === 'submitted_for_settlement'
    ? { ok: true, transaction: t }
    : { ok: false, reason: 'declined', message: t.processorResponseText, transaction: t };
}
