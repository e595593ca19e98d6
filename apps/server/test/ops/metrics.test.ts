// Prometheus metrics: on the main port behind a token, and on the admin port that every role opens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminServer, type AdminServer } from '../../src/lib/admin-server.ts';
import { carriersOf } from '../../src/modules/carriers/carriers.service.ts';
import { call, createTestEnv, eventually, signUp, type TestEnv } from '../helpers.ts';
import { openStream } from '../live/sse-client.ts';
import { allTriggers, changeStatus, insertTracking, saveSettings, userRow } from '../notifications/fixtures.ts';

const TOKEN = 'metrics-token-0123456789';
let env: TestEnv;
let plain: TestEnv;

beforeAll(async () => {
  plain = await createTestEnv();
  // Started last, so its database is the one the scrape-time figures read (one context per process in a
  // deployment; two in this file).
  env = await createTestEnv({ METRICS_TOKEN: TOKEN });
});

afterAll(async () => {
  await plain?.close();
  await env?.close();
});

const scrape = (auth?: string) => env.app.inject({ method: 'GET', url: '/metrics', headers: auth ? { authorization: auth } : {} });

describe('/metrics on the main port', () => {
  it('is refused without the token or with a wrong one, and absent when no token is configured', async () => {
    expect((await scrape()).statusCode).toBe(401);
    expect((await scrape('Bearer wrong-token-wrong-token')).statusCode).toBe(401);
    expect((await plain.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(
      404,
    );
  });

  it('reports request latency by route pattern, carrier results and queue depth', async () => {
    const a = await signUp(env.app);
    const added = await call(env.app, 'POST', '/v1/trackings/add', {
      token: a.apiKey,
      body: { tid: '9400111899223197428490', courier: 'USPS' },
    });
    expect(added.statusCode).toBe(201);
    // A carrier lookup as the refresh engine makes it (the sandbox serves USPS here).
    await carriersOf(env.ctx).track('usps', ['9400111899223197428490']);
    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.body;
    // Route patterns, not raw URLs: the number in the path must not become a label (unbounded cardinality).
    expect(text).toMatch(/shiptrail_http_request_duration_seconds_count\{method="POST",route="\/v1\/trackings\/add",status="201"\} [1-9]/);
    expect(text).not.toContain('9400111899223197428490');
    expect(text).toMatch(/shiptrail_carrier_results_total\{carrier="usps",outcome="ok"\} [1-9]/);
    // Adding a tracking made it due first in line for the scheduler (no worker runs here).
    expect(text).toMatch(/shiptrail_trackings_due\{kind="first"\} [1-9]/);
    expect(text).toMatch(/shiptrail_trackings_due\{kind="recheck"\} \d+/);
    expect(text).toContain('shiptrail_process_resident_memory_bytes');
    // "Refresh now" queues a refresh job: the queue's depth shows it.
    expect((await call(env.app, 'POST', '/v1/trackings/refresh/9400111899223197428490', { token: a.apiKey })).statusCode).toBe(200);
    expect((await scrape(`Bearer ${TOKEN}`)).body).toMatch(/shiptrail_jobs\{queue="tracking-refresh",state="created"\} [1-9]/);
  });
});

describe('live streams and notifications', () => {
  const gauge = async (pattern: RegExp) => Number(pattern.exec((await scrape(`Bearer ${TOKEN}`)).body)?.[1] ?? NaN);

  it('counts the open live streams of this process, up when one opens and down when it closes', async () => {
    const a = await signUp(env.app);
    const base = await env.app.listen({ port: 0, host: '127.0.0.1' });
    const before = await gauge(/^shiptrail_live_streams (\d+)$/m);
    const streams = [await openStream(base, a.session), await openStream(base, a.session)];
    expect(await gauge(/^shiptrail_live_streams (\d+)$/m)).toBe(before + 2);
    streams[0]!.close();
    await eventually(async () => ((await gauge(/^shiptrail_live_streams (\d+)$/m)) === before + 1 ? true : null), 5000, 50);
    streams[1]!.close();
    await eventually(async () => ((await gauge(/^shiptrail_live_streams (\d+)$/m)) === before ? true : null), 5000, 50);
  });

  it('counts notifications by channel and state, from the database', async () => {
    const a = await signUp(env.app);
    await saveSettings(env, a.session, { receiveNotification: { email: { triggers: allTriggers } } });
    const queued = /^shiptrail_notifications\{channel="email",state="pending"\} (\d+)$/m;
    const before = (await gauge(queued)) || 0;
    const t = await insertTracking(env.ctx, (await userRow(env.ctx, a.email)).id);
    await changeStatus(env.ctx, t.id, 'InTransit');
    await changeStatus(env.ctx, t.id, 'Delivered');
    // No worker runs in this file's context, so both mails stay pending.
    expect(await gauge(queued)).toBe(before + 2);
  });
});

describe('the admin port', () => {
  let admin: AdminServer;
  let ready = true;
  beforeAll(async () => {
    admin = await startAdminServer({
      port: 0,
      host: '127.0.0.1',
      ready: async () => {
        if (!ready) throw new Error('database away');
      },
    });
  });
  afterAll(async () => admin?.close());

  it('answers liveness always, readiness only when ready, and metrics without a token', async () => {
    expect((await fetch(`${admin.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${admin.url}/readyz`)).status).toBe(200);
    ready = false;
    expect((await fetch(`${admin.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${admin.url}/healthz`)).status).toBe(200);
    const m = await fetch(`${admin.url}/metrics`);
    expect(m.status).toBe(200);
    expect(await m.text()).toContain('shiptrail_job_batches_total');
    expect((await fetch(`${admin.url}/nothing`)).status).toBe(404);
  });
});
