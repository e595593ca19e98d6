import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MSG, addBalanceRequest, paymentAddRequest, paymentEditRequest, usageRequest } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../lib/errors.ts';
import { parse, success } from '../../lib/http.ts';
import { userOf } from '../accounts/auth.plugin.ts';
import * as pay from './payments.ts';
import { usage } from './usage.ts';
import { receipt, receiptPdf } from './receipts.ts';
import { receiveGatewayWebhook } from './disputes.ts';

/** Cards, top-ups, automatic recharges, payment history, receipts and usage. Account owners only. */
export async function billingRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const owner = { preHandler: app.requireOwner };
  const idempotencyKey = (req: FastifyRequest) => {
    const key = req.headers['idempotency-key'];
    return typeof key === 'string' && key ? key : undefined;
  };
  const sendExact = (reply: FastifyReply, out: { statusCode: number; text: string }) =>
    reply.code(out.statusCode).type('application/json; charset=utf-8').send(out.text);
  const idParam = (req: FastifyRequest) => {
    const id = (req.params as { id: string }).id;
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw notFound(MSG.receiptNotFound);
    return id;
  };

  app.get('/v1/user/payment/token/generate', owner, async (req) => success(await pay.clientToken(ctx, userOf(req).id)));

  app.post('/v1/user/payment/add', owner, async (req) => {
    const { paymentMethodToken, expirationDate } = parse(paymentAddRequest, req.body);
    return success(await pay.addCard(ctx, userOf(req), paymentMethodToken, expirationDate), MSG.cardAdded);
  });

  app.get('/v1/user/payment/info', owner, async (req) => success(await pay.paymentInfo(ctx, userOf(req).id)));

  app.post('/v1/user/payment/edit', owner, async (req) => {
    const input = parse(paymentEditRequest, req.body);
    return success(
      await pay.editAutofill(ctx, userOf(req).id, input.amountAutoRecharge, input.minimumBalanceForAutoRecharge),
      MSG.autofillSaved,
    );
  });

  app.post('/v1/user/general/addbalance', owner, async (req, reply) => {
    const { amount } = parse(addBalanceRequest, req.body);
    return sendExact(reply, await pay.addBalance(ctx, userOf(req), amount, idempotencyKey(req)));
  });

  app.get('/v1/user/payment/history', owner, async (req) => success(await pay.paymentHistory(ctx, userOf(req).id)));

  app.get('/v1/user/payment/receipt/:id', owner, async (req) => success(await receipt(ctx, userOf(req), idParam(req))));

  app.get('/v1/user/payment/receipt/:id/pdf', owner, async (req, reply) => {
    const pdf = await receiptPdf(ctx, userOf(req), idParam(req));
    return reply.type('application/pdf').header('content-disposition', 'attachment; filename="invoice.pdf"').send(pdf);
  });

  app.post('/v1/user/general/getusage', owner, async (req) => {
    const { starts, ends } = parse(usageRequest, req.body);
    const u = userOf(req);
    return success(await usage(ctx.db, u.id, u.timeZone, new Date(starts), new Date(ends)));
  });
}

/** Beside the carriers' push receivers (/carriers/...): a third party's call, not part of the /v1 API. */
export const GATEWAY_WEBHOOK_PATH = '/payments/braintree/webhook';
const MAX_WEBHOOK_BYTES = 256 * 1024;

/**
 * Braintree's webhook (decision 116): public, form-encoded `bt_signature` and `bt_payload`, verified by the SDK
 * with our keys. 200 once booked (or when it is not about one of our top-ups, so Braintree stops retrying); 403
 * when the signature does not verify, and nothing is booked.
 */
export async function gatewayWebhookRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_WEBHOOK_BYTES }, (_req, body, done) => done(null, body));
  app.post(GATEWAY_WEBHOOK_PATH, async (req, reply) => {
    const form = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
    const signature = form.get('bt_signature') ?? '';
    const payload = form.get('bt_payload') ?? '';
    if (!signature || !payload) return reply.code(400).type('text/plain').send('bt_signature and bt_payload are required');
    let outcome: string;
    try {
      outcome = await receiveGatewayWebhook(ctx, signature, payload);
    } catch (err) {
      const name = (err as { type?: string; name?: string }).type ?? (err as { name?: string }).name ?? '';
      if (/signature|InvalidSignature|invalidSignature|InvalidChallenge|invalidChallenge/i.test(`${name} ${(err as Error).message}`)) {
        return reply.code(403).type('text/plain').send('The notification signature does not verify');
      }
      throw err;
    }
    return reply.code(200).type('text/plain').send(outcome);
  });
}
