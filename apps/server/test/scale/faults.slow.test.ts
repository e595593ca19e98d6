// Faults the way they happen in production, on real OS processes (2 api and 2 worker processes on their own
// PostgreSQL server): workers killed with kill -9 while they deliver and refresh, an api process killed mid-add
// while the client retries with its Idempotency-Key, the SMTP server, the SMS gateway and the webhook receiver
// down for a while, a carrier down when a parcel is added, and PostgreSQL restarted mid-run. Afterwards nothing may be lost, nothing sent or charged
// twice, the balance must equal the ledger, and no operator action may be needed. PostgreSQL only; slow set.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CREDS, startFakeCarrier } from '../carriers/fake-carrier.ts';
import { readFixture } from '../carriers/helpers.ts';
import { eventually, onPostgres } from '../helpers.ts';
import { allTriggers, mailTo, sleep, startFakeTwilio, startReceiver } from '../notifications/fixtures.ts';
import { EX } from '../trackings/fixtures.ts';
import { quietWindow } from '../wait.ts';
import { api, Cluster, startSwitchableSmtp, withClient, signUpAt } from './cluster.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const pgScript = path.join(repoRoot, 'scripts', 'pg-test-server.sh');
const cluster = new Cluster();
const cleanups: Array<() => Promise<unknown> | unknown> = [];

afterAll(async () => {
  await cluster.stopAll();
  for (const f of cleanups.reverse()) await Promise.resolve(f()).catch(() => {});
});

const JOURNEYS = [EX.ups.delivered, EX.ups.failAttempt, EX.ups.exception, EX.usps.delivered, EX.fedex.delivered];
// Canada Post goes to a carrier on loopback (with credentials), which is down when this parcel is added.
const CP_TID = '1371134583769923';

