// Issue 33 / attack 2026-11-26 finding 3: a free, unverified company sent ten branded mails and ten SMS to a
// stranger with ten status flips. Customer messages wait for a verified account (held, not dropped) and are
// limited per recipient (one per status per shipment per hour) and per account per day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { notifications } from '../../src/db/schema.ts';
import { startJobWorkers } from '../../src/jobs/registry.ts';
import { notifyJobs } from '../../src/modules/notifications/notifications.jobs.ts';
import { QUIET_MS, queuesIdle, quietWindow, waitFor } from '../wait.ts';
import { call, createTestEnv, signUp, startSmtp, type SmtpCapture, type TestEnv } from '../helpers.ts';
import { fastTuning, mailTo, markVerified, saveSettings, userRow } from './fixtures.ts';
import { readmeShipment } from '../shipments/fixtures.ts';

describe('messages to customers: held until the account is verified, and limited', () => {
  let smtp: SmtpCapture;
  let env: TestEnv;
  beforeAll(async () => {
    smtp = await startSmtp();
    env = await createTestEnv({ SMTP_URL: smtp.url, CUSTOMER_NOTIFY_NEW_DAILY: '6' });
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

  it('ten status flips by an unverified company: nothing reaches the stranger; one per status per channel is held, the rest are limited', async () => {
    const victim = 'victim@example.net';
    const c = await companyWithShipment(victim);
    for (let i = 1; i <= 10; i++) expect((await flip(c.session, c.tid, i % 2 === 0 ? 'InTransit' : 'Exception', i)).statusCode).toBe(200);
    const mails = await rowsTo(c.id, victim);
    const sms = await rowsTo(c.id, '+12025550150');
    expect(byStatus(mails)).toEqual({ held: 2, limited: 8 });
    expect(byStatus(sms)).toEqual({ held: 2, limited: 8 });
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
    const body = readmeShipment();
    const s2 = await call(env.app, 'POST', '/v1/shipment/create', {
      token: c.session,
      body: { ...body, destination: { ...body.destination, email: 'second@example.net', phone: '' } },
    });
    await flip(c.session, s2.body.payload.tid, 'InTransit', 9);
    const all = await env.ctx.db.select().from(notifications).where(eq(notifications.userId, c.id));
    expect(byStatus(all.filter((r) => r.recipient !== 'second@example.net')).limited ?? 0).toBe(0);
    const second = all.filter((r) => r.recipient === 'second@example.net');
    expect(second.map((r) => [r.status, r.lastError])).toEqual([
      ['limited', 'Not sent: the account reached its 6 messages to customers in 24 hours'],
    ]);
  });
});
