// Money after the sale (decision 116): Braintree's webhook notifications of a dispute opened, lost or won, and of a
// settlement declined, verified and parsed with the SDK's own functions, book the reversal (or its return) in the
// ledger once, with an alert and a mail. Through both gateways: the built-in sandbox (its notifications signed by
// the SDK with the sandbox's keys) and Braintree's SDK against a loopback fake (signed with the merchant's keys).
import braintree from 'braintree';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alerts, ledgerEntries, payments, users } from '../../src/db/schema.ts';
import { balanceCents, ledgerSumCents } from '../../src/modules/billing/billing.repository.ts';
import { GATEWAY_WEBHOOK_PATH } from '../../src/modules/billing/billing.routes.ts';
import type { GatewayEventKind } from '../../src/modules/billing/gateway.ts';
import { SandboxGateway } from '../../src/modules/billing/sandbox-gateway.ts';
import { gatewayOf } from '../../src/modules/billing/payments.ts';
import { call, createTestEnv, signUp, startSmtp, type SmtpCapture, type TestEnv } from '../helpers.ts';
import { startFakeBraintree, type FakeBraintree } from './fake-braintree.ts';

type Signer = (kind: GatewayEventKind, transactionId: string) => Promise<{ bt_signature: string; bt_payload: string }>;

const GATEWAYS = [
  {
    name: 'sandbox',
    start: async (smtpUrl: string) => {
      const env = await createTestEnv({ SMTP_URL: smtpUrl });
      const sign: Signer = (kind, id) => (gatewayOf(env.ctx) as SandboxGateway).notification(kind, id);
      return { env, sign, fake: undefined as FakeBraintree | undefined };
    },
  },
  {
    name: 'braintree',
    start: async (smtpUrl: string) => {
      const fake = await startFakeBraintree();
      const env = await createTestEnv({ ...fake.env, SMTP_URL: smtpUrl });
      // Braintree signs with the merchant's keys: the SDK's own sample, with the keys the deployment has.
      const bt = new braintree.BraintreeGateway({
        environment: braintree.Environment.Sandbox,
        merchantId: fake.merchantId,
        publicKey: fake.env.BRAINTREE_PUBLIC_KEY!,
        privateKey: fake.env.BRAINTREE_PRIVATE_KEY!,
      });
      const sign: Signer = async (kind, id) =>
        (await bt.webhookTesting.sampleNotification(kind as never, id)) as { bt_signature: string; bt_payload: string };
      return { env, sign, fake };
    },
  },
];

