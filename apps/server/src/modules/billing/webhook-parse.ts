import braintree from 'braintree';
import { GATEWAY_EVENT_KINDS, type GatewayEvent, type GatewayEventKind } from './gateway.ts';

interface SdkNotification {
  kind: string;
  dispute?: {
    id: string;
    amount?: string;
    amountDisputed?: string | number;
    reason?: string;
    transaction?: { id: string; amount?: string };
  };
  transaction?: { id: string; amount?: string; status?: string };
}

const cents = (v: string | number | undefined) =>
  v === undefined || v === '' || !Number.isFinite(Number(v)) ? 0 : Math.round(Number(v) * 100);

/** Parse and verify a notification with the SDK of `gw` (its keys sign and check the payload). */
export async function parseWith(gw: braintree.BraintreeGateway, signature: string, payload: string): Promise<GatewayEvent> {
  const n = (await gw.webhookNotification.parse(signature, payload)) as unknown as SdkNotification;
  if (!(GATEWAY_EVENT_KINDS as readonly string[]).includes(n.kind)) return { kind: 'other', name: n.kind };
  const kind = n.kind as GatewayEventKind;
  if (kind === 'transaction_settlement_declined') {
    const t = n.transaction!;
    return { kind, transactionId: t.id, subjectId: t.id, amountCents: cents(t.amount), reason: 'settlement declined' };
  }
  const d = n.dispute!;
  return {
    kind,
    transactionId: d.transaction?.id ?? '',
    subjectId: d.id,
    amountCents: cents(d.amountDisputed ?? d.amount),
    reason: d.reason ?? '',
  };
}
