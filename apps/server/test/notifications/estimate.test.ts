// "Likely late" end to end (issue 32, decision 123): a sandbox parcel whose carrier revises its promise past the first
// one after a failed attempt, through the real refresh engine (sandbox on loopback, jobs, scheduler), tells the
// account by mail and webhook and the company's customer by mail exactly once, over real SMTP and a real receiver.
import { describe, expect, it } from 'vitest';
import { notificationsIdle, QUIET_MS, quietWindow } from '../wait.ts';
import { call, eventually, type SmtpCapture, type TestEnv } from '../helpers.ts';
import { mailTo, saveSettings, startJourneyEnv, envForFile, verifiedCompanyWithReceiver } from './fixtures.ts';

// A UPS number whose sandbox journey has a failed attempt (docs/carriers.md).
const LATE = '1Z5R89390350075626';
const CUSTOMER = 'customer-late@example.com';

describe('estimate notifications through the refresh engine', () => {
  let smtp: SmtpCapture;
  let env: TestEnv;
  envForFile(startJourneyEnv, (started) => ({ env, smtp } = started));

  it('a parcel revised past its first promise sends "likely late" once by mail to the account and its customer and by webhook; no "date changed" besides', async () => {
    const { a, rx } = await verifiedCompanyWithReceiver(env, 'Lamp Co');
    try {
      await saveSettings(env, a.session, {
        receiveNotification: {
          email: { triggers: { LikelyLate: true, EstimateChanged: true } },
          webhook: { triggers: { LikelyLate: true, EstimateChanged: true }, endpoint: rx.url },
        },
        sendNotification: { email: { triggers: { LikelyLate: true } } },
      });
      const add = await call(env.app, 'POST', '/v1/trackings/add', {
        token: a.session,
        body: { tid: LATE, courier: 'ups', title: 'Lamp', notify: { email: CUSTOMER } },
      });
      expect(add.statusCode).toBeLessThan(300);

      const own = await smtp.waitFor((m) => mailTo(m).includes(a.email) && /likely late/i.test(m.subject ?? ''), 30_000);
      expect(own.subject).toBe(`Lamp (${LATE}): likely late`);
      expect(own.text).toMatch(/will likely arrive later than the carrier promised/);
      // The revised window, in the carrier's local time (at this pace it may lie within one minute: "around").
      expect(own.text).toMatch(/Expected \w{3} \d{1,2} \w{3}, (between \d{2}:\d{2} and \d{2}:\d{2}|around \d{2}:\d{2})/);
      expect(own.text).toContain(`/track/${a.profile.uid}/${LATE}`);
      const customer = await smtp.waitFor((m) => mailTo(m).includes(CUSTOMER) && /late/.test(m.subject ?? ''), 30_000);
      expect(customer.subject).toBe(`Lamp Co: your parcel ${LATE} will likely arrive late`);
      await eventually(async () => rx.received.length >= 1, 30_000);
      const hook = rx.received[0]!;
      expect(hook.verifiedWith).not.toBeNull();
      expect(hook.json.type).toBe('tracking.likely_late');
      expect(hook.json.data).toMatchObject({ status: 'FailAttempt', tracking: { tid: LATE }, estimatedDelivery: { source: 'carrier' } });
      expect(Date.parse(hook.json.data.estimatedDelivery.to)).toBeGreaterThan(Date.parse(hook.json.data.promisedBy));

      // The journey plays to the end; nothing more is said about the estimate.
      await eventually(async () => {
        const r = await call(env.app, 'GET', '/v1/trackings/get', { token: a.session });
        return r.body.payload.find((t: { tid: string }) => t.tid === LATE)?.status === 'Delivered';
      }, 30_000);
      await notificationsIdle(env.ctx);
      const sent = () => [
        smtp.mails.filter((m) => mailTo(m).includes(a.email) && /likely late/i.test(m.subject ?? '')).length,
        smtp.mails.filter((m) => mailTo(m).includes(CUSTOMER) && /late/.test(m.subject ?? '')).length,
        smtp.mails.filter((m) => /expected delivery changed/i.test(m.subject ?? '')).length,
        rx.received.length,
      ];
      expect(await quietWindow(QUIET_MS, sent)).toEqual([1, 1, 0, 1]);
    } finally {
      await rx.close();
    }
  }, 90_000);
});