describe.each(GATEWAYS)('disputes and declined settlements through the $name gateway', (gw) => {
  let env: TestEnv;
  let smtp: SmtpCapture;
  let fake: FakeBraintree | undefined;
  let sign: Signer;
  beforeAll(async () => {
    smtp = await startSmtp();
    ({ env, sign, fake } = await gw.start(smtp.url));
  });
  afterAll(async () => {
    await env?.close();
    await fake?.close();
    await smtp?.close();
  });

  /** An account that topped up `dollars` with a saved card: its id, email and the sale's transaction id. */
  async function toppedUp(dollars: number) {
    const a = await signUp(env.app);
    expect(
      (await call(env.app, 'POST', '/v1/user/payment/add', { token: a.session, body: { paymentMethodToken: 'fake-valid-visa-nonce' } }))
        .statusCode,
    ).toBe(200);
    const r = await call(env.app, 'POST', '/v1/user/general/addbalance', { token: a.session, body: { amount: dollars } });
    expect(r.statusCode, JSON.stringify(r.body)).toBe(200);
    const [u] = await env.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, a.email));
    const [p] = await env.ctx.db
      .select()
      .from(payments)
      .where(and(eq(payments.userId, u!.id), eq(payments.kind, 'topup')));
    expect(p!.transactionId).toBeTruthy();
    return { ...a, id: u!.id, transactionId: p!.transactionId!, paymentId: p!.id };
  }
  const post = (form: Record<string, string>) =>
    env.app.inject({
      method: 'POST',
      url: GATEWAY_WEBHOOK_PATH,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
  const entries = (userId: string, kind: string) =>
    env.ctx.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, userId), eq(ledgerEntries.kind, kind)));
  const balance = (userId: string) => balanceCents(env.ctx.db, userId);

  it('a dispute opened takes the credit back once (however often it is delivered), with an alert and a mail; won gives it back', async () => {
    const a = await toppedUp(20);
    const before = await balance(a.id);
    const opened = await sign('dispute_opened', a.transactionId);
    for (let i = 0; i < 3; i++) {
      const r = await post(opened);
      expect(r.statusCode, r.body).toBe(200);
    }
    // The sample dispute is for $250.00; the reversal is at most what the payment credited.
    expect((await entries(a.id, 'chargeback')).map((e) => e.amountCents)).toEqual([-2000]);
    expect(await balance(a.id)).toBe(before - 2000);
    expect(await balance(a.id)).toBe(await ledgerSumCents(env.ctx.db, a.id));
    const [alert] = await env.ctx.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.userId, a.id), eq(alerts.name, 'chargeback')));
    expect(alert).toMatchObject({ group: 'payment', level: 'danger' });
    expect(alert!.message).toContain('payment of $20.00 to Shiptrail is disputed');
    const mail = await smtp.waitFor((m) => JSON.stringify(m.to).includes(a.email) && /disputed/.test(m.subject ?? ''));
    expect(mail.subject).toBe('A payment of $20.00 was disputed');
    // Lost after opened: nothing more is taken.
    expect((await post(await sign('dispute_lost', a.transactionId))).statusCode).toBe(200);
    expect((await entries(a.id, 'chargeback')).length).toBe(1);
    // Won: the $20.00 comes back, once.
    const won = await sign('dispute_won', a.transactionId);
    expect((await post(won)).statusCode).toBe(200);
    expect((await post(won)).statusCode).toBe(200);
    expect((await entries(a.id, 'chargeback_won')).map((e) => e.amountCents)).toEqual([2000]);
    expect(await balance(a.id)).toBe(before);
    await smtp.waitFor((m) => JSON.stringify(m.to).includes(a.email) && m.subject === '$20.00 is back in your balance');
  });

  it('a dispute lost with no opened before it, and a settlement declined, each reverse the credit', async () => {
    const lost = await toppedUp(15);
    expect((await post(await sign('dispute_lost', lost.transactionId))).statusCode).toBe(200);
    expect((await entries(lost.id, 'chargeback')).map((e) => e.amountCents)).toEqual([-1500]);

    const declined = await toppedUp(12);
    const before = await balance(declined.id);
    // The sample settlement is for $100; the payment credited $12.
    expect((await post(await sign('transaction_settlement_declined', declined.transactionId))).statusCode).toBe(200);
    expect((await entries(declined.id, 'chargeback')).map((e) => e.amountCents)).toEqual([-1200]);
    expect(await balance(declined.id)).toBe(before - 1200);
    await smtp.waitFor((m) => JSON.stringify(m.to).includes(declined.email) && m.subject === 'A payment of $12.00 did not go through');
    // A win for a payment never reversed books nothing.
    expect((await post(await sign('dispute_won', declined.transactionId.slice(0, 4) + 'zzzz'))).statusCode).toBe(200);
  });

  it('a forged or tampered notification is refused (403) and books nothing; one about another transaction is acknowledged and ignored', async () => {
    const a = await toppedUp(10);
    const real = await sign('dispute_opened', a.transactionId);
    const tampered = await post({
      bt_signature: real.bt_signature,
      bt_payload: Buffer.from(Buffer.from(real.bt_payload, 'base64').toString().replace('250.00', '9.00')).toString('base64'),
    });
    expect(tampered.statusCode, tampered.body).toBe(403);
    const forged = new braintree.BraintreeGateway({
      environment: braintree.Environment.Sandbox,
      merchantId: 'x',
      publicKey: 'someone',
      privateKey: 'else',
    });
    const other = (await forged.webhookTesting.sampleNotification('dispute_opened' as never, a.transactionId)) as {
      bt_signature: string;
      bt_payload: string;
    };
    expect((await post(other)).statusCode).toBe(403);
    expect((await post({ bt_signature: 'x' })).statusCode).toBe(400);
    expect(await entries(a.id, 'chargeback')).toEqual([]);
    const stranger = await post(await sign('dispute_opened', 'notours1'));
    expect(stranger.statusCode).toBe(200);
    expect(stranger.body).toBe('not-ours');
  });
});