describe.runIf(onPostgres)('faults on real processes', () => {
  it('kill -9 of workers and an api process, provider outages and a PostgreSQL restart lose nothing and repeat nothing', async () => {
    // A PostgreSQL server of this test's own, so restarting it does not cut the other tests' connections.
    const pgDir = mkdtempSync(path.join(tmpdir(), 'st-faults-pg-'));
    const dbUrl = execFileSync(pgScript, ['start', pgDir], { encoding: 'utf8' }).trim();
    cleanups.push(() => execFileSync(pgScript, ['stop', pgDir]));

    const smtp = await startSwitchableSmtp();
    cleanups.push(() => smtp.close());
    const twilio = await startFakeTwilio();
    cleanups.push(() => twilio.close());
    let twilioDown = false;
    let smsAccepted = 0;
    twilio.setRespond((r) => {
      if (twilioDown) return { status: 503, json: { code: 20503, message: 'Service unavailable' } };
      smsAccepted++;
      return { status: 201, json: { sid: `SM${String(twilio.requests.length).padStart(32, '0')}`, to: r.to, status: 'queued' } };
    });
    const carrier = await startFakeCarrier();
    cleanups.push(() => carrier.close());
    carrier.script('canadapost', CP_TID, { status: 503, body: 'Service Unavailable' });
    let secret = '';
    const rx = await startReceiver(() => [secret]);
    cleanups.push(() => rx.close());

    const env = {
      DATABASE_URL: dbUrl,
      SESSION_SECRET: 'fault-tests-secret-fault-tests-secret-01',
      SMTP_URL: smtp.url,
      TWILIO_BASE_URL: twilio.url,
      TWILIO_ACCOUNT_SID: 'ACfaults',
      TWILIO_AUTH_TOKEN: 'faults-token',
      TWILIO_FROM: '+15005550006',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      CARRIER_SANDBOX_PACE: '0.1',
      // The first retry after a carrier fails: 5 s here instead of a minute, doubled per failure as in production, so
      // the parcel added while its carrier is down is not two minutes of waiting.
      CARRIER_RETRY_SECONDS: '5',
      // And an e-mail's or SMS's first retry after its provider failed: 5 s instead of 30, doubled the same way.
      NOTIFY_RETRY_SECONDS: '5',
      CANADAPOST_BASE_URL: carrier.url,
      CANADAPOST_USERNAME: CREDS.user,
      CANADAPOST_PASSWORD: CREDS.pass,
    };
    const [api1, api2, w1, w2] = await Promise.all([
      cluster.start('api', env),
      cluster.start('api', env),
      cluster.start('worker', env),
      cluster.start('worker', env),
    ]);

    const { session } = await signUpAt(api1.url, 'faults@example.com');
    secret = (await api(api2.url, 'GET', '/v1/user/info', session)).body.payload.settings.webhookSecret;
    expect((await api(api2.url, 'POST', '/v1/user/general/update', session, { profile: { phone: '2025550143' } })).status).toBe(200);
    const saved = await api(api1.url, 'POST', '/v1/user/general/update', session, {
      settings: {
        receiveNotification: {
          email: { triggers: allTriggers },
          phone: { triggers: allTriggers },
          webhook: { triggers: allTriggers, endpoint: rx.url },
        },
      },
    });
    expect(saved.status).toBe(200);
    for (const [i, tid] of [...JOURNEYS, CP_TID].entries()) {
      const r = await api([api1, api2][i % 2]!.url, 'POST', '/v1/trackings/add', session, {
        tid,
        courier: tid === CP_TID ? 'canadapost' : undefined,
      });
      expect(r.status, `${tid}: ${r.body.message}`).toBe(201);
    }

    // An api process killed while it adds a tracking; the client retries the same request, same key, elsewhere.
    const KEY = 'faults-add-0001';
    const extra = EX.usps.notFound;
    const inFlight = api(api1.url, 'POST', '/v1/trackings/add', session, { tid: extra }, { 'idempotency-key': KEY }).catch(() => null);
    await sleep(15);
    await api1.kill9();
    await inFlight;
    const retried = await eventually(
      async () => {
        const r = await api(api2.url, 'POST', '/v1/trackings/add', session, { tid: extra }, { 'idempotency-key': KEY });
        return r.status < 500 && r.status !== 409 ? r : null;
      },
      30_000,
      300,
    );
    expect([200, 201]).toContain(retried.status);
    // Back up before the database restart below. A start-up that overlaps a restart now waits for the server
    // (test/scale/start-retry.test.ts covers it); this test measures the running processes, so it keeps them apart.
    const restartApi = api1.restart();

    // Workers killed while journeys move and deliveries run; providers down; the database restarted.
    await sleep(2500);
    await w1.kill9();
    rx.setDown(true);
    smtp.setDown(true);
    twilioDown = true;
    await sleep(4000);
    await restartApi;
    execFileSync(pgScript, ['restart', pgDir]);
    await w1.restart();
    await sleep(2000);
    await w2.kill9();
    rx.setDown(false);
    smtp.setDown(false);
    twilioDown = false;
    // The carrier was asked while it was down (the first refresh after the add), and is back with the parcel delivered.
    expect(carrier.trackRequests.canadapost).toBeGreaterThanOrEqual(1);
    const askedWhileDown = carrier.trackRequests.canadapost;
    carrier.script('canadapost', CP_TID, { status: 200, body: readFixture('canadapost/canadapost_delivered.xml') });
    await w2.restart();
    await restartApi;
    const recoveredFrom = Date.now();

    // Every journey reaches its end with nobody doing anything.
    await eventually(
      async () => {
        const r = await api(api2.url, 'GET', '/v1/trackings/get?numRecords=50', session);
        const rows = (r.body.payload as Array<{ tid: string; status: string }>).filter((t) => JOURNEYS.includes(t.tid as never));
        return rows.length === JOURNEYS.length && rows.every((t) => ['Delivered', 'Exception'].includes(t.status)) ? true : null;
      },
      240_000,
      1000,
    );
    // The parcel added while its carrier was down: the refresh engine backed off (twice CARRIER_RETRY_SECONDS after a
    // first failure, ±20 %, doubling) and found it delivered once the carrier was back, with nobody pressing anything.
    const cp = await eventually(
      async () => {
        const r = await api(api2.url, 'GET', '/v1/trackings/get?numRecords=50', session);
        const row = (r.body.payload as Array<{ tid: string; status: string }>).find((t) => t.tid === CP_TID);
        return row?.status === 'Delivered' ? row : null;
      },
      240_000,
      1000,
    );
    const cpRecoveredAfter = ((Date.now() - recoveredFrom) / 1000).toFixed(0);
    console.info(
      `faults: Canada Post down at the add (${askedWhileDown} refused request(s)); delivered ${cpRecoveredAfter} s after it came back, ${carrier.trackRequests.canadapost} requests in all`,
    );
    expect(cp.status).toBe('Delivered');
    await withClient(dbUrl, async (c) => {
      const row = (await c.query('select failures, last_error from trackings where tid = $1', [CP_TID])).rows[0];
      expect(row).toEqual({ failures: 0, last_error: null });
    });
    const events = await withClient(dbUrl, async (c) =>
      Number((await c.query('select count(*) as n from tracking_events where to_status = any($1)', [Object.keys(allTriggers)])).rows[0].n),
    );
    expect(events).toBeGreaterThanOrEqual(JOURNEYS.length * 3);
    // What each channel owes: one notification row per (event, channel, recipient), written with the event.
    const owed = await withClient(dbUrl, async (c) => {
      const rows = (await c.query(`select channel, count(*)::int as n from notifications group by 1`)).rows as Array<{
        channel: string;
        n: number;
      }>;
      return Object.fromEntries(rows.map((r) => [r.channel, r.n])) as Record<string, number>;
    });
    expect(owed).toEqual({ email: events, sms: events, webhook: events });

    const mine = () => smtp.mails.filter((m) => mailTo(m).includes('faults@example.com') && !/verify/i.test(m.subject ?? ''));
    const counts = () => [rx.received.length, mine().length, smsAccepted];
    await eventually(async () => (counts().every((n) => n >= events) ? true : null), 420_000, 1000).catch((err: Error) => {
      throw new Error(`${err.message}: ${events} status changes, [webhooks, mails, sms] ${JSON.stringify(counts())}`);
    });
    const allDeliveredAfter = ((Date.now() - recoveredFrom) / 1000).toFixed(0);
    // Recovery of the deliveries themselves: the last acceptance of a notification that existed when the last
    // fault ended (the Canada Post parcel's, made later by the carrier's backoff, is not one of them).
    const backlogDoneAfter = await withClient(dbUrl, async (c) =>
      Number(
        (
          await c.query(
            'select extract(epoch from max(accepted_at) - $1::timestamptz) as s from notifications where created_at < $1::timestamptz',
            [new Date(recoveredFrom).toISOString()],
          )
        ).rows[0].s,
      ),
    );
    const [hooks, mails, sms] = await quietWindow(5000, counts);
    console.info(
      `faults: ${events} status changes; ${hooks} webhooks, ${mails} mails, ${sms} SMS accepted (${twilio.requests.length - sms!} refused while down); all delivered ${allDeliveredAfter} s after the last fault; the backlog held by the faults delivered ${backlogDoneAfter.toFixed(0)} s after it`,
    );
    const twice = (keys: string[]) => keys.filter((k, i) => keys.indexOf(k) !== i);
    console.info(
      `faults: repeated webhooks ${JSON.stringify(twice(rx.received.map((r) => `${r.id} ${r.json?.data?.tracking?.tid} ${r.json?.data?.status}`)))}; repeated mails ${JSON.stringify(twice(mine().map((m) => `${m.messageId} ${m.subject}`)))}`,
    );

    // Nothing lost, nothing twice.
    expect(new Set(rx.received.map((r) => r.id)).size).toBe(events);
    expect(new Set(mine().map((m) => m.messageId)).size).toBe(events);
    expect([hooks, mails, sms]).toEqual([events, events, events]);
    await withClient(dbUrl, async (c) => {
      const unsettled = (
        await c.query(
          `select channel, status, count(*)::int as n from notifications where status not in ('sent', 'delivered') group by 1, 2`,
        )
      ).rows;
      expect(unsettled).toEqual([]);
      // One tracking for the retried add, charged once (and one each for the journeys and the Canada Post parcel);
      // SMS charged once each; the balance is the ledger's sum.
      expect((await c.query('select count(*)::int as n from trackings where tid = $1', [extra])).rows[0].n).toBe(1);
      const charges = (await c.query(`select kind, count(*)::int as n from ledger_entries where amount_cents < 0 group by kind`))
        .rows as Array<{ kind: string; n: number }>;
      const byKind = Object.fromEntries(charges.map((r) => [r.kind, r.n]));
      console.info(`faults: ledger charges ${JSON.stringify(byKind)}`);
      expect(Object.values(byKind).reduce((a, b) => a + b, 0)).toBe(JOURNEYS.length + 2 + events);
      const mismatch = (
        await c.query(
          `select b.user_id from billing_accounts b left join (select user_id, sum(amount_cents) as s from ledger_entries group by 1) l using (user_id) where b.balance_cents <> coalesce(l.s, 0)`,
        )
      ).rows;
      expect(mismatch).toEqual([]);
    });
  }, 900_000);
});

