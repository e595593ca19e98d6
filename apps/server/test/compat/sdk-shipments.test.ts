// The original SDK (shipmentmentor 1.0.5, unchanged) drives the shipment calls with its README's payloads,
// against the real app on loopback; the status change it makes reaches the company's signed webhook, the
// customer's mail over real SMTP and the customer's phone through a fake Twilio (charged as usual).
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { ledgerEntries } from '../../src/db/schema.ts';
import { startJobWorkers } from '../../src/jobs/registry.ts';
import { notifyJobs } from '../../src/modules/notifications/notifications.jobs.ts';
import { call, createTestEnv, startSmtp, type SmtpCapture, type TestEnv } from '../helpers.ts';
import {
  fastTuning,
  mailTo,
  markVerified,
  saveSettings,
  startFakeTwilio,
  startReceiver,
  twilioConfig,
  userRow,
} from '../notifications/fixtures.ts';
import { company, courier, readmeShipment } from '../shipments/fixtures.ts';

interface Shm {
  apiEndpoint: string;
  sendShipment(payload: unknown): Promise<any>;
  updateShipment(payload: unknown): Promise<any>;
}
const shipmentmentor = createRequire(import.meta.url)('shipmentmentor') as (token: string | undefined, env: string) => Shm;

let env: TestEnv;
let smtp: SmtpCapture;
let twilio: Awaited<ReturnType<typeof startFakeTwilio>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let base = '';
let secret = '';

beforeAll(async () => {
  smtp = await startSmtp();
  twilio = await startFakeTwilio();
  receiver = await startReceiver(() => [secret]);
  env = await createTestEnv({
    SMTP_URL: smtp.url,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...twilioConfig(twilio.url),
  });
  fastTuning(env.ctx);
  await startJobWorkers(env.ctx, Object.values(notifyJobs));
  await env.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await env?.close();
  await smtp?.close();
  await twilio?.close();
  await receiver?.close();
});

function sdk(token: string): Shm {
  const shm = shipmentmentor(token, 'sandbox'); // "production"
  shm.apiEndpoint = base;
  return shm;
}

describe('shipmentmentor SDK 1.0.5: sendShipment and updateShipment', () => {
  it('round-trips the README payloads, and the status change reaches the webhook, the customer mail and SMS', async () => {
    const c = await company(env.app, { company: 'Santa Monica Couriers' });
    await markVerified(env.ctx, c.email); // customer messages wait for a verified account (decision 109)
    const k = await courier(env.app, c.session, { email: 'courier@example.com' });
    const info = await call(env.app, 'GET', '/v1/user/info', { token: c.session });
    secret = info.body.payload.settings.webhookSecret;
    await call(env.app, 'POST', '/v1/user/general/update', {
      token: c.session,
      body: { profile: { image: 'https://acme.example/logo.png' } },
    });
    await saveSettings(env, c.session, {
      receiveNotification: { webhook: { triggers: { InTransit: true }, endpoint: receiver.url } },
      sendNotification: { email: { triggers: { InTransit: true } }, phone: { triggers: { InTransit: true } } },
    });
    const company_ = await userRow(env.ctx, c.email);

    // sendShipment, exactly the README's payload (parsels, origin, destination, ...).
    const created = await sdk(c.apiKey).sendShipment(readmeShipment());
    expect(created.tid).toMatch(/^SHM\d{12}$/);
    expect(created).toMatchObject({
      status: 'InfoReceived',
      courierEmail: 'courier@example.com',
      courierUid: k.uid,
      orderId: '0113191348',
    });

    // updateShipment, the README's payload with the number sendShipment gave; by the assigned courier's API key.
    const updated = await sdk(k.apiKey).updateShipment({
      tid: created.tid,
      status: 'InTransit',
      location: '2025 Wilshire Blvd, Santa Monica, CA 90403',
      lat: 34.032016,
      long: -118.482805,
      time: '2019-01-19T15:04:08-07:00',
    });
    expect(updated).toMatchObject({
      tid: created.tid,
      status: 'InTransit',
      lastCheckPoint: {
        status: 'InTransit',
        location: '2025 Wilshire Blvd, Santa Monica, CA 90403',
        by: { role: 'courier', name: 'Carl Courier' },
      },
    });

    // The company's webhook: a signed shipment.status_changed event.
    const hook = await waitUntil(() => receiver.received.find((r) => r.json?.data?.shipment?.tid === created.tid));
    expect(hook.verifiedWith).toBe(secret);
    expect(hook.json).toMatchObject({
      type: 'shipment.status_changed',
      version: 1,
      data: {
        status: 'InTransit',
        previousStatus: 'InfoReceived',
        shipment: { tid: created.tid, orderId: '0113191348', url: `http://shiptrail.test/track/${c.profile.uid}/${created.tid}` },
      },
    });

    // The customer (the destination's email), branded with the company, linking to the public page.
    const mail = await smtp.waitFor((m) => mailTo(m).includes('destination@example.com'));
    expect(mail.subject).toBe(`Santa Monica Couriers: your parcel ${created.tid} is In Transit`);
    expect(mail.text).toContain(`http://shiptrail.test/track/${c.profile.uid}/${created.tid}`);
    expect(mail.text).toContain('Sent by Santa Monica Couriers via Shiptrail');
    // In the company's theme colour (theme A) and with its logo (the profile image).
    expect(mail.html).toContain('background:#364fc7');
    expect(mail.html).toContain('<img src="https://acme.example/logo.png"');

    // The customer's phone (the destination's), charged $0.04 to the company.
    const sms = await waitUntil(() => twilio.requests.find((r) => r.to === '+18188082222'));
    expect(sms.body).toContain(`Santa Monica Couriers: parcel ${created.tid} is In Transit`);
    const charges = await waitUntil(async () => {
      const rows = await env.ctx.db
        .select()
        .from(ledgerEntries)
        .where(and(eq(ledgerEntries.userId, company_.id), eq(ledgerEntries.kind, 'sms')));
      return rows.length ? rows : undefined;
    });
    expect(charges.map((r) => r.amountCents)).toEqual([-4]);

    // The company's notification log names the shipment.
    const log = await call(env.app, 'GET', '/v1/notifications/log', { token: c.session });
    expect(log.body.payload.map((n: { tid: string }) => n.tid)).toContain(created.tid);
  });

  it('an SDK call the server refuses rejects with its message', async () => {
    const c = await company(env.app);
    await expect(
      sdk(c.apiKey).updateShipment({ tid: 'SHM123456789879', status: 'InTransit', location: 'x', time: '2019-01-19T15:04:08-07:00' }),
    ).rejects.toBe('Shipment not found');
  });
});

async function waitUntil<T>(fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
