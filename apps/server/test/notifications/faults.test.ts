import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { ledgerEntries, notifications } from '../../src/db/schema.ts';
import { deliverEmail, deliverSms } from '../../src/modules/notifications/delivery.ts';
import type { Faults } from '../../src/modules/notifications/tuning.ts';
import { startJobWorkers } from '../../src/jobs/registry.ts';
import { notifyJobs } from '../../src/modules/notifications/notifications.jobs.ts';
import { QUIET_MS, queuesIdle, quietWindow, waitFor } from '../wait.ts';
import { call, eventually, signUp, type SmtpCapture, type TestEnv } from '../helpers.ts';
import {
  accountWithNotification,
  allTriggers,
  changeStatus,
  everyChangeBy,
  fastTuning,
  insertTracking,
  mailTo,
  saveSettings,
  startNotificationEnv,
  startReceiver,
  userRow,
  type FakeTwilio,
  type NotificationEnv,
} from './fixtures.ts';

/** A fault that fires once, for one notification: the worker "dies" at that point. */
function crashOnce(ctx: TestEnv['ctx'], where: keyof Faults) {
  let fired = false;
  ctx.resources.notificationFaults = {
    [where]: () => {
      if (fired) return;
      fired = true;
      throw new Error(`simulated crash ${where}`);
    },
  } satisfies Faults;
  return () => fired;
}

describe('a worker killed mid-delivery loses nothing and sends nothing twice', () => {
  let ne: NotificationEnv;
  let smtp: SmtpCapture;
  let twilio: FakeTwilio;
  let env: TestEnv;
  beforeAll(async () => {
    ne = await startNotificationEnv({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    ({ env, smtp, twilio } = ne);
    fastTuning(env.ctx);
  });
  afterAll(() => ne.close());

  const setup = (channel: 'email' | 'sms', tid: string) => accountWithNotification(env, everyChangeBy(channel), tid);
  const mailsTo = (addr: string) => smtp.mails.filter((m) => mailTo(m).includes(addr) && /@shiptrail>$/.test(m.messageId ?? ''));

  it('email, handler run by hand: crash after the SMTP server accepted, re-run sends nothing', async () => {
    const { a, n } = await setup('email', '1ZFAULTE0001');
    crashOnce(env.ctx, 'afterAccept');
    await expect(deliverEmail(env.ctx, n.id)).rejects.toThrow(/simulated crash/);
    await smtp.waitFor((m) => mailTo(m).includes(a.email) && /@shiptrail>$/.test(m.messageId ?? ''));
    const [mid] = await env.ctx.db.select().from(notifications).where(eq(notifications.id, n.id));
    expect(mid!.acceptedAt).not.toBeNull();
    await deliverEmail(env.ctx, n.id); // the job's retry
    await deliverEmail(env.ctx, n.id);
    expect(await quietWindow(QUIET_MS, () => mailsTo(a.email).length)).toBe(1);
  });

  it('email, handler run by hand: crash before the send, the retry sends exactly once', async () => {
    const { a, n } = await setup('email', '1ZFAULTE0002');
    crashOnce(env.ctx, 'beforeSend');
    await expect(deliverEmail(env.ctx, n.id)).rejects.toThrow(/simulated crash/);
    expect(await quietWindow(QUIET_MS, () => mailsTo(a.email).length)).toBe(0);
    await deliverEmail(env.ctx, n.id);
    await smtp.waitFor((m) => mailTo(m).includes(a.email) && /@shiptrail>$/.test(m.messageId ?? ''));
    await deliverEmail(env.ctx, n.id);
    expect(await quietWindow(QUIET_MS, () => mailsTo(a.email).length)).toBe(1);
  });

  it('SMS, handler run by hand: crash after Twilio accepted → no second SMS and one charge; crash before → sent once, charged once', async () => {
    const first = await setup('sms', '1ZFAULTS0001');
    crashOnce(env.ctx, 'afterAccept');
    await expect(deliverSms(env.ctx, first.n.id)).rejects.toThrow(/simulated crash/);
    await deliverSms(env.ctx, first.n.id);
    expect(twilio.requests.filter((r) => r.body.includes('1ZFAULTS0001'))).toHaveLength(1);

    const second = await setup('sms', '1ZFAULTS0002');
    crashOnce(env.ctx, 'beforeSend');
    await expect(deliverSms(env.ctx, second.n.id)).rejects.toThrow(/simulated crash/);
    expect(twilio.requests.filter((r) => r.body.includes('1ZFAULTS0002'))).toHaveLength(0);
    await deliverSms(env.ctx, second.n.id);
    await deliverSms(env.ctx, second.n.id);
    expect(twilio.requests.filter((r) => r.body.includes('1ZFAULTS0002'))).toHaveLength(1);
    for (const { u } of [first, second]) {
      const charges = await env.ctx.db
        .select()
        .from(ledgerEntries)
        .where(and(eq(ledgerEntries.userId, u.id), eq(ledgerEntries.kind, 'sms')));
      expect(charges).toHaveLength(1);
    }
  });

  it('through pg-boss: a job that dies after acceptance is retried by the queue and sends nothing more', async () => {
    await startJobWorkers(env.ctx, Object.values(notifyJobs));
    const fired = crashOnce(env.ctx, 'afterAccept');
    const { a, n } = await setup('email', '1ZFAULTQ0001');
    await eventually(async () => {
      const r = (await env.ctx.db.execute(
        sql`select state, retry_count from pgboss.job where data->>'notificationId' = ${n.id}`,
      )) as unknown as { rows: Array<{ state: string; retry_count: number }> };
      return r.rows[0]?.state === 'completed' && r.rows[0].retry_count >= 1;
    }, 20_000);
    expect(fired()).toBe(true);
    expect(mailsTo(a.email)).toHaveLength(1);
    const [row] = await env.ctx.db.select().from(notifications).where(eq(notifications.id, n.id));
    expect(row!.status).toBe('sent');
  });

  it('through pg-boss: a webhook job that dies before sending is retried and delivered once', async () => {
    const a0 = await signUp(env.app);
    const info = await call(env.app, 'GET', '/v1/user/info', { token: a0.session });
    const rx = await startReceiver(() => [info.body.payload.settings.webhookSecret]);
    try {
      const fired = crashOnce(env.ctx, 'beforeSend');
      await saveSettings(env, a0.session, { receiveNotification: { webhook: { triggers: allTriggers, endpoint: rx.url } } });
      const u = await userRow(env.ctx, a0.email);
      const t = await insertTracking(env.ctx, u.id);
      await changeStatus(env.ctx, t.id, 'InTransit');
      await eventually(
        async () => (await env.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id)))[0]?.status === 'delivered',
        20_000,
      );
      expect(fired()).toBe(true);
      await waitFor(() => queuesIdle(env.ctx, [notifyJobs.webhook.name]), { message: 'webhook queue still busy' });
      expect(await quietWindow(QUIET_MS, () => rx.received.length)).toBe(1);
      expect(rx.received[0]!.verifiedWith).not.toBeNull();
    } finally {
      await rx.close();
    }
  });
});
