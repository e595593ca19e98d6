// The production shape, as real OS processes: one PostgreSQL server, 2 api and 2 worker processes (src/main.ts
// with --role, as the compose file starts them), a real SMTP server, a webhook receiver and a carrier on
// loopback. Sandbox parcels play their journeys to the end; every status change must reach the webhook and the
// mailbox exactly once, and a carrier's quota must hold across both workers. PostgreSQL only (PGlite is one
// process); in the slow set.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { MSG } from '@shiptrail/contract';
import { CREDS, startFakeCarrier, type FakeCarrier } from '../carriers/fake-carrier.ts';
import { eventually, onPostgres, startSmtp, type SmtpCapture } from '../helpers.ts';
import { allTriggers, mailTo, startReceiver } from '../notifications/fixtures.ts';
import { EX } from '../trackings/fixtures.ts';
import { quietWindow } from '../wait.ts';
import { api, Cluster, withClient as admin, signUpAt } from './cluster.ts';

const cluster = new Cluster();
const cleanups: Array<() => Promise<unknown>> = [];

afterAll(async () => {
  await cluster.stopAll();
  for (const f of cleanups.reverse()) await f().catch(() => {});
});

const LOGIN_MAX = 5;
const JOURNEYS = [EX.ups.delivered, EX.ups.failAttempt, EX.ups.exception, EX.usps.delivered, EX.fedex.delivered];
// Canada Post goes to a carrier on loopback with credentials, under a quota of 1 request every 2 seconds.
const CP = ['0073938000549297', '7035114477138472', '4002847016405018', '1371134583769923', '1680678172650919', '7023210039414604'];

