// A delivery attempt holds its notification (a lease on the row): a second run of the same delivery that starts
// while the first is still sending (pg-boss retrying a job whose heartbeat went stale while its worker lives)
// waits for it and sends nothing; a lease left by a dead worker runs out and the delivery is made once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { notifications } from '../../src/db/schema.ts';
import { deliverEmail, deliverWebhook } from '../../src/modules/notifications/delivery.ts';
import { takeLease } from '../../src/modules/notifications/notifications.repository.ts';
import { QUIET_MS, quietWindow } from '../wait.ts';
import { createTestEnv, eventually, signUp, startSmtp, type SmtpCapture, type TestEnv } from '../helpers.ts';
import { allTriggers, changeStatus, fastTuning, insertTracking, mailTo, saveSettings, startSlowReceiver, userRow } from './fixtures.ts';

describe('a delivery attempt holds its notification', () => {
  let env: TestEnv;
  let smtp: SmtpCapture;
  beforeAll(async () => {
    smtp = await startSmtp();
    env = await createTestEnv({ SMTP_URL: smtp.url, WEBHOOK_ALLOW_PRIVATE: 'true' });
    fastTuning(env.ctx);
  });
  afterAll(async () => {
    await env.close();
    await smtp.close();
  });

  async function notificationFor(settings: Record<string, unknown>, tid: string) {
    const a = await signUp(env.app);
    await saveSettings(env, a.session, settings);
    const u = await userRow(env.ctx, a.email);
    const t = await insertTracking(env.ctx, u.id, { tid });
    await changeStatus(env.ctx, t.id, 'InTransit');
    const [n] = await env.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id));
    return { a, n: n! };
  }
  const row = async (id: string) => (await env.ctx.db.select().from(notifications).where(eq(notifications.id, id)))[0]!;

  it('webhook: a second run of the same attempt while the first is sending waits for it and posts nothing', async () => {
    const rx = await startSlowReceiver(1500);
    try {
      const { n } = await notificationFor(
        { receiveNotification: { webhook: { triggers: allTriggers, endpoint: rx.url } } },
        '1ZLEASEW0001',
      );
      const first = deliverWebhook(env.ctx, { v: 1, notificationId: n.id, attempt: 0 });
      await eventually(async () => (rx.ids.length === 1 ? true : null), 10_000, 20);
      // The first attempt is on the wire; the same job runs again (a retry of a job thought dead).
      const started = Date.now();
      await deliverWebhook(env.ctx, { v: 1, notificationId: n.id, attempt: 0 });
      const waited = Date.now() - started;
      await first;
      expect(await quietWindow(QUIET_MS, () => rx.ids.length)).toBe(1);
      expect(waited).toBeGreaterThan(500); // it waited for the live attempt's answer (1.5 s), then found it settled
      const settled = await row(n.id);
      expect(settled).toMatchObject({ status: 'delivered', attempts: 1, leaseUntil: null });
    } finally {
      await rx.close();
    }
  });

  it('webhook: a lease left by a worker that died runs out, and the delivery is then made once', async () => {
    const rx = await startSlowReceiver(0);
    try {
      const { n } = await notificationFor(
        { receiveNotification: { webhook: { triggers: allTriggers, endpoint: rx.url } } },
        '1ZLEASEW0002',
      );
      // A worker took the attempt for 2 s and was killed before it sent anything.
      expect(await takeLease(env.ctx.db, n.id, 2, 0)).toMatchObject({ held: true });
      expect(await takeLease(env.ctx.db, n.id, 2, 0)).toMatchObject({ held: false, done: false });
      const started = Date.now();
      await deliverWebhook(env.ctx, { v: 1, notificationId: n.id, attempt: 0 });
      expect(Date.now() - started).toBeGreaterThan(1500);
      expect(await quietWindow(QUIET_MS, () => rx.ids)).toEqual([n.id]);
      expect(await row(n.id)).toMatchObject({ status: 'delivered', leaseUntil: null });
      // Settled: nothing is left to take.
      expect(await takeLease(env.ctx.db, n.id, 2, 0)).toEqual({ held: false, done: true });
    } finally {
      await rx.close();
    }
  });

  it('email: two runs at once send one message', async () => {
    const { a, n } = await notificationFor({ receiveNotification: { email: { triggers: allTriggers } } }, '1ZLEASEE0001');
    await Promise.all([deliverEmail(env.ctx, n.id), deliverEmail(env.ctx, n.id), deliverEmail(env.ctx, n.id)]);
    const mine = () => smtp.mails.filter((m) => mailTo(m).includes(a.email) && /@shiptrail>$/.test(m.messageId ?? '')).length;
    expect(await quietWindow(QUIET_MS, mine)).toBe(1);
    expect(await row(n.id)).toMatchObject({ status: 'sent', attempts: 1, leaseUntil: null });
  });
});
