import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { devOutbox, ledgerEntries } from '../../src/db/schema.ts';
import { insertEntryOnce } from '../../src/modules/billing/billing.repository.ts';
import { startJobWorkers } from '../../src/jobs/registry.ts';
import { notifyJobs } from '../../src/modules/notifications/notifications.jobs.ts';
import { QUIET_MS, queuesIdle, quietWindow, waitFor } from '../wait.ts';
import { balanceCents } from '../../src/modules/billing/billing.service.ts';
import { call, createTestEnv, eventually, signUp, type TestEnv } from '../helpers.ts';
import {
  allTriggers,
  changeStatus,
  fastTuning,
  insertTracking,
  markVerified,
  saveSettings,
  startFakeTwilio,
  twilioConfig,
  notificationRows,
  userRow,
} from './fixtures.ts';

describe('SMS through a fake Twilio on loopback', () => {
  let env: TestEnv;
  let twilio: Awaited<ReturnType<typeof startFakeTwilio>>;
  beforeAll(async () => {
    twilio = await startFakeTwilio();
    env = await createTestEnv(twilioConfig(twilio.url));
    fastTuning(env.ctx);
    await startJobWorkers(env.ctx, Object.values(notifyJobs));
  });
  afterAll(async () => {
    await env.close();
    await twilio.close();
  });

  async function phoneAccount(over: Record<string, unknown> = {}) {
    const a = await signUp(env.app, over);
    const r = await call(env.app, 'POST', '/v1/user/general/update', {
      token: a.session,
      body: { profile: { phone: '+1 (202) 555-0143' } },
    });
    expect(r.statusCode).toBe(200);
    return { ...a, user: await userRow(env.ctx, a.email) };
  }

  it('sends to the profile phone (default endpoint) and charges $0.04 once per SMS', async () => {
    const a = await phoneAccount();
    await saveSettings(env, a.session, { receiveNotification: { phone: { triggers: { OutForDelivery: true, Delivered: true } } } });
    const before = await balanceCents(env.ctx.db, a.user.id);
    const t = await insertTracking(env.ctx, a.user.id, { tid: '1ZSMS000001' });
    await changeStatus(env.ctx, t.id, 'OutForDelivery', {
      status: 'OutForDelivery',
      location: 'Austin, TX',
      message: 'Out for delivery',
      time: new Date().toISOString(),
    });
    await eventually(async () => (await notificationRows(env.ctx, a.user.id))[0]?.status === 'sent');
    const mine = twilio.requests.filter((r) => r.body.includes('1ZSMS000001'));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      to: '+12025550143',
      from: '+15005550006',
      path: '/2010-04-01/Accounts/AC0123456789abcdef/Messages.json',
    });
    expect(mine[0]!.auth).toBe('Basic ' + Buffer.from('AC0123456789abcdef:tok-secret').toString('base64'));
    expect(mine[0]!.body).toBe(
      `Shiptrail: parcel 1ZSMS000001 is Out For Delivery (Austin, TX). http://shiptrail.test/track/${a.user.uid}/1ZSMS000001`,
    );
    const [n] = await notificationRows(env.ctx, a.user.id);
    expect(n!.providerId).toMatch(/^SM/);
    expect(before - (await balanceCents(env.ctx.db, a.user.id))).toBe(4);
    const charges = await env.ctx.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, a.user.id), eq(ledgerEntries.kind, 'sms')));
    expect(charges).toEqual([expect.objectContaining({ amountCents: -4, ref: n!.id })]);
    // A status that is not ticked costs and sends nothing.
    await changeStatus(env.ctx, t.id, 'Exception');
    await waitFor(() => queuesIdle(env.ctx, [notifyJobs.sms.name]), { message: 'sms queue still busy' });
    const spent = async () => [
      twilio.requests.filter((r) => r.body.includes('1ZSMS000001')).length,
      before - (await balanceCents(env.ctx.db, a.user.id)),
    ];
    expect(await quietWindow(QUIET_MS, spent)).toEqual([1, 4]);
  });

  it('with too little balance: not sent, skipped_balance, and a payment alert says why', async () => {
    const a = await phoneAccount();
    await saveSettings(env, a.session, { receiveNotification: { phone: { triggers: allTriggers } } });
    const bal = await balanceCents(env.ctx.db, a.user.id);
    await insertEntryOnce(env.ctx.db, { userId: a.user.id, amountCents: -(bal - 3), kind: 'tracking', ref: 'drain', description: '' });
    const t = await insertTracking(env.ctx, a.user.id, { tid: '1ZSMSPOOR01' });
    await changeStatus(env.ctx, t.id, 'InTransit');
    await eventually(async () => (await notificationRows(env.ctx, a.user.id))[0]?.status === 'skipped_balance');
    expect(twilio.requests.filter((r) => r.body.includes('1ZSMSPOOR01'))).toHaveLength(0);
    expect(await balanceCents(env.ctx.db, a.user.id)).toBe(3);
    const info = await call(env.app, 'GET', '/v1/user/info', { token: a.session });
    const payment = info.body.payload.alerts.payment as Array<{ name: string; message: string }>;
    expect(payment).toHaveLength(1);
    expect(payment[0]!.name).toBe('smsNotSent');
    expect(payment[0]!.message).toMatch(/balance is too low/);
    // A second skipped SMS the same day does not pile up alerts.
    await changeStatus(env.ctx, t.id, 'Delivered');
    await eventually(async () => (await notificationRows(env.ctx, a.user.id)).filter((r) => r.status === 'skipped_balance').length === 2);
    const again = await call(env.app, 'GET', '/v1/user/info', { token: a.session });
    expect(again.body.payload.alerts.payment).toHaveLength(1);
  });

  it('a number Twilio refuses (4xx) fails for good and is refunded; a 5xx is retried and charged once', async () => {
    const a = await phoneAccount();
    await saveSettings(env, a.session, { receiveNotification: { phone: { triggers: allTriggers } } });
    const before = await balanceCents(env.ctx.db, a.user.id);
    twilio.setRespond(() => ({ status: 400, json: { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 } }));
    const t = await insertTracking(env.ctx, a.user.id, { tid: '1ZSMSBAD001' });
    await changeStatus(env.ctx, t.id, 'InTransit');
    await eventually(async () => (await notificationRows(env.ctx, a.user.id))[0]?.status === 'failed');
    expect((await notificationRows(env.ctx, a.user.id))[0]!.lastError).toContain('21211');
    expect(await balanceCents(env.ctx.db, a.user.id)).toBe(before);
    expect(twilio.requests.filter((r) => r.body.includes('1ZSMSBAD001'))).toHaveLength(1);

    let fails = 2;
    twilio.setRespond((r) =>
      fails-- > 0 ? { status: 503, json: { message: 'busy' } } : { status: 201, json: { sid: 'SMretry0001', to: r.to } },
    );
    await changeStatus(env.ctx, t.id, 'Delivered');
    await eventually(async () => (await notificationRows(env.ctx, a.user.id)).some((r) => r.status === 'sent'), 20_000);
    expect(twilio.requests.filter((r) => r.body.includes('1ZSMSBAD001') && r.body.includes('Delivered'))).toHaveLength(3);
    expect(before - (await balanceCents(env.ctx.db, a.user.id))).toBe(4);
    twilio.setRespond((r) => ({ status: 201, json: { sid: `SM${Date.now()}`, to: r.to } }));
  });

  it("company accounts text the tracking's customer, branded", async () => {
    const c = await phoneAccount({ userType: 'company' });
    await markVerified(env.ctx, c.user.email); // customer messages wait for a verified account (customer-limits.test.ts)
    await call(env.app, 'POST', '/v1/user/general/update', { token: c.session, body: { profile: { company: 'Acme Furniture' } } });
    await saveSettings(env, c.session, { sendNotification: { phone: { triggers: { Delivered: true } } } });
    const t = await insertTracking(env.ctx, c.user.id, { tid: '1ZSMSCUST01', notifyPhone: '(303) 555-0188' });
    await changeStatus(env.ctx, t.id, 'Delivered');
    await eventually(async () => (await notificationRows(env.ctx, c.user.id))[0]?.status === 'sent');
    const mine = twilio.requests.filter((r) => r.body.includes('1ZSMSCUST01'));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.to).toBe('+13035550188');
    expect(mine[0]!.body.startsWith('Acme Furniture: parcel 1ZSMSCUST01 is Delivered')).toBe(true);
  });
});

describe('SMS without Twilio settings', () => {
  it('goes to the dev outbox with channel sms', async () => {
    const env = await createTestEnv();
    try {
      fastTuning(env.ctx);
      await startJobWorkers(env.ctx, Object.values(notifyJobs));
      const a = await signUp(env.app);
      await call(env.app, 'POST', '/v1/user/general/update', { token: a.session, body: { profile: { phone: '2025550143' } } });
      await saveSettings(env, a.session, { receiveNotification: { phone: { triggers: allTriggers } } });
      const u = await userRow(env.ctx, a.email);
      const t = await insertTracking(env.ctx, u.id, { tid: '1ZOUTBOX001' });
      await changeStatus(env.ctx, t.id, 'InTransit');
      const rows = await eventually(async () => {
        const r = await env.ctx.db.select().from(devOutbox).where(eq(devOutbox.channel, 'sms'));
        return r.length ? r : null;
      });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ to: '+12025550143' });
      expect(rows[0]!.text).toContain('1ZOUTBOX001 is In Transit');
      const page = await env.app.inject({ method: 'GET', url: '/dev/mail' });
      expect(page.body).toContain('SMS');
    } finally {
      await env.close();
    }
  });
});
