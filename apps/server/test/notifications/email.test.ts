import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { notifications } from '../../src/db/schema.ts';
import { notifyJobs } from '../../src/modules/notifications/notifications.jobs.ts';
import { fanOutStatusEvent } from '../../src/modules/notifications/fanout.ts';
import { QUIET_MS, queuesIdle, quietWindow, waitFor } from '../wait.ts';
import { call, eventually, signUp, type SmtpCapture, type TestEnv } from '../helpers.ts';
import {
  allTriggers,
  mailTo,
  changeStatus,
  insertTracking,
  markVerified,
  saveSettings,
  startMailEnv,
  userRow,
  envForFile,
  notificationRows,
} from './fixtures.ts';

/** Notification mails carry the notification id as Message-ID (account mails do not). */
const isNotification = (m: { messageId?: string }) => /@shiptrail>$/.test(m.messageId ?? '');

describe('email notifications over a real SMTP server', () => {
  let smtp: SmtpCapture;
  let env: TestEnv;
  envForFile(startMailEnv, (started) => ({ env, smtp } = started));

  it('mails the profile address on a ticked trigger, with status, checkpoint and the public link, once', async () => {
    const a = await signUp(env.app);
    await saveSettings(env, a.session, {
      receiveNotification: { email: { triggers: { InTransit: true, Delivered: true }, endpoint: 'false' } },
    });
    const u = await userRow(env.ctx, a.email);
    const t = await insertTracking(env.ctx, u.id, { tid: '1Z999AA10123456784' });
    await changeStatus(env.ctx, t.id, 'InTransit', {
      status: 'InTransit',
      location: 'Memphis, TN',
      message: 'Departed facility',
      time: '2026-03-01T10:00:00Z',
    });
    const m = await smtp.waitFor((m) => mailTo(m).includes(a.email) && m.subject?.includes('In Transit') === true);
    const link = `http://shiptrail.test/track/${u.uid}/1Z999AA10123456784`;
    expect(m.subject).toBe('Blue sofa (1Z999AA10123456784): In Transit');
    expect(m.text).toContain('Status: In Transit (was Pending)');
    expect(m.text).toContain('Departed facility, Memphis, TN');
    expect(m.text).toContain(link);
    expect(m.html).toContain(link);
    expect(m.html).toContain('Departed facility, Memphis, TN');
    expect(m.messageId).toMatch(/@shiptrail>$/);

    const [n] = await env.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id));
    await eventually(async () => (await env.ctx.db.select().from(notifications).where(eq(notifications.id, n!.id)))[0]?.status === 'sent');
    const [row] = await env.ctx.db.select().from(notifications).where(eq(notifications.id, n!.id));
    expect(row!.acceptedAt).not.toBeNull();
    expect(row!.providerId).toContain(n!.id);
    expect(m.messageId).toBe(`<${n!.id}@shiptrail>`);

    // Not a ticked trigger: nothing. Then Delivered: a second mail. Exactly two in all.
    await changeStatus(env.ctx, t.id, 'OutForDelivery');
    await changeStatus(env.ctx, t.id, 'Delivered');
    await smtp.waitFor((m) => mailTo(m).includes(a.email) && m.subject?.includes('Delivered') === true);
    await waitFor(
      async () => (await notificationRows(env.ctx, u.id)).every((r) => r.status === 'sent') && queuesIdle(env.ctx, [notifyJobs.email.name]),
      {
        message: 'mails not all sent',
      },
    );
    expect(await quietWindow(QUIET_MS, () => smtp.mails.filter((m) => mailTo(m).includes(a.email) && isNotification(m)).length)).toBe(2);
  });

  it('enqueues once per (event, channel, recipient) even when fan-out runs twice; a rolled back change sends nothing', async () => {
    const a = await signUp(env.app);
    await saveSettings(env, a.session, { receiveNotification: { email: { triggers: allTriggers, endpoint: 'alerts@example.org' } } });
    const u = await userRow(env.ctx, a.email);
    const t = await insertTracking(env.ctx, u.id);
    await changeStatus(env.ctx, t.id, 'InfoReceived', null, { rollback: true });
    const eventId = await changeStatus(env.ctx, t.id, 'InTransit');
    await env.ctx.db.transaction((tx) => fanOutStatusEvent(tx, env.ctx, eventId));
    await smtp.waitFor((m) => mailTo(m).includes('alerts@example.org'));
    await waitFor(() => queuesIdle(env.ctx, [notifyJobs.email.name]), { message: 'email queue still busy' });
    expect(await quietWindow(QUIET_MS, () => smtp.mails.filter((m) => mailTo(m).includes('alerts@example.org')).length)).toBe(1);
    const mine = smtp.mails.filter((m) => mailTo(m).includes('alerts@example.org'));
    expect(mine[0]!.subject).toContain('In Transit');
    const rows = await env.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id));
    expect(rows).toHaveLength(1);
  });

  it("company accounts mail the tracking's customer, branded with the company name", async () => {
    const c = await signUp(env.app, { userType: 'company' });
    await markVerified(env.ctx, c.email); // customer messages wait for a verified account (customer-limits.test.ts)
    const r = await call(env.app, 'POST', '/v1/user/general/update', {
      token: c.session,
      body: { profile: { company: 'Acme Furniture' } },
    });
    expect(r.statusCode).toBe(200);
    await saveSettings(env, c.session, { sendNotification: { email: { triggers: { OutForDelivery: true } } } });
    const u = await userRow(env.ctx, c.email);
    const t = await insertTracking(env.ctx, u.id, { tid: '9400111899223197428490', courier: 'usps', notifyEmail: 'customer@example.net' });
    await changeStatus(env.ctx, t.id, 'OutForDelivery');
    const m = await smtp.waitFor((m) => mailTo(m).includes('customer@example.net'));
    expect(m.subject).toBe('Acme Furniture: your parcel 9400111899223197428490 is Out For Delivery');
    expect(m.text).toContain('Sent by Acme Furniture via Shiptrail');
    expect(m.html).toContain('Acme Furniture');
    // The company itself did not tick receive triggers: only the customer got mail.
    await waitFor(
      async () => (await notificationRows(env.ctx, u.id)).every((r) => r.status === 'sent') && queuesIdle(env.ctx, [notifyJobs.email.name]),
      {
        message: 'customer mail not sent',
      },
    );
    expect(await quietWindow(QUIET_MS, () => smtp.mails.filter((m) => mailTo(m).includes(c.email) && isNotification(m)).length)).toBe(0);
    const rows = await env.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id));
    expect(rows.map((x) => [x.channel, x.audience, x.recipient])).toEqual([['email', 'send', 'customer@example.net']]);
  });

  // Decision 100 reverses what this test held (a person never sent to its customer): the public page promised it.
  it('a person account sends to the customer on its send triggers, and not when they are off', async () => {
    const p = await signUp(env.app);
    const u = await userRow(env.ctx, p.email);
    const { users } = await import('../../src/db/schema.ts');
    await env.ctx.db
      .update(users)
      .set({
        emailVerified: true,
        settings: { sendNotification: { email: { triggers: { ...allTriggers, Delivered: false }, endpoint: '' } } },
      })
      .where(eq(users.id, u.id));
    const t = await insertTracking(env.ctx, u.id, { notifyEmail: 'someone@example.net' });
    await changeStatus(env.ctx, t.id, 'Delivered');
    expect(await env.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id))).toHaveLength(0);
    await changeStatus(env.ctx, t.id, 'Exception');
    const rows = await env.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id));
    expect(rows.map((x) => [x.channel, x.audience, x.recipient])).toEqual([['email', 'send', 'someone@example.net']]);
  });
});
