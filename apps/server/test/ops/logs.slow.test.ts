// The logs of a whole journey, from a real server process at the most verbose level: no secret in them
// (passwords, session tokens, API keys, one-time keys, webhook secrets, card nonces, provider and carrier
// credentials, the server's own secrets), and every status change tied to its notifications by ids
// (docs/operations.md, "Logs"). Runs on PGlite (one process, both roles) and on PostgreSQL; slow set.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CREDS, startFakeCarrier } from '../carriers/fake-carrier.ts';
import { eventually, onPostgres, startSmtp } from '../helpers.ts';
import { allTriggers, mailTo, startFakeTwilio, startReceiver } from '../notifications/fixtures.ts';
import { EX } from '../trackings/fixtures.ts';
import { api, Cluster, withClient } from '../scale/cluster.ts';

const cluster = new Cluster();
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterAll(async () => {
  await cluster.stopAll();
  for (const f of cleanups.reverse()) await Promise.resolve(f()).catch(() => {});
});

type Line = Record<string, any> & { msg?: string };

const keyIn = (text: string, pathPrefix: string) => new RegExp(`${pathPrefix}([A-Za-z0-9_-]{8,})`).exec(text)?.[1];

describe('logs of a whole journey', () => {
  it('hold no secret, and tie each status change to its notifications by ids', async () => {
    const smtp = await startSmtp();
    cleanups.push(() => smtp.close());
    const twilio = await startFakeTwilio();
    cleanups.push(() => twilio.close());
    const fake = await startFakeCarrier();
    cleanups.push(() => fake.close());
    let webhookSecret = '';
    const rx = await startReceiver(() => [webhookSecret]);
    cleanups.push(() => rx.close());

    // The server's own secrets: each distinctive, so a match can only be a leak.
    const server = {
      SESSION_SECRET: `session-${randomBytes(16).toString('hex')}`,
      METRICS_TOKEN: `metrics-${randomBytes(12).toString('hex')}`,
      TWILIO_AUTH_TOKEN: `twilio-${randomBytes(12).toString('hex')}`,
    };
    const dataDir = mkdtempSync(path.join(tmpdir(), 'st-logs-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    let database: Record<string, string> = { DATA_DIR: dataDir };
    if (onPostgres) {
      const name = `st_logs_${randomBytes(5).toString('hex')}`;
      const admin = process.env.TEST_DATABASE_URL!;
      await withClient(admin, (c) => c.query(`create database ${name}`));
      cleanups.push(() => withClient(admin, (c) => c.query(`drop database if exists ${name} with (force)`)));
      database = { DATABASE_URL: Object.assign(new URL(admin), { pathname: `/${name}` }).toString() };
    }
    const proc = await cluster.start(
      'all',
      {
        ...database,
        ...server,
        LOG_LEVEL: 'trace',
        SMTP_URL: smtp.url,
        TWILIO_BASE_URL: twilio.url,
        TWILIO_ACCOUNT_SID: 'AClogs',
        TWILIO_FROM: '+15005550006',
        UPS_BASE_URL: fake.url,
        UPS_CLIENT_ID: CREDS.id,
        UPS_CLIENT_SECRET: CREDS.secret,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        CARRIER_SANDBOX_PACE: '0.03',
        QUEUE_POLL_SECONDS: '0.5',
      },
      { logs: true },
    );
    const url = proc.url;
    const secrets: Record<string, string> = { ...server, upsClientSecret: CREDS.secret };

    // Sign up, verify the address, log in (a wrong password first), reset the password, log in again.
    const email = 'logs@example.com';
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const signup = await api(url, 'POST', '/v1/user/general/signup', undefined, { email, password, repassword: password, terms: true });
    expect(signup.status).toBe(201);
    secrets.password = password;
    secrets.firstSession = signup.body.payload.sessionToken;
    secrets.firstApiKey = signup.body.payload.profile.token;
    const verifyMail = await smtp.waitFor((m) => mailTo(m).includes(email) && /verify/i.test(m.subject ?? ''));
    const verifyKey = keyIn(verifyMail.text ?? '', '/verify/')!;
    expect(verifyKey).toBeTruthy();
    secrets.verifyKey = verifyKey;
    expect((await api(url, 'GET', `/v1/user/email/verify/${verifyKey}`)).status).toBe(200);
    const wrong = `wrong-${randomBytes(6).toString('hex')}`;
    secrets.wrongPassword = wrong;
    expect((await api(url, 'POST', '/v1/user/general/login', undefined, { email, password: wrong })).status).toBe(401);
    expect((await api(url, 'GET', `/v1/user/password/recover/${encodeURIComponent(email)}`)).status).toBe(200);
    const resetMail = await smtp.waitFor((m) => mailTo(m).includes(email) && /reset/i.test(m.subject ?? ''));
    const resetKey = keyIn(resetMail.text ?? '', '/password/reset/')!;
    expect(resetKey).toBeTruthy();
    secrets.resetKey = resetKey;
    const newPassword = `pw2-${randomBytes(8).toString('hex')}`;
    secrets.newPassword = newPassword;
    expect(
      (
        await api(url, 'POST', '/v1/user/general/passwordreset', undefined, {
          verifycode: resetKey,
          password: newPassword,
          repassword: newPassword,
        })
      ).status,
    ).toBe(200);
    // The web pages the mails link to, as a browser opens them (served by the same process).
    await fetch(`${url}/verify/${verifyKey}`);
    await fetch(`${url}/password/reset/${resetKey}`);
    await fetch(`${url}/auth/google/callback?code=${secrets.verifyKey}x&state=${secrets.resetKey}y`);
    const login = await api(url, 'POST', '/v1/user/general/login', undefined, { email, password: newPassword });
    expect(login.status).toBe(200);
    const session = login.body.payload.sessionToken as string;
    secrets.session = session;

    // Settings: phone, every trigger on every channel, a webhook; the webhook secret and the API key are read back.
    expect((await api(url, 'POST', '/v1/user/general/update', session, { profile: { phone: '2025550143' } })).status).toBe(200);
    const info = await api(url, 'GET', '/v1/user/info', session);
    webhookSecret = info.body.payload.settings.webhookSecret;
    secrets.webhookSecret = webhookSecret;
    secrets.apiKey = info.body.payload.token ?? info.body.payload.profile?.token ?? '';
    const saved = await api(url, 'POST', '/v1/user/general/update', session, {
      settings: {
        receiveNotification: {
          email: { triggers: allTriggers },
          phone: { triggers: allTriggers },
          webhook: { triggers: allTriggers, endpoint: rx.url },
        },
      },
    });
    expect(saved.status, saved.body.message).toBe(200);

    // A card (the vault's one-time nonce) and a top-up.
    const nonce = 'fake-valid-visa-nonce';
    expect((await api(url, 'POST', '/v1/user/payment/add', session, { paymentMethodToken: nonce })).status).toBe(200);
    expect((await api(url, 'POST', '/v1/user/general/addbalance', session, { amount: 20 })).status).toBe(200);

    // A parcel on a carrier with credentials (its OAuth token is a secret too) and a sandbox journey to its end,
    // added with the API key.
    const key = secrets.apiKey || secrets.firstApiKey!;
    expect((await api(url, 'POST', '/v1/trackings/add', key, { tid: EX.ups.notFound })).status).toBe(201);
    expect((await api(url, 'POST', '/v1/trackings/add', key, { tid: EX.usps.delivered })).status).toBe(201);
    await eventually(
      async () => {
        const r = await api(url, 'GET', '/v1/trackings/get?numRecords=10', session);
        return (r.body.payload as Array<{ tid: string; status: string }>).some(
          (t) => t.tid === EX.usps.delivered && t.status === 'Delivered',
        )
          ? true
          : null;
      },
      120_000,
      500,
    );
    await eventually(async () => (fake.trackRequests.ups > 0 ? true : null), 60_000, 250);
    const upsAuth = String(fake.lastHeaders.ups?.authorization ?? '');
    expect(upsAuth).toMatch(/^Bearer .{8,}/);
    secrets.upsAccessToken = upsAuth.slice('Bearer '.length);

    // Metrics with their token, a new API key, sign out.
    expect((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${server.METRICS_TOKEN}` } })).status).toBe(200);
    const rotated = await api(url, 'POST', '/v1/user/general/generatenewtoken', session);
    expect(rotated.status).toBe(200);
    secrets.rotatedApiKey = JSON.stringify(rotated.body.payload).match(/"(?:token|apiKey)":"([^"]+)"/)?.[1] ?? '';
    expect(secrets.rotatedApiKey).not.toBe('');

    // Every notification the journey owes has gone out: each one a status change listed has its delivery line.
    const parse = () =>
      (proc.stdout() + proc.stderr())
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Line);
    const isDone = (l: Line) => /^notification (sent|delivered)$/.test(l.msg ?? '');
    await eventually(
      async () => {
        const ls = parse();
        const owed = ls
          .filter((l) => l.msg === 'status change: notifications queued')
          .flatMap((l) => l.notifications as Array<{ id: string }>);
        return owed.length > 0 && owed.every((n) => ls.some((l) => l.notificationId === n.id && isDone(l))) ? true : null;
      },
      90_000,
      250,
    );

    // ---------------------------------------------------------------- no secret in any line
    const text = proc.stdout() + proc.stderr();
    const lines = parse();
    expect(lines.length).toBeGreaterThan(50);
    const leaks = Object.entries(secrets)
      .filter(([, v]) => v && v.length >= 6)
      .filter(([, v]) => text.includes(v))
      .map(([k]) => k);
    console.info(
      `logs: ${lines.length} lines, ${(text.length / 1024).toFixed(0)} KB at trace level; checked ${Object.keys(secrets).length} secrets; leaked ${JSON.stringify(leaks)}`,
    );
    expect(leaks).toEqual([]);
    expect(text).toContain('[redacted]'); // the censor did run (request lines with keys in their address)

    // ---------------------------------------------------------------- a status change leads to its deliveries
    const changes = lines.filter((l) => l.msg === 'status change: notifications queued');
    expect(changes.length).toBeGreaterThanOrEqual(2);
    for (const c of changes) {
      expect(c.eventId).toMatch(/^[0-9a-f-]{36}$/);
      // What made the change: the refresh job or the scheduler round that applied it.
      expect(c.jobId ?? c.queue ?? c.reqId, JSON.stringify(c)).toBeTruthy();
      expect(c.notifications.map((n: { channel: string }) => n.channel).sort()).toEqual(['email', 'sms', 'webhook']);
      for (const n of c.notifications as Array<{ id: string; channel: string }>) {
        const done = lines.filter((l) => l.notificationId === n.id && isDone(l));
        expect(done, `${n.channel} ${n.id}`).toHaveLength(1);
        expect(done[0]).toMatchObject({ eventId: c.eventId, channel: n.channel });
        expect(done[0]!.jobId, `${n.channel} delivery line without its job id`).toMatch(/^[0-9a-f-]{36}$/);
      }
    }
    // Request lines carry their request id, and a service's line written while a request runs carries it too.
    const requestLines = lines.filter((l) => l.msg === 'incoming request');
    expect(requestLines.length).toBeGreaterThan(10);
    expect(requestLines.every((l) => typeof l.reqId === 'string')).toBe(true);
    console.info(`logs: ${changes.length} status changes, each tied to its 3 deliveries by notification id, event id and job id`);
  }, 300_000);
});