describe.runIf(onPostgres)('2 api and 2 worker processes on one PostgreSQL server', () => {
  it('delivers every status change exactly once per channel and keeps a carrier quota across workers', async () => {
    const name = `st_multi_${randomBytes(5).toString('hex')}`;
    const serverUrl = process.env.TEST_DATABASE_URL!;
    await admin(serverUrl, (c) => c.query(`create database ${name}`));
    cleanups.push(() => admin(serverUrl, (c) => c.query(`drop database if exists ${name} with (force)`)));
    const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();

    const smtp: SmtpCapture = await startSmtp();
    cleanups.push(() => smtp.close());
    const fake: FakeCarrier = await startFakeCarrier();
    cleanups.push(() => fake.close());

    const env = {
      DATABASE_URL: dbUrl,
      SESSION_SECRET: 'multi-process-secret-multi-process-0123',
      SMTP_URL: smtp.url,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      CARRIER_SANDBOX_PACE: '0.03',
      QUEUE_POLL_SECONDS: '0.5',
      CANADAPOST_BASE_URL: fake.url,
      CANADAPOST_USERNAME: CREDS.user,
      CANADAPOST_PASSWORD: CREDS.pass,
      CANADAPOST_RATE_LIMIT: '1/2',
      LOGIN_MAX_ATTEMPTS: String(LOGIN_MAX),
    };
    // Three at once on an empty database: they also race to apply the migrations. The second worker starts once
    // api 1 is up, with api 1 as the address carriers push to: the sandbox carriers in that worker push UPS, FedEx
    // and USPS scans to api 1 while both workers poll, so pushes and polls of one parcel cross between processes.
    const [api1, api2] = await Promise.all([cluster.start('api', env), cluster.start('api', env), cluster.start('worker', env)]);
    await cluster.start('worker', { ...env, CARRIER_PUSH_URL: api1!.url });

    const { session } = await signUpAt(api1!.url, 'multi@example.com');
    const info = await api(api2!.url, 'GET', '/v1/user/info', session);
    const rx = await startReceiver(() => [info.body.payload.settings.webhookSecret]);
    cleanups.push(() => rx.close());
    const saved = await api(api2!.url, 'POST', '/v1/user/general/update', session, {
      settings: { receiveNotification: { email: { triggers: allTriggers }, webhook: { triggers: allTriggers, endpoint: rx.url } } },
    });
    expect(saved.status).toBe(200);

    // Each api process keeps checked tokens in memory; a logout or a new API key on one process is heard by
    // the other through the bus (decision 086), well before the cache's own 10 s would run out.
    const second = (
      await api(api1!.url, 'POST', '/v1/user/general/login', undefined, { email: 'multi@example.com', password: 'password123' })
    ).body.payload.sessionToken as string;
    const oldKey = info.body.payload.profile.token as string;
    expect((await api(api2!.url, 'GET', '/v1/user/info', second)).status).toBe(200);
    expect((await api(api2!.url, 'GET', '/v1/user/info', oldKey)).status).toBe(200);
    const t0 = performance.now();
    expect((await api(api1!.url, 'POST', '/v1/user/general/logout', second)).status).toBe(200);
    expect((await api(api1!.url, 'POST', '/v1/user/general/generatenewtoken', session)).status).toBe(200);
    await eventually(
      async () =>
        (await api(api2!.url, 'GET', '/v1/user/info', second)).status === 401 &&
        (await api(api2!.url, 'GET', '/v1/user/info', oldKey)).status === 401
          ? true
          : null,
      2000,
      10,
    );
    console.info(
      `multi-process: logout and new key on api 1 refused by api 2 within ${Math.round(performance.now() - t0)} ms of the logout request`,
    );

    // Adds spread over both api processes.
    for (const [i, tid] of [...JOURNEYS, ...CP].entries()) {
      const r = await api([api1!, api2!][i % 2]!.url, 'POST', '/v1/trackings/add', session, {
        tid,
        courier: CP.includes(tid) ? 'canadapost' : undefined,
      });
      expect(r.status, `${tid}: ${r.body.message}`).toBe(201);
    }

    // Every sandbox journey reaches its end.
    await eventually(
      async () => {
        const r = await api(api2!.url, 'GET', '/v1/trackings/get?numRecords=50', session);
        const rows = (r.body.payload as Array<{ tid: string; status: string }>).filter((t) => JOURNEYS.includes(t.tid as never));
        return rows.length === JOURNEYS.length && rows.every((t) => ['Delivered', 'Exception'].includes(t.status)) ? true : null;
      },
      150_000,
      500,
    );

    // Status changes the account asked to hear about (every trigger; a change to another status, such as a
    // failed attempt or not found, notifies nobody).
    const events = await admin(dbUrl, async (c) =>
      Number((await c.query('select count(*) as n from tracking_events where to_status = any($1)', [Object.keys(allTriggers)])).rows[0].n),
    );
    expect(events).toBeGreaterThanOrEqual(JOURNEYS.length * 3);
    const counts = () => [
      rx.received.length,
      smtp.mails.filter((m) => mailTo(m).includes('multi@example.com') && !/verify|welcome/i.test(m.subject ?? '')).length,
    ];
    await eventually(async () => (counts()[0]! >= events && counts()[1]! >= events ? true : null), 60_000, 250).catch((err: Error) => {
      throw new Error(
        `${err.message}: ${events} status changes, [webhooks, mails] ${JSON.stringify(counts())}; subjects ${JSON.stringify(smtp.mails.map((m) => m.subject))}`,
      );
    });
    // Hold a quiet window: a duplicate that is merely late still shows up.
    const [hooks, mails] = await quietWindow(3000, counts);
    console.info(
      `multi-process: ${events} status changes, ${hooks} webhooks, ${mails} mails, ${fake.trackRequests.canadapost} Canada Post requests`,
    );
    expect(hooks).toBe(events);
    expect(mails).toBe(events);
    expect(new Set(rx.received.map((r) => r.id)).size).toBe(hooks);
    expect(rx.received.every((r) => r.verifiedWith !== null)).toBe(true);
    const dupes = await admin(
      dbUrl,
      async (c) =>
        (await c.query('select event_id, channel, recipient, count(*) from notifications group by 1, 2, 3 having count(*) > 1')).rows,
    );
    expect(dupes).toEqual([]);
    // Some of those changes came pushed (from the second worker's sandbox to api 1), and still nothing twice.
    const pushed = await admin(dbUrl, async (c) =>
      Number((await c.query('select count(*) as n from trackings where last_pushed_at is not null')).rows[0].n),
    );
    console.info(`multi-process: ${pushed} trackings got pushed scans`);
    expect(pushed).toBeGreaterThan(0);

    // The quota: each Canada Post number was asked once, one every 2 s across both workers. Grants are 2 s apart
    // by the database's clock; arrival at the carrier adds each request's own delay after its grant (up to a few
    // hundred ms on a loaded 2-core machine running four servers), hence the margin. Two separate budgets would
    // let the workers' requests arrive in pairs, well under a second apart.
    await eventually(async () => (fake.trackRequests.canadapost >= CP.length ? true : null), 90_000, 250);
    const times = [...fake.canadapostTrackTimes].sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!, `requests ${i - 1}..${i}`).toBeGreaterThanOrEqual(1200);

    // Login throttling is shared too: 24 guesses at once from one address, spread over both api processes, get
    // LOGIN_MAX_ATTEMPTS evaluations in all (a limit per process would let twice as many through), and the
    // right password is refused after them.
    const victim = { email: 'guess@example.com', password: 'password123' };
    expect(
      (await api(api1!.url, 'POST', '/v1/user/general/signup', undefined, { ...victim, repassword: victim.password, terms: true })).status,
    ).toBe(201);
    const guesses = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        api([api1!, api2!][i % 2]!.url, 'POST', '/v1/user/general/login', undefined, { email: victim.email, password: `wrong-${i}` }),
      ),
    );
    const evaluated = guesses.filter((r) => r.status === 401).length;
    console.info(`multi-process: 24 parallel guesses over 2 api processes, ${evaluated} evaluated (limit ${LOGIN_MAX})`);
    expect(evaluated).toBeGreaterThan(0);
    expect(evaluated).toBeLessThanOrEqual(LOGIN_MAX);
    expect(guesses.every((r) => r.status === 401 || r.status === 429)).toBe(true);
    const right = await api(api2!.url, 'POST', '/v1/user/general/login', undefined, victim);
    expect(right.status).toBe(429);
    expect(right.body.message).toBe(MSG.tooManyAttempts);
  }, 420_000);
});
