import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desc, eq, sql } from 'drizzle-orm';
import { webhookEventSchema } from '@shiptrail/contract';
import { alerts, notifications, webhookAttempts } from '../../src/db/schema.ts';
import { rowsOf as resultRows } from '../../src/db/client.ts';
import { startJobWorkers } from '../../src/jobs/registry.ts';
import { notifyJobs } from '../../src/modules/notifications/notifications.jobs.ts';
import { QUIET_MS, queuesIdle, quietWindow, waitFor } from '../wait.ts';
import { call, createTestEnv, eventually, signUp, type TestEnv } from '../helpers.ts';
import { allTriggers, changeStatus, fastTuning, insertTracking, saveSettings, startReceiver, userRow } from './fixtures.ts';

describe('webhooks (Standard Webhooks) to a local receiver', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    fastTuning(env.ctx);
    await startJobWorkers(env.ctx, Object.values(notifyJobs));
  });
  afterAll(async () => {
    await env.close();
  });

  async function account() {
    const a = await signUp(env.app);
    const info = await call(env.app, 'GET', '/v1/user/info', { token: a.session });
    const secret = info.body.payload.settings.webhookSecret as string;
    return { ...a, secret, user: await userRow(env.ctx, a.email) };
  }
  const rowsOf = (userId: string) => env.ctx.db.select().from(notifications).where(eq(notifications.userId, userId));

  it('delivers a signed event that standardwebhooks verifies, once per status change, with the notification id', async () => {
    const a = await account();
    expect(a.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const rx = await startReceiver(() => [a.secret]);
    try {
      await saveSettings(env, a.session, { receiveNotification: { webhook: { triggers: allTriggers, endpoint: rx.url } } });
      const t = await insertTracking(env.ctx, a.user.id, { tid: '1ZWEBHOOK0001', notifyEmail: 'c@example.net' });
      await changeStatus(env.ctx, t.id, 'InfoReceived', {
        status: 'InfoReceived',
        location: null,
        message: 'Label created',
        time: '2026-03-01T09:00:00Z',
      });
      await changeStatus(env.ctx, t.id, 'InTransit', {
        status: 'InTransit',
        location: 'Memphis, TN',
        message: 'Departed',
        time: '2026-03-01T12:00:00Z',
      });
      await eventually(async () => rx.received.length >= 2);
      await waitFor(
        async () => (await rowsOf(a.user.id)).every((r) => r.status === 'delivered') && queuesIdle(env.ctx, [notifyJobs.webhook.name]),
        { message: 'webhooks not all delivered' },
      );
      expect(await quietWindow(QUIET_MS, () => rx.received.length)).toBe(2);
      for (const r of rx.received) expect(r.verifiedWith).toBe(a.secret);
      // Deliveries run concurrently, so arrival order is not event order (receivers order by the event's
      // timestamp); pick each event by its status.
      const byStatus = (st: string) => rx.received.find((r) => r.json.data.status === st);
      const [first, second] = [byStatus('InfoReceived'), byStatus('InTransit')];
      const event = webhookEventSchema.parse(second!.json);
      expect(event.type).toBe('tracking.status_changed');
      expect(event.version).toBe(1);
      expect(event.data).toMatchObject({
        previousStatus: 'InfoReceived',
        status: 'InTransit',
        checkpoint: { location: 'Memphis, TN', message: 'Departed', time: '2026-03-01T12:00:00.000Z' },
      });
      expect(event.data.tracking).toMatchObject({
        tid: '1ZWEBHOOK0001',
        status: 'InTransit',
        notify: { email: 'c@example.net', phone: '' },
      });
      expect(event.data.tracking.url).toBe(`http://shiptrail.test/track/${a.user.uid}/1ZWEBHOOK0001`);
      const rows = await rowsOf(a.user.id);
      expect(new Set(rows.map((r) => r.id))).toEqual(new Set([first!.id, second!.id]));
      expect(rows.every((r) => r.status === 'delivered' && r.acceptedAt)).toBe(true);
      expect(Math.abs(Number(first!.timestamp) - Date.now() / 1000)).toBeLessThan(30);

      // The log shows both, newest first, with the attempt and the body; another account sees none.
      const log = await call(env.app, 'GET', '/v1/notifications/log?limit=10', { token: a.session });
      expect(log.statusCode).toBe(200);
      expect(log.body.payload.map((i: { id: string }) => i.id)).toEqual([second!.id, first!.id]);
      expect(log.body.payload[0]).toMatchObject({
        channel: 'webhook',
        deliveryStatus: 'delivered',
        attempts: 1,
        status: 'InTransit',
        previousStatus: 'InfoReceived',
        tid: '1ZWEBHOOK0001',
      });
      expect(log.body.payload[0].deliveries).toEqual([
        expect.objectContaining({ httpStatus: 200, error: null, responseBody: 'answer 200' }),
      ]);
      expect(log.body.payload[0].body).toBe(second!.body);
      const other = await signUp(env.app);
      const otherLog = await call(env.app, 'GET', '/v1/notifications/log', { token: other.session });
      expect(otherLog.body.payload).toEqual([]);
      const otherResend = await call(env.app, 'POST', `/v1/notifications/resend/${first!.id}`, { token: other.session });
      expect(otherResend.statusCode).toBe(404);

      // Resend: same id, same body, a fresh signature that verifies.
      const re = await call(env.app, 'POST', `/v1/notifications/resend/${first!.id}`, { token: a.session });
      expect(re.statusCode).toBe(200);
      await eventually(async () => rx.received.length === 3);
      expect(rx.received[2]!.id).toBe(first!.id);
      expect(rx.received[2]!.body).toBe(first!.body);
      expect(rx.received[2]!.verifiedWith).toBe(a.secret);
      await waitFor(() => queuesIdle(env.ctx, [notifyJobs.webhook.name]), { message: 'webhook queue still busy' });
      expect(await quietWindow(QUIET_MS, () => rx.received.length)).toBe(3);
    } finally {
      await rx.close();
    }
  });

  it('signs with both secrets for 24 h after a rotation, so receivers holding either verify', async () => {
    const a = await account();
    let known = [a.secret];
    const rx = await startReceiver(() => known);
    try {
      await saveSettings(env, a.session, { receiveNotification: { webhook: { triggers: allTriggers, endpoint: rx.url } } });
      const rot = await call(env.app, 'POST', '/v1/user/webhook/secret/regenerate', { token: a.session });
      expect(rot.statusCode).toBe(200);
      const fresh = rot.body.payload.webhookSecret as string;
      expect(fresh).not.toBe(a.secret);
      expect(new Date(rot.body.payload.previousSecretValidUntil).getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000);
      const info = await call(env.app, 'GET', '/v1/user/info', { token: a.session });
      expect(info.body.payload.settings.webhookSecret).toBe(fresh);

      const t = await insertTracking(env.ctx, a.user.id);
      await changeStatus(env.ctx, t.id, 'InTransit');
      await eventually(async () => rx.received.length === 1);
      expect(rx.received[0]!.signature.split(' ')).toHaveLength(2);
      expect(rx.received[0]!.verifiedWith).toBe(a.secret); // a receiver that still holds the old secret
      known = [fresh];
      await changeStatus(env.ctx, t.id, 'Delivered');
      await eventually(async () => rx.received.length === 2);
      expect(rx.received[1]!.verifiedWith).toBe(fresh); // and one that switched

      // After the 24 hours only the new secret signs (the grace period is moved into the past).
      const { users } = await import('../../src/db/schema.ts');
      await env.ctx.db
        .update(users)
        .set({ webhookSecretPrevUntil: new Date(Date.now() - 1000) })
        .where(eq(users.id, a.user.id));
      known = [a.secret];
      const t2 = await insertTracking(env.ctx, a.user.id);
      await changeStatus(env.ctx, t2.id, 'InTransit');
      await eventually(async () => rx.received.length === 3);
      expect(rx.received[2]!.signature.split(' ')).toHaveLength(1);
      expect(rx.received[2]!.verifiedWith).toBeNull();
      known = [fresh];
      await changeStatus(env.ctx, t2.id, 'Delivered');
      await eventually(async () => rx.received.length === 4);
      expect(rx.received[3]!.verifiedWith).toBe(fresh);
    } finally {
      await rx.close();
    }
  });

  // The test moves a scheduled retry's job to now instead of waiting out its delay (decision 160).
  const retryNow = (id: string) =>
    env.ctx.db.execute(
      sql`update pgboss.job set start_after = now() where data->>'notificationId' = ${id} and state in ('created', 'retry')`,
    );
  const retryJobAt = async (id: string) => {
    const job = sql`select start_after from pgboss.job where data->>'notificationId' = ${id} and state in ('created', 'retry')`;
    const rows = resultRows<{ start_after: Date }>(await env.ctx.db.execute(job));
    return rows.map((r) => new Date(r.start_after).getTime());
  };

  it('retries while the receiver is down and delivers after it is back', async () => {
    // Delays of a minute and more: no retry comes due by itself while the test reads its schedule.
    fastTuning(env.ctx, { webhookBaseDelayMs: 60_000, webhookMaxDelayMs: 200_000 });
    const a = await account();
    const rx = await startReceiver(() => [a.secret]);
    try {
      await saveSettings(env, a.session, { receiveNotification: { webhook: { triggers: allTriggers, endpoint: rx.url } } });
      let fails = 3;
      rx.setRespond(() => (fails-- > 0 ? { status: 503 } : { status: 204 }));
      const t = await insertTracking(env.ctx, a.user.id);
      await changeStatus(env.ctx, t.id, 'Exception');
      // After each failed try the retry is scheduled on the backoff and its job waits until then; nothing more is sent.
      const delays: number[] = [];
      for (let k = 1; k <= 3; k++) {
        const n = await eventually(async () => {
          const [row] = await rowsOf(a.user.id);
          return row?.status === 'retrying' && row.attempts === k ? row : null;
        }, 20_000);
        const [last] = await env.ctx.db
          .select()
          .from(webhookAttempts)
          .where(eq(webhookAttempts.notificationId, n.id))
          .orderBy(desc(webhookAttempts.id))
          .limit(1);
        delays.push(n.nextAttemptAt!.getTime() - last!.createdAt.getTime());
        expect(await retryJobAt(n.id)).toEqual([n.nextAttemptAt!.getTime()]);
        expect(rx.received).toHaveLength(k);
        await retryNow(n.id);
      }
      await eventually(async () => (await rowsOf(a.user.id))[0]?.status === 'delivered', 20_000);
      const [n] = await rowsOf(a.user.id);
      const attempts = await env.ctx.db
        .select()
        .from(webhookAttempts)
        .where(eq(webhookAttempts.notificationId, n!.id))
        .orderBy(webhookAttempts.id);
      expect(attempts.map((x) => x.httpStatus)).toEqual([503, 503, 503, 204]);
      expect(n!.attempts).toBe(4);
      expect(new Set(rx.received.map((r) => r.id))).toEqual(new Set([n!.id]));
      expect(rx.received.every((r) => r.verifiedWith === a.secret)).toBe(true);
      // Backoff: 60 s base, doubled, capped at 200 s, ±20 % jitter. Each delay is read from the attempt's row, written
      // a moment after the delay was taken, so it may be short by that moment (1 s allowed), never long.
      const bands = [60_000, 120_000, 200_000].map((d) => [0.8 * d - 1000, 1.2 * d]);
      delays.forEach((d, i) => {
        expect(d).toBeGreaterThanOrEqual(bands[i]![0]!);
        expect(d).toBeLessThanOrEqual(bands[i]![1]!);
      });
      expect(delays[2]!).toBeGreaterThan(delays[0]!);
    } finally {
      fastTuning(env.ctx);
      await rx.close();
    }
  });

  it('keeps retrying through connection failures (receiver not listening), then delivers', async () => {
    const a = await account();
    const rx = await startReceiver(() => [a.secret]);
    try {
      await saveSettings(env, a.session, { receiveNotification: { webhook: { triggers: allTriggers, endpoint: rx.url } } });
      rx.setDown(true);
      const t = await insertTracking(env.ctx, a.user.id);
      await changeStatus(env.ctx, t.id, 'InTransit');
      await eventually(async () => ((await rowsOf(a.user.id))[0]?.attempts ?? 0) >= 2, 15_000);
      const [mid] = await rowsOf(a.user.id);
      expect(mid!.status).toBe('retrying');
      expect(mid!.lastError).toBeTruthy();
      expect(mid!.nextAttemptAt).not.toBeNull();
      rx.setDown(false);
      await eventually(async () => (await rowsOf(a.user.id))[0]?.status === 'delivered', 20_000);
      expect(rx.received).toHaveLength(1);
      expect(rx.received[0]!.verifiedWith).toBe(a.secret);
    } finally {
      await rx.close();
    }
  });

  it('honours Retry-After', async () => {
    const a = await account();
    const rx = await startReceiver(() => [a.secret]);
    try {
      await saveSettings(env, a.session, { receiveNotification: { webhook: { triggers: allTriggers, endpoint: rx.url } } });
      let first = true;
      rx.setRespond(() => {
        if (!first) return { status: 200 };
        first = false;
        return { status: 429, headers: { 'retry-after': '3' } };
      });
      const t = await insertTracking(env.ctx, a.user.id);
      await changeStatus(env.ctx, t.id, 'InTransit');
      const n = await eventually(async () => {
        const [row] = await rowsOf(a.user.id);
        return row?.status === 'retrying' ? row : null;
      });
      // The retry is scheduled for when the receiver asked, 3 s after its answer (without Retry-After it would be
      // ~600 ms: 300 ms base, doubled), and its job is not taken before then.
      expect(n.nextAttemptAt!.getTime() - rx.received[0]!.at).toBeGreaterThanOrEqual(3000);
      const job = sql`select start_after from pgboss.job where data->>'notificationId' = ${n.id} and state in ('created', 'retry')`;
      const [retry] = resultRows<{ start_after: Date }>(await env.ctx.db.execute(job));
      expect(new Date(retry!.start_after).getTime()).toBe(n.nextAttemptAt!.getTime());
      expect(rx.received).toHaveLength(1);
      // The test moves the clock instead of waiting it out: the job comes due now, and the retry is delivered.
      await env.ctx.db.execute(
        sql`update pgboss.job set start_after = now() where data->>'notificationId' = ${n.id} and state in ('created', 'retry')`,
      );
      // The receiver has the retry before the sender has read its answer: wait for the row, then count.
      await eventually(async () => (await rowsOf(a.user.id))[0]?.status === 'delivered', 20_000);
      expect((await rowsOf(a.user.id))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
      expect(rx.received).toHaveLength(2);
    } finally {
      await rx.close();
    }
  });

  it('gives up after the retry window, marks the delivery failed and raises one alert', async () => {
    // The production window (three days): the test moves the clock past it instead of standing in a short one.
    const a = await account();
    const rx = await startReceiver(() => [a.secret]);
    const clock = env.ctx.now;
    try {
      await saveSettings(env, a.session, { receiveNotification: { webhook: { triggers: allTriggers, endpoint: rx.url } } });
      rx.setRespond(() => ({ status: 500 }));
      const t = await insertTracking(env.ctx, a.user.id);
      await changeStatus(env.ctx, t.id, 'InTransit');
      // Inside the window the failure is retried, and no alert is raised.
      const n = await eventually(async () => {
        const [row] = await rowsOf(a.user.id);
        return row?.status === 'retrying' ? row : null;
      });
      expect(n.attempts).toBe(1);
      const alertsOf = async () =>
        (await env.ctx.db.select().from(alerts).where(eq(alerts.userId, a.user.id))).filter((x) => x.name === 'webhookFailed');
      expect(await alertsOf()).toHaveLength(0);
      // Three days and a minute later, the retry finds the window over.
      env.ctx.now = () => new Date(Date.now() + 3 * 24 * 3600_000 + 60_000);
      await retryNow(n.id);
      await eventually(async () => (await rowsOf(a.user.id))[0]?.status === 'failed');
      expect(rx.received).toHaveLength(2);
      expect((await rowsOf(a.user.id))[0]).toMatchObject({ status: 'failed', attempts: 2, nextAttemptAt: null });
      expect(await retryJobAt(n.id)).toEqual([]);
      const failed = await alertsOf();
      expect(failed).toHaveLength(1);
      expect(failed[0]!.message).toContain(rx.url);
      expect(failed[0]!.message).toContain('HTTP 500');
      expect(failed[0]!.message).toContain('72 hours');
    } finally {
      env.ctx.now = clock;
      await rx.close();
    }
  });

  it('410 Gone turns the webhook off and raises an alert; no further deliveries', async () => {
    const a = await account();
    const rx = await startReceiver(() => [a.secret]);
    try {
      await saveSettings(env, a.session, { receiveNotification: { webhook: { triggers: allTriggers, endpoint: rx.url } } });
      rx.setRespond(() => ({ status: 410 }));
      const t = await insertTracking(env.ctx, a.user.id);
      await changeStatus(env.ctx, t.id, 'InTransit');
      await eventually(async () => (await rowsOf(a.user.id))[0]?.status === 'disabled');
      const info = await call(env.app, 'GET', '/v1/user/info', { token: a.session });
      const hook = info.body.payload.settings.receiveNotification.webhook;
      expect(Object.values(hook.triggers).some(Boolean)).toBe(false);
      expect(hook.endpoint).toBe(rx.url);
      expect(info.body.payload.alerts.general.map((x: { name: string }) => x.name)).toContain('webhookDisabled');
      const stored = await env.ctx.db.select().from(alerts).where(eq(alerts.userId, a.user.id));
      expect(stored.find((x) => x.name === 'webhookDisabled')!.message).toContain('410');
      await changeStatus(env.ctx, t.id, 'Delivered');
      await waitFor(() => queuesIdle(env.ctx, [notifyJobs.webhook.name]), { message: 'webhook queue still busy' });
      expect(await quietWindow(QUIET_MS, async () => [rx.received.length, (await rowsOf(a.user.id)).length])).toEqual([1, 1]);
    } finally {
      await rx.close();
    }
  });
});