describe.runIf(onPostgres)('a worker killed in the middle of a delivery', () => {
  it('the delivery it held is made by another worker within seconds (heartbeats), and nothing twice', async () => {
    const admin = process.env.TEST_DATABASE_URL!;
    const name = `st_heartbeat_${Date.now().toString(36)}`;
    await withClient(admin, (c) => c.query(`create database ${name}`));
    cleanups.push(() => withClient(admin, (c) => c.query(`drop database if exists ${name} with (force)`)));
    const dbUrl = Object.assign(new URL(admin), { pathname: `/${name}` }).toString();

    // A receiver that never answers the first webhook it gets: the worker that sent it is mid-delivery.
    let heldId = '';
    const received: Array<{ id: string; at: number }> = [];
    const server = http.createServer((req, res) => {
      const id = String(req.headers['webhook-id']);
      req.resume();
      req.on('end', () => {
        if (!heldId) {
          heldId = id;
          return; // no answer: the request stays open until its sender dies
        }
        received.push({ id, at: Date.now() });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    );
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

    const env = {
      DATABASE_URL: dbUrl,
      SESSION_SECRET: 'heartbeat-test-secret-heartbeat-test-01',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      CARRIER_SANDBOX_PACE: '0.05',
      // The queue's first retry after a failed delivery: 5 s instead of 30 (NOTIFY_RETRY_SECONDS).
      NOTIFY_RETRY_SECONDS: '5',
    };
    const [apiProc, first] = await Promise.all([cluster.start('api', env), cluster.start('worker', env)]);
    const { session } = await signUpAt(apiProc.url, 'heartbeat@example.com');
    expect(
      (
        await api(apiProc.url, 'POST', '/v1/user/general/update', session, {
          settings: { receiveNotification: { webhook: { triggers: allTriggers, endpoint } } },
        })
      ).status,
    ).toBe(200);
    expect((await api(apiProc.url, 'POST', '/v1/trackings/add', session, { tid: EX.usps.delivered })).status).toBe(201);

    // The only worker takes the first delivery and hangs on it; a second worker starts; the first is killed.
    await eventually(async () => (heldId ? true : null), 60_000, 100);
    await cluster.start('worker', env);
    const killedAt = Date.now();
    await first.kill9();
    const retried = await eventually(async () => received.find((r) => r.id === heldId) ?? null, 240_000, 100);
    const after = (retried.at - killedAt) / 1000;
    console.info(
      `faults: a delivery held by a worker killed mid-request was made by the other worker ${after.toFixed(1)} s after the kill`,
    );
    // Stale after 10 s without a heartbeat, found by supervision within 15 s, retried after the queue's retry delay
    // (5 s here, jittered): well within the bound. Without heartbeats the job's expiry alone (DELIVERY_EXPIRE_SECONDS,
    // 300 s), then supervision and the same retry delay: more than 300 s.
    expect(after).toBeLessThan(110);

    // The journey goes on to the end, every status change delivered, none twice (the held one's retry keeps its id).
    await eventually(
      async () => {
        const r = await api(apiProc.url, 'GET', '/v1/trackings/get?numRecords=5', session);
        return (r.body.payload as Array<{ status: string }>)[0]?.status === 'Delivered' ? true : null;
      },
      120_000,
      500,
    );
    const events = await withClient(dbUrl, async (c) =>
      Number((await c.query('select count(*) as n from tracking_events where to_status = any($1)', [Object.keys(allTriggers)])).rows[0].n),
    );
    await eventually(async () => (received.length >= events ? true : null), 60_000, 250);
    const ids = await quietWindow(3000, () => received.map((r) => r.id));
    expect(ids).toHaveLength(events);
    expect(new Set(ids).size).toBe(events);
    expect(ids).toContain(heldId);
  }, 420_000);
});
