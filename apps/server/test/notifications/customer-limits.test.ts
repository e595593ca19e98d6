// Issue 33 / attack 2026-11-26 finding 3: a free, unverified company sent ten branded mails and ten SMS to a
// stranger with ten status flips. Customer messages wait for a verified account (held, not dropped) and are
// limited per recipient (one per status per shipment per hour) and per account per day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { notifications, users } from '../../src/db/schema.ts';
import { startJobWorkers } from '../../src/jobs/registry.ts';
import { notifyJobs } from '../../src/modules/notifications/notifications.jobs.ts';
import { QUIET_MS, queuesIdle, quietWindow, waitFor } from '../wait.ts';
import { call, createTestEnv, signUp, startSmtp, type SmtpCapture, type TestEnv } from '../helpers.ts';
import { fastTuning, insertTracking, mailTo, markVerified, saveSettings, userRow } from './fixtures.ts';
import { readmeShipment } from '../shipments/fixtures.ts';
import { THEME_PRIMARY_COLORS } from '@shiptrail/contract';

const LOGO = 'https://cdn.example.com/marked-logo.png';

describe('messages to customers: held until the account is verified, and limited', () => {
  let smtp: SmtpCapture;
  let env: TestEnv;
  beforeAll(async () => {
    smtp = await startSmtp();
    env = await createTestEnv({ SMTP_URL: smtp.url, CUSTOMER_NOTIFY_NEW_DAILY: '6', CUSTOMER_NOTIFY_DAILY: '8' });
    fastTuning(env.ctx);
    await startJobWorkers(env.ctx, Object.values(notifyJobs));
  });
  afterAll(async () => {
    await env.close();
    await smtp.close();
  });

  const triggers = { InTransit: true, Exception: true, OutForDelivery: true };
  async function companyWithShipment(victim: string, name = 'ACME Security') {
    const c = await signUp(env.app, { userType: 'company', company: name });
    await saveSettings(env, c.session, { sendNotification: { email: { triggers }, phone: { triggers } } });
    const body = readmeShipment();
    const s = await call(env.app, 'POST', '/v1/shipment/create', {
      token: c.session,
      body: { ...body, destination: { ...body.destination, email: victim, phone: '+12025550150' } },
    });
    expect(s.statusCode, JSON.stringify(s.body)).toBe(201);
    return { ...c, tid: s.body.payload.tid as string, id: (await userRow(env.ctx, c.email)).id };
  }
  const flip = (token: string, tid: string, status: string, i: number) =>
    call(env.app, 'POST', '/v1/shipment/update', { token, body: { tid, status, location: `L${i}` } });
  const rowsTo = (userId: string, recipient: string) =>
    env.ctx.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.userId, userId), eq(notifications.recipient, recipient)));
  const byStatus = (rows: Array<{ status: string }>) =>
    rows.reduce<Record<string, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {});
  /** Another shipment of the company, to a customer with an email address and no phone. */
  async function secondShipment(token: string, email: string, phone = ''): Promise<string> {
    const body = readmeShipment();
    const s = await call(env.app, 'POST', '/v1/shipment/create', {
      token,
      body: { ...body, destination: { ...body.destination, email, phone } },
    });
    expect(s.statusCode, JSON.stringify(s.body)).toBe(201);
    return s.body.payload.tid as string;
  }
  /** Move the account's customer messages back in time, as if they had been sent `hours` earlier. */
  const ageMessages = (userId: string, hours: number) =>
    env.ctx.db
      .update(notifications)
      .set({ createdAt: sql`${notifications.createdAt} - make_interval(hours => ${hours})` })
      .where(eq(notifications.userId, userId));
  const statusesTo = async (userId: string, recipient: string) => (await rowsTo(userId, recipient)).map((r) => [r.status, r.lastError]);

  it('ten status flips by an unverified company: nothing reaches the stranger; one per status per channel is held, the rest are limited', async () => {
    const victim = 'victim@example.net';
    const c = await companyWithShipment(victim);
    for (let i = 1; i <= 10; i++) expect((await flip(c.session, c.tid, i % 2 === 0 ? 'InTransit' : 'Exception', i)).statusCode).toBe(200);
    const mails = await rowsTo(c.id, victim);
    const sms = await rowsTo(c.id, '+12025550150');
    expect(byStatus(mails)).toEqual({ held: 2, limited: 8 });
    expect(byStatus(sms)).toEqual({ held: 2, limited: 8 });
    // Each limited one is a repeat of its status, and the delivery log says so, naming its channel.
    const why = (rows: Array<{ status: string; lastError: string | null }>) =>
      new Set(rows.filter((r) => r.status === 'limited').map((r) => r.lastError));
    expect(why(mails)).toEqual(new Set(['Not sent: this customer already had this status by email in the last 60 minutes']));
    expect(why(sms)).toEqual(new Set(['Not sent: this customer already had this status by SMS in the last 60 minutes']));
    expect(await quietWindow(QUIET_MS, () => smtp.mails.filter((m) => mailTo(m).includes(victim)).length)).toBe(0);
    // The delivery log tells the company why.
    const log = await call(env.app, 'GET', '/v1/notifications/log', { token: c.session });
    const mine = (log.body.payload as Array<{ recipient: string; deliveryStatus: string }>).filter((n) => n.recipient === victim);
    expect(new Set(mine.map((n) => n.deliveryStatus))).toEqual(new Set(['held', 'limited']));

    // Verified through the link mailed at sign-up: the held messages go out, once each; the limited never.
    const verifyMail = await smtp.waitFor((m) => mailTo(m).includes(c.email) && /\/verify\//.test(m.text ?? ''));
    const key = /\/verify\/([^\s"<]+)/.exec(verifyMail.text ?? '')![1]!;
    expect((await call(env.app, 'GET', `/v1/user/email/verify/${key}`)).statusCode).toBe(200);
    await waitFor(
      async () => byStatus(await rowsTo(c.id, victim)).sent === 2 && queuesIdle(env.ctx, [notifyJobs.email.name, notifyJobs.sms.name]),
      {
        message: 'held mails not released',
      },
    );
    expect(await quietWindow(QUIET_MS, () => smtp.mails.filter((m) => mailTo(m).includes(victim)).length)).toBe(2);
    expect(byStatus(await rowsTo(c.id, '+12025550150'))).toEqual({ sent: 2, limited: 8 });

    // Verified now, and still one per status per shipment per hour: a further flip back is limited.
    await flip(c.session, c.tid, 'Exception', 11);
    await flip(c.session, c.tid, 'OutForDelivery', 12);
    await waitFor(async () => byStatus(await rowsTo(c.id, victim)).sent === 3, { message: 'the new status was not sent' });
    expect(byStatus(await rowsTo(c.id, victim))).toEqual({ sent: 3, limited: 9 });
  });

  it("a new account's customer messages stop at its daily cap", async () => {
    const c = await companyWithShipment('first@example.net', 'Daily Cap Co');
    await markVerified(env.ctx, c.email);
    // Two messages (mail and SMS) per status: the cap of 6 lets three statuses through, then none.
    for (const [i, st] of (['InTransit', 'Exception', 'OutForDelivery'] as const).entries()) await flip(c.session, c.tid, st, i);
    await flip(c.session, await secondShipment(c.session, 'second@example.net'), 'InTransit', 9);
    const all = await env.ctx.db.select().from(notifications).where(eq(notifications.userId, c.id));
    expect(byStatus(all.filter((r) => r.recipient !== 'second@example.net')).limited ?? 0).toBe(0);
    const second = all.filter((r) => r.recipient === 'second@example.net');
    expect(second.map((r) => [r.status, r.lastError])).toEqual([
      ['limited', 'Not sent: the account reached its 6 messages to customers in 24 hours'],
    ]);
  });

  it("an account older than CUSTOMER_NOTIFY_NEW_DAYS has the account's daily cap, not a new account's", async () => {
    const c = await companyWithShipment('old-first@example.net', 'Old Hand Co');
    await markVerified(env.ctx, c.email);
    await env.ctx.db
      .update(users)
      .set({ createdAt: new Date(Date.now() - 8 * 86_400_000) })
      .where(eq(users.id, c.id));
    // Six messages (three statuses, mail and SMS): a new account's cap; the old account's cap is 8.
    for (const [i, st] of (['InTransit', 'Exception', 'OutForDelivery'] as const).entries()) await flip(c.session, c.tid, st, i);
    const tid2 = await secondShipment(c.session, 'old-second@example.net', '+12025550151');
    await flip(c.session, tid2, 'InTransit', 9);
    expect((await statusesTo(c.id, 'old-second@example.net')).filter(([st]) => st === 'limited')).toEqual([]);
    // Its 8 are used: the next status is limited, with the account's cap in the log.
    await flip(c.session, tid2, 'Exception', 10);
    expect((await statusesTo(c.id, 'old-second@example.net')).filter(([st]) => st === 'limited')).toEqual([
      ['limited', 'Not sent: the account reached its 8 messages to customers in 24 hours'],
    ]);
  });

  it('the daily cap counts the last 24 hours: messages of two hours ago still count, those of 25 hours ago do not', async () => {
    const c = await companyWithShipment('window-first@example.net', 'Window Co');
    await markVerified(env.ctx, c.email);
    for (const [i, st] of (['InTransit', 'Exception', 'OutForDelivery'] as const).entries()) await flip(c.session, c.tid, st, i);
    const tid2 = await secondShipment(c.session, 'window-second@example.net');
    await ageMessages(c.id, 2);
    await flip(c.session, tid2, 'InTransit', 9);
    expect(await statusesTo(c.id, 'window-second@example.net')).toEqual([
      ['limited', 'Not sent: the account reached its 6 messages to customers in 24 hours'],
    ]);
    await ageMessages(c.id, 23);
    await flip(c.session, tid2, 'Exception', 10);
    const second = await statusesTo(c.id, 'window-second@example.net');
    expect(second.filter(([st]) => st !== 'limited')).toHaveLength(1);
  });
  // Marking a parcel delivered hands the request's account to the fan-out (decision 148): its verified flag is then
  // read from the database under the share lock, not taken from the row the request holds.
  it('a parcel marked delivered by a verified company mails its customer at once, in its theme and with its logo; by an unverified one, the mail is held', async () => {
    for (const verified of [true, false]) {
      const customer = `marked-${verified}@example.net`;
      const c = await signUp(env.app, { userType: 'company', company: `Marked ${verified}` });
      await saveSettings(env, c.session, { sendNotification: { email: { triggers: { Delivered: true } } } });
      if (verified) await markVerified(env.ctx, c.email);
      // The company's theme F and its logo: a customer's mail carries them (brandStyleOf).
      await env.ctx.db
        .update(users)
        .set({ settings: sql`coalesce(${users.settings}, '{}'::jsonb) || '{"themeid":"F"}'::jsonb`, image: LOGO })
        .where(eq(users.email, c.email));
      const u = await userRow(env.ctx, c.email);
      const t = await insertTracking(env.ctx, u.id, { status: 'InTransit', notifyEmail: customer });
      expect((await call(env.app, 'GET', `/v1/trackings/delivered/${t.tid}`, { token: c.session })).statusCode).toBe(200);
      const [row] = await rowsTo(u.id, customer);
      if (!verified) {
        expect([row?.status, row?.lastError]).toEqual(['held', 'Held until the account email address is verified']);
        continue;
      }
      expect(row?.status).not.toBe('held');
      const mail = await smtp.waitFor((m) => mailTo(m).includes(customer));
      // Branded: the theme's colour and the logo, not Shiptrail's blue.
      expect(mail.html).toContain(THEME_PRIMARY_COLORS.F);
      expect(mail.html).toContain(`<img src="${LOGO}"`);
      await waitFor(async () => (await rowsTo(u.id, customer))[0]?.status === 'sent', { message: 'the customer mail was not sent' });
    }
  });
  it('a daily cap of 0 lifts the cap: no message to a customer is limited by it', async () => {
    const c = await companyWithShipment('uncapped@example.net', 'Uncapped Co');
    await markVerified(env.ctx, c.email);
    const config = env.ctx.config as { CUSTOMER_NOTIFY_NEW_DAILY: number; CUSTOMER_NOTIFY_DAILY: number };
    const caps = { ...config };
    Object.assign(config, { CUSTOMER_NOTIFY_NEW_DAILY: 0, CUSTOMER_NOTIFY_DAILY: 0 });
    try {
      expect((await flip(c.session, c.tid, 'InTransit', 1)).statusCode).toBe(200);
    } finally {
      Object.assign(config, {
        CUSTOMER_NOTIFY_NEW_DAILY: caps.CUSTOMER_NOTIFY_NEW_DAILY,
        CUSTOMER_NOTIFY_DAILY: caps.CUSTOMER_NOTIFY_DAILY,
      });
    }
    const rows = [...(await rowsTo(c.id, 'uncapped@example.net')), ...(await rowsTo(c.id, '+12025550150'))];
    expect(rows).toHaveLength(2);
    expect(rows.filter((r) => r.status === 'limited').map((r) => r.lastError)).toEqual([]);
  });
  it('one status change with more messages to customers than the cap has left sends what is left and limits the rest', async () => {
    const c = await companyWithShipment('left-first@example.net', 'Cap Left Co');
    await markVerified(env.ctx, c.email);
    // Five of the new account's 6: two statuses by mail and SMS, and one mail to another customer.
    await flip(c.session, c.tid, 'InTransit', 1);
    await flip(c.session, c.tid, 'Exception', 2);
    await flip(c.session, await secondShipment(c.session, 'left-second@example.net'), 'InTransit', 3);
    // The next status brings a mail and an SMS: one goes, the other is over the cap.
    await flip(c.session, c.tid, 'OutForDelivery', 4);
    const rows = [...(await rowsTo(c.id, 'left-first@example.net')), ...(await rowsTo(c.id, '+12025550150'))];
    expect(rows).toHaveLength(6);
    expect(rows.filter((r) => r.status === 'limited').map((r) => r.lastError)).toEqual([
      'Not sent: the account reached its 6 messages to customers in 24 hours',
    ]);
  });
});
