/**
 * The card gateway as billing sees it: a client token for the browser's card form, a vaulted card from the
 * form's one-time nonce, sales keyed by an order id, refunds and look-ups. Two implementations: Braintree
 * through its official SDK, and a built-in sandbox that honours Braintree's documented test values.
 */
export interface CardInfo {
  cardType: string;
  last4: string;
  maskedNumber: string;
  expirationMonth: string;
  expirationYear: string;
  cardholderName: string;
  imageUrl: string;
}

export interface GatewayTransaction {
  id: string;
  /** Braintree's statuses: submitted_for_settlement, settled, processor_declined, gateway_rejected, failed, voided... */
  status: string;
  amountCents: number;
  orderId: string;
  processorResponseCode: string;
  processorResponseText: string;
  card: Pick<CardInfo, 'cardType' | 'maskedNumber' | 'cardholderName' | 'last4'>;
  createdAt: string;
}

export type VaultResult =
  | { ok: true; token: string; customerId: string; card: CardInfo }
  | { ok: false; reason: 'declined' | 'rejected' | 'invalid'; message: string };

export type SaleResult =
  | { ok: true; transaction: GatewayTransaction }
  | { ok: false; reason: 'declined' | 'rejected' | 'invalid'; message: string; transaction?: GatewayTransaction };

/** What billing acts on from the gateway's webhook notifications (Braintree's kinds, parsed by its SDK). */
export type GatewayEventKind = 'dispute_opened' | 'dispute_won' | 'dispute_lost' | 'transaction_settlement_declined';
export const GATEWAY_EVENT_KINDS: readonly GatewayEventKind[] = [
  'dispute_opened',
  'dispute_won',
  'dispute_lost',
  'transaction_settlement_declined',
];
export type GatewayEvent =
  | {
      kind: GatewayEventKind;
      transactionId: string;
      /** The dispute's id, or the transaction's for a settlement. */ subjectId: string;
      amountCents: number;
      reason: string;
    }
  | { kind: 'other'; name: string };

/** A card to store: the processor's `nonce` for it, and the customer it belongs to (created when `customerId` is null). */
export interface VaultInput {
  nonce: string;
  customerId: string | null;
  email: string;
  firstName: string;
  lastName: string;
  expiry?: { month: string; year: string };
}

export interface PaymentGateway {
  readonly name: 'sandbox' | 'braintree';
  clientToken(customerId?: string | null): Promise<string>;
  /**
   * Store the card behind `nonce`, for the customer (created when null), verified first: a card the processor
   * declines is not stored. `expiry` comes from the sandbox card form (Braintree's nonce carries its own).
   */
  vault(input: VaultInput): Promise<VaultResult>;
  /** Charge a vaulted card. A sale repeated with the same orderId must not charge twice. */
  sale(input: { token: string; amountCents: number; orderId: string }): Promise<SaleResult>;
  refund(transactionId: string, amountCents?: number): Promise<SaleResult>;
  find(transactionId: string): Promise<GatewayTransaction | null>;
  /** The sale made under `orderId` (the one that charged, if several), or null: whether a lost sale happened. */
  findByOrderId(orderId: string): Promise<GatewayTransaction | null>;
  /**
   * A webhook notification (the form's bt_signature and bt_payload), verified and parsed with the Braintree SDK's
   * own functions; throws when the signature does not verify.
   */
  parseWebhook(signature: string, payload: string): Promise<GatewayEvent>;
}

/** The gateway did not answer (timeout, network): whether a sale happened is unknown. */
export class GatewayUnavailableError extends Error {
  readonly timedOut: boolean;

  constructor(timedOut: boolean, cause?: unknown) {
    super(timedOut ? 'payment gateway timed out' : 'payment gateway unavailable', { cause });
    this.timedOut = timedOut;
  }
}

/** Give up waiting after `ms`: the gateway call may still finish, which the order id makes safe to retry. */
export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new GatewayUnavailableError(true)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } catch (err) {
    if (err instanceof GatewayUnavailableError) throw err;
    const code = (err as { code?: string; name?: string }).code ?? (err as { name?: string }).name;
    if (
      code === 'ECONNREFUSED' ||
      code === 'ECONNRESET' ||
      code === 'ETIMEDOUT' ||
      code === 'UnexpectedError' ||
      code === 'ServerError' ||
      code === 'ServiceUnavailableError' ||
      code === 'TimeoutError'
    ) {
      throw new GatewayUnavailableError(code === 'ETIMEDOUT' || code === 'TimeoutError', err);
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