describe('webhook SSRF guard at send', () => {
  // The app is built in the hook (60 s), not in the test (30 s): at load 35 building it took most of the test's time.
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
    fastTuning(env.ctx);
    await startJobWorkers(env.ctx, Object.values(notifyJobs));
  });
  afterAll(async () => {
    await env.close();
  });

  it('refuses a loopback receiver when WEBHOOK_ALLOW_PRIVATE is off, and logs why', async () => {
    const a = await signUp(env.app);
    const rx = await startReceiver(() => []);
    try {
      const u = await userRow(env.ctx, a.email);
      // Saved directly, as if DNS had pointed the name elsewhere when it was saved.
      const { users } = await import('../../src/db/schema.ts');
      await env.ctx.db
        .update(users)
        .set({ settings: { receiveNotification: { webhook: { triggers: allTriggers, endpoint: rx.url } } } })
        .where(eq(users.id, u.id));
      const t = await insertTracking(env.ctx, u.id);
      await changeStatus(env.ctx, t.id, 'InTransit');
      await eventually(
        async () => (await env.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id)))[0]?.status === 'failed',
      );
      const log = await call(env.app, 'GET', '/v1/notifications/log', { token: a.session });
      expect(log.body.payload[0].deliveries[0].error).toMatch(/public address/);
      expect(rx.received).toHaveLength(0);
    } finally {
      await rx.close();
    }
  });
});
