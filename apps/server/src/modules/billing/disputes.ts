import type { AppContext } from '../../context.ts';
import { layout, escapeHtml, type Rendered } from '../../lib/mail-layout.ts';
import * as ledger from './billing.repository.ts';
import type { GatewayEvent, GatewayEventKind } from './gateway.ts';
import { gatewayOf, userForBilling } from './payments.ts';
import { raisePaymentAlert } from './payment-alerts.ts';
import * as repo from './payments.repository.ts';

/**
 * Money after the sale (decision 116). A top-up credited when the gateway took the card can still fail to
 * settle, or be disputed by the cardholder. Braintree says so by webhook; each notification is verified and
 * parsed with the SDK's own functions (PaymentGateway.parseWebhook) and booked here, once however often it is
 * delivered:
 * - dispute opened, dispute lost, settlement declined: the credit is reversed (ledger kind `chargeback`, one per
 *   payment whichever event comes first, at most what the payment credited), with a danger alert and a mail;
 * - dispute won: the reversal is given back (ledger kind `chargeback_won`, once), with an alert and a mail.
 * The balance may go below zero: spending stops there, as at $0.
 */
export const REVERSAL_KIND = 'chargeback';
export const REINSTATED_KIND = 'chargeback_won';

export type DisputeOutcome = 'reversed' | 'reinstated' | 'already' | 'not-ours' | 'ignored';

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

const WORDS: Record<GatewayEventKind, (amount: string) => { title: string; body: string }> = {
  dispute_opened: (a) => ({
    title: `A payment of ${a} was disputed`,
    body: `Your card issuer told us that a payment of ${a} to Shiptrail is disputed. The ${a} it added to your balance has been taken back while the dispute is open. If the dispute ends in our favour, it comes back.`,
  }),
  dispute_lost: (a) => ({
    title: `A disputed payment of ${a} was reversed`,
    body: `The dispute of a payment of ${a} to Shiptrail ended with the card issuer: the ${a} it added to your balance has been taken back.`,
  }),
  transaction_settlement_declined: (a) => ({
    title: `A payment of ${a} did not go through`,
    body: `Your bank declined to settle a payment of ${a} to Shiptrail after it was approved. The ${a} it added to your balance has been taken back. Please add balance with another card.`,
  }),
  dispute_won: (a) => ({
    title: `${a} is back in your balance`,
    body: `The dispute of a payment of ${a} to Shiptrail was settled in our favour: the ${a} taken back while it was open is in your balance again.`,
  }),
};

function mailOf(w: { title: string; body: string }, link: string): Rendered {
  return {
    subject: w.title,
    text: `${w.body}\n\nYour balance and payments: ${link}\n`,
    html: layout(
      w.title,
      `<p style="line-height:1.5">${escapeHtml(w.body)}</p><p style="font-size:13px;color:#6b7280">Your balance and payments: ${escapeHtml(link)}</p>`,
    ),
  };
}

/** Book one verified gateway event. Safe to repeat: the ledger's (kind, ref) and the alert's key make it once. */
export async function bookGatewayEvent(ctx: AppContext, e: GatewayEvent): Promise<DisputeOutcome> {
  if (e.kind === 'other') return 'ignored';
  const p = await repo.paymentByTransaction(ctx.db, e.transactionId);
  if (!p) {
    ctx.log.warn(
      { kind: e.kind, transactionId: e.transactionId },
      'gateway notification about a transaction that is not one of our top-ups',
    );
    return 'not-ours';
  }
  const reinstate = e.kind === 'dispute_won';
  const done = await ctx.db.transaction(async (tx) => {
    await ledger.lockAccount(tx, p.userId);
    const credited = await repo.entryCents(tx, p.userId, 'topup', p.id);
    const reversed = -(await repo.entryCents(tx, p.userId, REVERSAL_KIND, p.id));
    const amount = reinstate ? reversed : Math.min(credited, e.amountCents > 0 ? e.amountCents : credited);
    if (amount <= 0) return null;
    const words = WORDS[e.kind](dollars(amount));
    const booked = await ledger.insertEntryOnce(tx, {
      userId: p.userId,
      amountCents: reinstate ? amount : -amount,
      kind: reinstate ? REINSTATED_KIND : REVERSAL_KIND,
      ref: p.id,
      description: words.title,
    });
    if (!booked) return null;
    await raisePaymentAlert(tx, p.userId, {
      name: reinstate ? 'chargebackWon' : 'chargeback',
      level: reinstate ? 'info' : 'danger',
      dedupeKey: `${e.kind}:${p.id}`,
      message: words.body,
    });
    return words;
  });
  if (!done) return 'already';
  const user = await userForBilling(ctx.db, p.userId);
  if (user) {
    await ctx.mailer
      .send({ to: user.email, ...mailOf(done, `${ctx.config.publicUrl}/account/profile/settings/paymentHistory`) })
      .catch((err: unknown) => ctx.log.error({ err, paymentId: p.id }, 'could not mail the payment reversal'));
  }
  return reinstate ? 'reinstated' : 'reversed';
}

/** Verify, parse and book a webhook notification; throws (the route answers 403) when it does not verify. */
export async function receiveGatewayWebhook(ctx: AppContext, signature: string, payload: string): Promise<DisputeOutcome> {
  return bookGatewayEvent(ctx, await gatewayOf(ctx).parseWebhook(signature, payload));
}
