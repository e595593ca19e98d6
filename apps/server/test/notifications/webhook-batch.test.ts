// A fetched batch of webhook jobs is delivered as one (deliverWebhooks): one statement takes the leases, one
// settles the 2xx answers; any other answer and any notification the batch could not take go the one-at-a-time
// way. What must hold: each notification posted once per attempt, every attempt logged, retries scheduled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { notifications, webhookAttempts } from '../../src/db/schema.ts';
import { deliverWebhook, deliverWebhooks } from '../../src/modules/notifications/delivery.ts';
import { takeLease } from '../../src/modules/notifications/notifications.repository.ts';
import { QUIET_MS, quietWindow } from '../wait.ts';
import { createTestEnv, eventually, signUp, type TestEnv } from '../helpers.ts';
import { allTriggers, changeStatus, fastTuning, insertTracking, saveSettings, startSlowReceiver, userRow } from './fixtures.ts';

describe('a batch of webhook jobs', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    fastTuning(env.ctx);
  });
  afterAll(async () => {
    await env.close();
  });

  /** `count` status changes of one account whose webhook points at `url`: their notifications. */
  async function notifications_(url: string, count: number, prefix: string) {
    const a = await signUp(env.app);
    await saveSettings(env, a.session, { receiveNotification: { webhook: { triggers: allTriggers, endpoint: url } } });
    const u = await userRow(env.ctx, a.email);
    for (let i = 0; i < count; i++)
      await changeStatus(env.ctx, (await insertTracking(env.ctx, u.id, { tid: `${prefix}${i}` })).id, 'InTransit');
    return env.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id));
  }
  const jobsFor = (ns: Array<{ id: string }>, attempt = 0) =>
    ns.map((n, i) => ({ jobId: `job-${i}-${n.id}`, data: { v: 1 as const, notificationId: n.id, attempt } }));
  const rows = (ids: string[]) => env.ctx.db.select().from(notifications).where(inArray(notifications.id, ids));
  const attemptsOf = (ids: string[]) => env.ctx.db.select().from(webhookAttempts).where(inArray(webhookAttempts.notificationId, ids));

  it('posts each notification once, logs one attempt each and settles them all; a second run posts nothing', async () => {
    const rx = await startSlowReceiver();
    try {
      const ns = await notifications_(rx.url, 5, '1ZBATCHA');
      const ids = ns.map((n) => n.id);
      expect(await deliverWebhooks(env.ctx, jobsFor(ns))).toEqual([null, null, null, null, null]);
      expect([...rx.ids].sort()).toEqual([...ids].sort());
      for (const r of await rows(ids))
        expect(r).toMatchObject({ status: 'delivered', attempts: 1, leaseUntil: null, providerId: 'http-200' });
      expect((await attemptsOf(ids)).map((a) => a.httpStatus)).toEqual([200, 200, 200, 200, 200]);
      // The same jobs again (pg-boss retrying jobs thought dead): attempt 0 is done.
      expect(await deliverWebhooks(env.ctx, jobsFor(ns))).toEqual([null, null, null, null, null]);
      expect(await quietWindow(QUIET_MS, () => rx.ids.length)).toBe(5);
      expect(await attemptsOf(ids)).toHaveLength(5);
    } finally {
      await rx.close();
    }
  });

  it('a refused answer is retried on its own schedule while the others of its batch are delivered', async () => {
    const rx = await startSlowReceiver();
    try {
      const ns = await notifications_(rx.url, 3, '1ZBATCHB');
      rx.refuse.add(ns[1]!.id);
      expect(await deliverWebhooks(env.ctx, jobsFor(ns))).toEqual([null, null, null]);
      const byId = new Map((await rows(ns.map((n) => n.id))).map((r) => [r.id, r]));
      expect(byId.get(ns[0]!.id)).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(byId.get(ns[2]!.id)).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(byId.get(ns[1]!.id)).toMatchObject({ status: 'retrying', attempts: 1, lastError: 'HTTP 503', leaseUntil: null });
      expect(byId.get(ns[1]!.id)!.nextAttemptAt).not.toBeNull();
      expect((await attemptsOf([ns[1]!.id])).map((a) => a.httpStatus)).toEqual([503]);
      // Its next attempt (the job the retry scheduled) delivers it.
      rx.refuse.clear();
      expect(await deliverWebhooks(env.ctx, jobsFor([ns[1]!], 1))).toEqual([null]);
      expect((await rows([ns[1]!.id]))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
    } finally {
      await rx.close();
    }
  });

  it('a notification twice in a batch, or held by a live attempt elsewhere, is posted once', async () => {
    const rx = await startSlowReceiver(800);
    try {
      const [held, twice] = await notifications_(rx.url, 2, '1ZBATCHC');
      // Another worker is sending `held` right now.
      const elsewhere = deliverWebhook(env.ctx, { v: 1, notificationId: held!.id, attempt: 0 });
      await eventually(async () => (rx.ids.includes(held!.id) ? true : null), 10_000, 20);
      const jobs = jobsFor([held!, twice!, twice!]);
      expect(await deliverWebhooks(env.ctx, jobs)).toEqual([null, null, null]);
      await elsewhere;
      expect(await quietWindow(QUIET_MS, () => [...rx.ids].sort())).toEqual([held!.id, twice!.id].sort());
      for (const r of await rows([held!.id, twice!.id])) expect(r).toMatchObject({ status: 'delivered', attempts: 1, leaseUntil: null });
      expect(await takeLease(env.ctx.db, twice!.id, 2, 0)).toEqual({ held: false, done: true });
    } finally {
      await rx.close();
    }
  });

  // A worker that died holding a lease leaves it to run out. The batch cannot take that notification, so its job goes
  // the one-at-a-time way: it waits for the lease to lapse and posts it, rather than being counted done unsent.
  it("a notification whose lease a dead worker left is posted by the batch's job once the lease runs out", async () => {
    const rx = await startSlowReceiver(0);
    try {
      const [orphan, other] = await notifications_(rx.url, 2, '1ZBATCHO');
      expect(await takeLease(env.ctx.db, orphan!.id, 1, 0)).toMatchObject({ held: true });
      expect(await deliverWebhooks(env.ctx, jobsFor([orphan!, other!]))).toEqual([null, null]);
      expect([...rx.ids].sort()).toEqual([orphan!.id, other!.id].sort());
      for (const r of await rows([orphan!.id, other!.id])) expect(r).toMatchObject({ status: 'delivered', attempts: 1, leaseUntil: null });
      expect((await attemptsOf([orphan!.id])).length).toBe(1);
    } finally {
      await rx.close();
    }
  });
});
