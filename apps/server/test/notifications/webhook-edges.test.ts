// The edges of webhook delivery that the integration tests pass over (issue 27, delivery-2), run by hand against
// a loopback receiver and the real database: a job with nothing to do posts nothing; an answer settled one at a
// time records what was answered; a post that throws, or a settle the database refuses, gives the lease back and
// the job is retried while the rest of its batch is delivered; the alerts of a given-up and a gone endpoint; and
// the line an operator follows to each outcome (one per outcome: the notification's and its event's ids, the
// attempt, the answer and the error).
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq, inArray, sql } from 'drizzle-orm';
import { alerts, notifications, webhookAttempts } from '../../src/db/schema.ts';
import { deliverWebhook, deliverWebhooks } from '../../src/modules/notifications/delivery.ts';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { allTriggers, changeStatus, fastTuning, insertTracking, saveSettings, startReceiver, userRow } from './fixtures.ts';
import { startDnsServer } from './dns-server.ts';

type Line = { msg?: string; level?: number; [k: string]: unknown };

describe('webhook delivery at its edges', () => {
  let env: TestEnv;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  const lines: Line[] = [];
  beforeAll(async () => {
    rx = await startReceiver(() => []);
    // Webhook hosts are looked up on a DNS server of our own on loopback: it answers at once, and can fail.
    dns = await startDnsServer();
    const logTo = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
        done();
      },
    });
    env = await createTestEnv({ WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'info', WEBHOOK_DNS_SERVERS: dns.server }, { logTo });
  });
  beforeEach(() => {
    fastTuning(env.ctx);
    env.ctx.resources.notificationFaults = undefined;
    rx.setRespond(() => ({ status: 200 }));
  });
  afterAll(async () => {
    await env.close();
    await rx.close();
    await dns.close();
  });

  /** `count` status changes of one account whose webhook points at `url`: the account and their notifications (jobs not run). */
  async function queued(count: number, prefix: string, url = rx.url) {
    const a = await signUp(env.app);
    await saveSettings(env, a.session, { receiveNotification: { webhook: { triggers: allTriggers, endpoint: url } } });
    const u = await userRow(env.ctx, a.email);
    for (let i = 0; i < count; i++)
      await changeStatus(env.ctx, (await insertTracking(env.ctx, u.id, { tid: `${prefix}${i}` })).id, 'InTransit');
    const ns = await env.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id)).orderBy(notifications.id);
    return { u, ns };
  }
  const job = (n: { id: string }, attempt = 0) => ({ v: 1 as const, notificationId: n.id, attempt });
  const jobsFor = (ns: Array<{ id: string }>) => ns.map((n, i) => ({ jobId: `job-${i}-${n.id}`, data: job(n) }));
  const row = async (id: string) => (await env.ctx.db.select().from(notifications).where(eq(notifications.id, id)))[0]!;
  const attemptsOf = (ids: string[]) =>
    env.ctx.db.select().from(webhookAttempts).where(inArray(webhookAttempts.notificationId, ids)).orderBy(webhookAttempts.id);
  const posts = (id: string) => rx.received.filter((r) => r.id === id).length;
  const today = () => env.ctx.now().toISOString().slice(0, 10);
  /** The outcome lines logged for a notification (logOutcome): level (30 info, 40 warn), words and fields. */
  const outcomes = (n: { id: string; eventId: string }) =>
    lines
      .filter((l) => l.notificationId === n.id && l.outcome !== undefined)
      .map(({ level, msg, outcome, attempt, httpStatus, error, eventId, channel }) => {
        expect({ eventId, channel }).toEqual({ eventId: n.eventId, channel: 'webhook' });
        return { level, msg, outcome, attempt, httpStatus, ...(error !== undefined ? { error } : {}) };
      });

  it('a job whose notification is gone, already settled, or at another attempt posts nothing', async () => {
    await expect(deliverWebhook(env.ctx, job({ id: randomUUID() }))).resolves.toBeUndefined();
    const { ns } = await queued(2, '1ZWHEDGEA');
    const [stale, settled] = ns;
    // A job for attempt 1 while the notification is at attempt 0 (a stale or duplicate job).
    await deliverWebhook(env.ctx, job(stale!, 1));
    await env.ctx.db.update(notifications).set({ status: 'delivered' }).where(eq(notifications.id, settled!.id));
    await deliverWebhook(env.ctx, job(settled!));
    expect(
      await deliverWebhooks(env.ctx, [
        { jobId: 'j1', data: job(stale!, 1) },
        { jobId: 'j2', data: job(settled!) },
      ]),
    ).toEqual([null, null]);
    expect([posts(stale!.id), posts(settled!.id)]).toEqual([0, 0]);
    expect(await row(stale!.id)).toMatchObject({ status: 'pending', attempts: 0, leaseUntil: null });
    expect(await attemptsOf([stale!.id, settled!.id])).toEqual([]);
  });

  it('one at a time, a 2xx answer settles the notification delivered with what was answered', async () => {
    const { ns } = await queued(1, '1ZWHEDGEB');
    const n = ns[0]!;
    rx.setRespond(() => ({ status: 202 }));
    await deliverWebhook(env.ctx, job(n));
    expect(posts(n.id)).toBe(1);
    expect(await row(n.id)).toMatchObject({
      status: 'delivered',
      attempts: 1,
      providerId: 'http-202',
      lastError: null,
      nextAttemptAt: null,
      leaseUntil: null,
      acceptedAt: expect.any(Date),
    });
    expect(await attemptsOf([n.id])).toEqual([
      expect.objectContaining({ httpStatus: 202, error: null, responseBody: 'answer 202', durationMs: expect.any(Number) }),
    ]);
    expect(outcomes(n)).toEqual([{ level: 30, msg: 'notification delivered', outcome: 'delivered', attempt: 0, httpStatus: 202 }]);
  });

  it('an address refused at send (the host no longer resolves) fails the notification and logs why', async () => {
    const { ns } = await queued(1, '1ZWHEDGEH');
    const n = ns[0]!;
    // As if the name had stopped resolving since the URL was saved: the DNS server says it does not exist (NXDOMAIN).
    await env.ctx.db.update(notifications).set({ recipient: 'https://hooks.example.invalid/in' }).where(eq(notifications.id, n.id));
    await deliverWebhook(env.ctx, job(n));
    expect(dns.asked).toContain('hooks.example.invalid');
    expect(posts(n.id)).toBe(0);
    expect(await row(n.id)).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null, leaseUntil: null });
    const why = 'The webhook host hooks.example.invalid could not be resolved';
    expect((await row(n.id)).lastError).toBe(why);
    expect(await attemptsOf([n.id])).toEqual([expect.objectContaining({ httpStatus: null, durationMs: 0, error: why })]);
    expect(outcomes(n)).toEqual([{ level: 40, msg: 'notification failed', outcome: 'failed', attempt: 0, error: why }]);
  });

  it('a host the resolver cannot look up just now is kept at save, retried at send, and delivered once it answers', async () => {
    // The DNS server fails (SERVFAIL) for the shop's host: the resolver is down, the name is not wrong.
    dns.set('hooks.shop-down.test', 'servfail');
    const url = `http://hooks.shop-down.test:${new URL(rx.url).port}/in`;
    const { u, ns } = await queued(1, '1ZWHEDGEL', url);
    const n = ns[0]!;
    expect(
      ((await userRow(env.ctx, u.email)).settings as { receiveNotification: { webhook: { endpoint: string } } }).receiveNotification.webhook
        .endpoint,
    ).toBe(url);
    await deliverWebhook(env.ctx, job(n));
    const why = 'The webhook host hooks.shop-down.test could not be looked up just now (ESERVFAIL)';
    const r = await row(n.id);
    expect(r).toMatchObject({ status: 'retrying', attempts: 1, lastError: why, leaseUntil: null });
    expect(r.nextAttemptAt).not.toBeNull();
    expect(posts(n.id)).toBe(0);
    expect(await attemptsOf([n.id])).toEqual([expect.objectContaining({ httpStatus: null, error: why })]);
    expect(outcomes(n)).toEqual([
      { level: 40, msg: 'notification retrying', outcome: 'retrying', attempt: 0, httpStatus: null, error: why },
    ]);
    // The resolver is back: the retry looks the host up again, posts once, and the notification is delivered.
    dns.set('hooks.shop-down.test', { a: '127.0.0.1' });
    await deliverWebhook(env.ctx, job(n, 1));
    expect(posts(n.id)).toBe(1);
    expect(await row(n.id)).toMatchObject({ status: 'delivered', attempts: 2, lastError: null });
  });

  it('a host that does not exist is still refused at save, with the field error', async () => {
    const a = await signUp(env.app);
    await expect(
      saveSettings(env, a.session, {
        receiveNotification: { webhook: { triggers: allTriggers, endpoint: 'https://no-such-host.test/in' } },
      }),
    ).rejects.toThrow(/The webhook host no-such-host.test could not be resolved/);
  });

  it('a refused connection is recorded with its own error, not as an HTTP status, and retried', async () => {
    const closed = await startReceiver(() => []);
    const url = closed.url;
    await closed.close();
    const { ns } = await queued(1, '1ZWHEDGEC', url);
    const n = ns[0]!;
    await deliverWebhook(env.ctx, job(n));
    const r = await row(n.id);
    expect(r).toMatchObject({ status: 'retrying', attempts: 1, leaseUntil: null });
    expect(r.lastError).toMatch(/ECONNREFUSED/);
    expect(r.nextAttemptAt!.getTime()).toBeGreaterThan(env.ctx.now().getTime() - 60_000);
    expect(await attemptsOf([n.id])).toEqual([expect.objectContaining({ httpStatus: null, error: expect.stringMatching(/ECONNREFUSED/) })]);
    expect(outcomes(n)).toEqual([
      { level: 40, msg: 'notification retrying', outcome: 'retrying', attempt: 0, httpStatus: null, error: r.lastError },
    ]);
  });

  it('a post that throws gives its lease back and is retried by its job, while the rest of the batch is delivered', async () => {
    const { ns } = await queued(3, '1ZWHEDGED');
    const broken = ns[1]!.id;
    env.ctx.resources.notificationFaults = {
      beforeSend(id) {
        if (id === broken) throw new Error('worker lost its signing key');
      },
    };
    const errors = await deliverWebhooks(env.ctx, jobsFor(ns));
    expect(errors.map((e) => e?.message ?? null)).toEqual([null, 'worker lost its signing key', null]);
    expect(await row(broken)).toMatchObject({ status: 'pending', attempts: 0, leaseUntil: null });
    expect(posts(broken)).toBe(0);
    for (const id of [ns[0]!.id, ns[2]!.id]) expect(await row(id)).toMatchObject({ status: 'delivered', attempts: 1 });
    // Settled together, each delivered one has its own line; the one whose post threw has none (its job's error is pg-boss's).
    for (const n of [ns[0]!, ns[2]!])
      expect(outcomes(n)).toEqual([{ level: 30, msg: 'notification delivered', outcome: 'delivered', attempt: 0, httpStatus: 200 }]);
    expect(outcomes(ns[1]!)).toEqual([]);
    // The job's retry delivers it.
    env.ctx.resources.notificationFaults = undefined;
    expect(await deliverWebhooks(env.ctx, jobsFor([ns[1]!]))).toEqual([null]);
    expect(await row(broken)).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it("when the batch's joint settle fails, each answer is settled on its own; one the database refuses is retried", async () => {
    const { ns } = await queued(3, '1ZWHEDGEE');
    const refused = ns[2]!.id;
    // The database refuses any log of this notification's attempt: the joint settle (one statement for all three)
    // fails, then this one's own settle fails too.
    await env.ctx.db.execute(
      sql.raw(`create function refuse_attempt_log() returns trigger language plpgsql as $$
        begin
          if new.notification_id = '${refused}' then raise exception 'attempt log unavailable'; end if;
          return new;
        end $$`),
    );
    await env.ctx.db.execute(
      sql.raw('create trigger refuse_attempt_log before insert on webhook_attempts for each row execute function refuse_attempt_log()'),
    );
    let errors: Array<Error | null>;
    try {
      errors = await deliverWebhooks(env.ctx, jobsFor(ns));
    } finally {
      await env.ctx.db.execute(sql.raw('drop trigger refuse_attempt_log on webhook_attempts'));
      await env.ctx.db.execute(sql.raw('drop function refuse_attempt_log()'));
    }
    expect(errors.map((e) => e !== null)).toEqual([false, false, true]);
    expect(lines.filter((l) => l.msg === 'webhook batch settle failed: settling one by one')).toEqual([
      // err: the failed statement as the driver words it (its text, cut at 500 characters).
      expect.objectContaining({ level: 40, deliveries: 3, err: expect.stringContaining('webhook_attempts') }),
    ]);
    // Settled one by one, the two the database took have a line each.
    for (const n of [ns[0]!, ns[1]!])
      expect(outcomes(n)).toEqual([{ level: 30, msg: 'notification delivered', outcome: 'delivered', attempt: 0, httpStatus: 200 }]);
    for (const id of [ns[0]!.id, ns[1]!.id])
      expect(await row(id)).toMatchObject({ status: 'delivered', attempts: 1, providerId: 'http-200', leaseUntil: null });
    expect((await attemptsOf([ns[0]!.id, ns[1]!.id])).map((a) => a.httpStatus)).toEqual([200, 200]);
    // Posted, but not recorded: the lease is given back so the job's retry posts it again at once.
    expect(await row(refused)).toMatchObject({ status: 'pending', attempts: 0, leaseUntil: null });
    expect(await deliverWebhooks(env.ctx, jobsFor([ns[2]!]))).toEqual([null]);
    expect(await row(refused)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(posts(refused)).toBe(2);
  });

  it('gives up on an event older than the retry window with one warning that says how long it tried and why', async () => {
    const { u, ns } = await queued(1, '1ZWHEDGEF');
    const n = ns[0]!;
    await env.ctx.db
      .update(notifications)
      .set({ createdAt: sql`now() - interval '4 days'` })
      .where(eq(notifications.id, n.id));
    rx.setRespond(() => ({ status: 500 }));
    await deliverWebhook(env.ctx, job(n));
    expect(await row(n.id)).toMatchObject({ status: 'failed', attempts: 1, lastError: 'HTTP 500', nextAttemptAt: null, leaseUntil: null });
    expect(outcomes(n)).toEqual([
      { level: 40, msg: 'notification failed', outcome: 'failed', attempt: 0, httpStatus: 500, error: 'HTTP 500' },
    ]);
    expect(await env.ctx.db.select().from(alerts).where(eq(alerts.userId, u.id))).toEqual([
      expect.objectContaining({
        group: 'general',
        name: 'webhookFailed',
        level: 'warning',
        message: `We could not deliver a webhook to ${rx.url} after retrying for 72 hours (last error: HTTP 500). You can resend it from the delivery log in the notification settings.`,
        dedupeKey: `webhook-failed:${rx.url}:${today()}`,
      }),
    ]);
  });

  it('410 Gone: the notification is disabled, the webhook turned off and one danger alert says how to turn it back on', async () => {
    const { u, ns } = await queued(1, '1ZWHEDGEG');
    const n = ns[0]!;
    rx.setRespond(() => ({ status: 410 }));
    await deliverWebhook(env.ctx, job(n));
    expect(await row(n.id)).toMatchObject({
      status: 'disabled',
      attempts: 1,
      lastError: 'HTTP 410',
      nextAttemptAt: null,
      leaseUntil: null,
    });
    expect(outcomes(n)).toEqual([
      { level: 30, msg: 'notification disabled', outcome: 'disabled', attempt: 0, httpStatus: 410, error: 'HTTP 410' },
    ]);
    const settings = (await userRow(env.ctx, u.email)).settings as {
      receiveNotification: { webhook: { triggers: object; endpoint: string } };
    };
    expect(settings.receiveNotification.webhook).toMatchObject({ triggers: {}, endpoint: rx.url });
    expect(await env.ctx.db.select().from(alerts).where(eq(alerts.userId, u.id))).toEqual([
      expect.objectContaining({
        group: 'general',
        name: 'webhookDisabled',
        level: 'danger',
        message: `Your webhook endpoint ${rx.url} answered 410 Gone, so webhook notifications were turned off. Tick the webhook triggers again in the notification settings to turn them back on.`,
        dedupeKey: `webhook-gone:${rx.url}:${today()}`,
      }),
    ]);
  });
});
