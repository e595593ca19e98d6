import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobWorkers } from '../../src/jobs/registry.ts';
import { notifyJobs } from '../../src/modules/notifications/notifications.jobs.ts';
import { notificationsIdle, QUIET_MS, quietWindow } from '../wait.ts';
import { call, createTestEnv, eventually, signUp, startSmtp, type SmtpCapture, type TestEnv } from '../helpers.ts';
import { mailTo, saveSettings, startReceiver } from './fixtures.ts';

describe('end to end through the trackings module', () => {
  let smtp: SmtpCapture;
  let env: TestEnv;
  beforeAll(async () => {
    smtp = await startSmtp();
    env = await createTestEnv({ SMTP_URL: smtp.url, WEBHOOK_ALLOW_PRIVATE: 'true' });
    await startJobWorkers(env.ctx, Object.values(notifyJobs));
  });
  afterAll(async () => {
    await env.close();
    await smtp.close();
  });

  it('marking a tracking delivered mails and posts a signed webhook, once', async () => {
    const a = await signUp(env.app);
    const info = await call(env.app, 'GET', '/v1/user/info', { token: a.session });
    const rx = await startReceiver(() => [info.body.payload.settings.webhookSecret]);
    try {
      await saveSettings(env, a.session, {
        receiveNotification: { email: { triggers: { Delivered: true } }, webhook: { triggers: { Delivered: true }, endpoint: rx.url } },
      });
      const add = await call(env.app, 'POST', '/v1/trackings/add', {
        token: a.session,
        body: { tid: '1Z5R89390357567127', courier: 'ups', title: 'Lamp' },
      });
      expect(add.statusCode).toBeLessThan(300);
      const done = await call(env.app, 'GET', '/v1/trackings/delivered/1Z5R89390357567127', { token: a.session });
      expect(done.statusCode).toBe(200);
      await eventually(async () => rx.received.length >= 1);
      const m = await smtp.waitFor((m) => mailTo(m).includes(a.email) && /Delivered/.test(m.subject ?? ''));
      expect(m.text).toContain(`/track/${a.profile.uid}/1Z5R89390357567127`);
      expect(rx.received[0]!.verifiedWith).not.toBeNull();
      expect(rx.received[0]!.json.data).toMatchObject({ status: 'Delivered', tracking: { tid: '1Z5R89390357567127', title: 'Lamp' } });
      // Marking it delivered again is no status change: nothing more.
      const again = await call(env.app, 'GET', '/v1/trackings/delivered/1Z5R89390357567127', { token: a.session });
      expect(again.body.code).toBe(200);
      await notificationsIdle(env.ctx);
      const sent = () => [
        rx.received.filter((r) => r.json.data.status === 'Delivered').length,
        smtp.mails.filter((x) => mailTo(x).includes(a.email) && /Delivered/.test(x.subject ?? '')).length,
      ];
      expect(await quietWindow(QUIET_MS, sent)).toEqual([1, 1]);
    } finally {
      await rx.close();
    }
  });
});
