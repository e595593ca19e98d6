// Decision 100: a failed attempt is a trigger, new accounts tell their customers by mail from the start (existing
// accounts keep what they had), a person's customers are told too, and checkpoint times are in the account's zone.
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { users } from '../../src/db/schema.ts';
import { call, signUp, type SmtpCapture, type TestEnv } from '../helpers.ts';
import { changeStatus, insertTracking, mailTo, saveSettings, startMailEnv, userRow, envForFile, notificationRows } from './fixtures.ts';
import { courier, createShipment, readmeShipment } from '../shipments/fixtures.ts';

describe('customer alerts: failed attempts, defaults, persons, time zones', () => {
  let smtp: SmtpCapture;
  let env: TestEnv;
  envForFile(startMailEnv, (started) => ({ env, smtp } = started));
  /** Verified, so customer mail is not held back for an unverified sender. */
  const verified = async (email: string) => {
    await env.ctx.db.update(users).set({ emailVerified: true }).where(eq(users.email, email));
    return userRow(env.ctx, email);
  };

  it('a new company and a new person start with customer mail on Out For Delivery, Attempt failed, Delivered and Exception; SMS and own alerts off', async () => {
    for (const userType of ['company', 'person'] as const) {
      const a = await signUp(env.app, { userType, ...(userType === 'company' ? { company: 'Swift Parcel' } : {}) });
      const info = (await call(env.app, 'GET', '/v1/user/info', { token: a.session })).body.payload;
      expect(info.settings.sendNotification.email.triggers, userType).toEqual({
        Delivered: true,
        Exception: true,
        Expired: false,
        FailAttempt: true,
        InTransit: false,
        InfoReceived: false,
        OutForDelivery: true,
        EstimateChanged: false,
        LikelyLate: false,
        CourierNear: false,
        CourierArriving: false,
      });
      expect(Object.values(info.settings.sendNotification.phone.triggers).some(Boolean)).toBe(false);
      for (const c of ['email', 'phone', 'webhook'])
        expect(Object.values(info.settings.receiveNotification[c].triggers).some(Boolean)).toBe(false);
    }
  });

  it('an existing account keeps its settings: the new trigger reads as off, nothing is switched on for it', async () => {
    const a = await signUp(env.app, { userType: 'company', company: 'Old Co' });
    const stored = {
      sendNotification: {
        email: {
          triggers: { Delivered: true, Exception: false, Expired: false, InTransit: false, InfoReceived: false, OutForDelivery: false },
          endpoint: '',
        },
      },
    };
    await env.ctx.db.update(users).set({ settings: stored }).where(eq(users.email, a.email));
    const info = (await call(env.app, 'GET', '/v1/user/info', { token: a.session })).body.payload;
    expect(info.settings.sendNotification.email.triggers).toMatchObject({ Delivered: true, FailAttempt: false, OutForDelivery: false });
    const u = await verified(a.email);
    const t = await insertTracking(env.ctx, u.id, { notifyEmail: 'old-customer@example.net' });
    await changeStatus(env.ctx, t.id, 'FailAttempt');
    expect(await notificationRows(env.ctx, u.id)).toHaveLength(0);
  });

  it("a carrier's failed attempt mails the company's customer, in the company's time zone, and the company when it ticked it", async () => {
    const c = await signUp(env.app, { userType: 'company', company: 'Swift Parcel', timeZone: 'America/New_York' });
    await saveSettings(env, c.session, {
      receiveNotification: { email: { triggers: { FailAttempt: true }, endpoint: 'ops@swift.example' } },
    });
    const u = await verified(c.email);
    const t = await insertTracking(env.ctx, u.id, { tid: '1Z5R89390350075608', notifyEmail: 'jane@example.net' });
    await changeStatus(env.ctx, t.id, 'FailAttempt', {
      status: 'FailAttempt',
      location: 'Brooklyn, NY',
      message: 'Nobody home',
      time: '2026-11-26T15:18:00Z',
    });
    const m = await smtp.waitFor((m) => mailTo(m).includes('jane@example.net'));
    expect(m.subject).toBe('Swift Parcel: delivery attempt failed for your parcel 1Z5R89390350075608');
    expect(m.text).toContain('A delivery attempt failed');
    expect(m.text).toContain('Status: Attempt failed');
    expect(m.text).toContain('Nobody home, Brooklyn, NY · Nov 26, 2026, 10:18 AM EST');
    expect(m.text).not.toContain('UTC');
    expect(m.html).toContain('10:18 AM EST');
    const own = await smtp.waitFor((m) => mailTo(m).includes('ops@swift.example'));
    expect(own.subject).toContain('Attempt failed');
  });

  it("an exception mails the company's customer; an untimed zone falls back to UTC", async () => {
    const c = await signUp(env.app, { userType: 'company', company: 'Zone Less' });
    const u = await verified(c.email);
    await env.ctx.db.update(users).set({ timeZone: 'Not/AZone' }).where(eq(users.id, u.id));
    const t = await insertTracking(env.ctx, u.id, { notifyEmail: 'exc@example.net' });
    await changeStatus(env.ctx, t.id, 'Exception', {
      status: 'Exception',
      location: 'Memphis, TN',
      message: 'Damaged',
      time: '2026-11-26T15:18:00Z',
    });
    const m = await smtp.waitFor((m) => mailTo(m).includes('exc@example.net'));
    expect(m.subject).toBe(`Zone Less: your parcel ${t.tid} is Exception`);
    expect(m.text).toContain('has a problem on its way');
    expect(m.text).toContain('Nov 26, 2026, 3:18 PM UTC');
  });

  it("a courier's failed-attempt checkpoint on a shipment mails the customer at the destination", async () => {
    const c = await signUp(env.app, { userType: 'company', company: 'Swift Parcel', timeZone: 'America/Los_Angeles' });
    await verified(c.email);
    const k = await courier(env.app, c.session);
    // A courier has no customers (nor settings) of its own.
    const refused = await call(env.app, 'POST', '/v1/user/general/update', {
      token: k.session,
      body: { settings: { sendNotification: { email: { triggers: { Delivered: true } } } } },
    });
    expect(refused.body.code).toBe(403);
    const s = await createShipment(env.app, c.apiKey, {
      ...readmeShipment(k.email),
      destination: { ...readmeShipment().destination, email: 'dest-customer@example.net' },
    });
    const r = await call(env.app, 'POST', '/v1/shipment/update', {
      token: k.session,
      body: { tid: s.tid, status: 'FailAttempt', location: 'Oakland, CA', message: 'Nobody home', time: '2026-11-26T18:00:00Z' },
    });
    expect(r.statusCode).toBe(200);
    const m = await smtp.waitFor((m) => mailTo(m).includes('dest-customer@example.net') && m.subject?.includes('attempt failed') === true);
    expect(m.subject).toBe(`Swift Parcel: delivery attempt failed for your parcel ${s.tid}`);
    expect(m.text).toContain('Nov 26, 2026, 10:00 AM PST');
  });

  it("a person's customer is mailed at the tracking's notify email, as the public page promises", async () => {
    const p = await signUp(env.app, { timeZone: 'Europe/Berlin' });
    const u = await verified(p.email);
    const t = await insertTracking(env.ctx, u.id, { notifyEmail: 'buyer@example.net' });
    await changeStatus(env.ctx, t.id, 'Delivered', {
      status: 'Delivered',
      location: 'Berlin',
      message: 'Delivered',
      time: '2026-11-26T15:18:00Z',
    });
    const m = await smtp.waitFor((m) => mailTo(m).includes('buyer@example.net'));
    expect(m.subject).toBe('Ada Lovelace: your parcel ' + t.tid + ' is Delivered');
    expect(m.text).toContain('Nov 26, 2026, 4:18 PM GMT+1');
    const rows = await notificationRows(env.ctx, u.id);
    expect(rows.map((r) => [r.channel, r.audience, r.recipient])).toEqual([['email', 'send', 'buyer@example.net']]);
    // A person may change what its customers get, like a company.
    await saveSettings(env, p.session, { sendNotification: { email: { triggers: { Delivered: false } } } });
  });

  it('the public page names only the channels the owner sends its customers on', async () => {
    const a = await signUp(env.app);
    const add = (tid: string) =>
      call(env.app, 'POST', '/v1/trackings/add', {
        token: a.apiKey,
        body: { tid, courier: 'ups', notify: { email: 'john@example.com', phone: '(212) 555-9876' } },
      });
    expect((await add('1Z5R89390350075608')).statusCode).toBe(201);
    const page = async () => (await call(env.app, 'GET', `/v1/track/${a.profile.uid}_1Z5R89390350075608`)).body.payload[0].notify;
    // Mail on from sign-up, SMS off.
    expect(await page()).toEqual({ email: 'j***@e***.com', phone: '' });
    // Every customer trigger off (an account from before decision 100): no promise at all.
    await env.ctx.db.update(users).set({ settings: {} }).where(eq(users.email, a.email));
    expect(await page()).toEqual({ email: '', phone: '' });
  });
});
