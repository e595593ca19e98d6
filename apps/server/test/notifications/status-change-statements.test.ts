// A status change on the embedded database holds its only connection from BEGIN to COMMIT, one round trip between
// the threads per statement (decision 140), so what it costs is counted in statements (decision 148): the fan-out
// takes the event, tracking and account the trackings module just wrote or holds instead of reading them back. A refresh
// batch writes the notifications of all its status changes together (decision 177).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEventSchema } from '@shiptrail/contract';
import { notifications, trackingEvents } from '../../src/db/schema.ts';
import { runDueRefreshes } from '../../src/modules/trackings/refresh.ts';
import { call, createTestEnv, onPostgres, signUp, type TestEnv } from '../helpers.ts';
import { rowsOf } from '../../src/db/client.ts';
import { allTriggers, insertTracking, saveSettings, userRow } from './fixtures.ts';
import { whileCarrierAnswersAll } from '../trackings/fixtures.ts';

describe.skipIf(onPostgres)('a status change on the embedded database, counted in statements', () => {
  let env: TestEnv;
  let dir: string;
  beforeAll(async () => {
    // A data directory: PGlite in its own thread (decision 115), whose stats count each transaction's statements.
    dir = await mkdtemp(path.join(os.tmpdir(), 'shiptrail-fanout-'));
    env = await createTestEnv({ DATA_DIR: dir, WEBHOOK_ALLOW_PRIVATE: 'true' });
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('marking a parcel delivered runs 7 statements in its transaction: the fan-out reads nothing back', async () => {
    const thread = env.ctx.database.thread;
    expect(thread).toBeDefined();
    const a = await signUp(env.app);
    await saveSettings(env, a.session, {
      receiveNotification: { webhook: { triggers: allTriggers, endpoint: 'http://127.0.0.1:9/hook' } },
    });
    const user = await userRow(env.ctx, a.email);
    const t = await insertTracking(env.ctx, user.id, { tid: '1ZSTATEMENTS0001', status: 'InTransit' });

    await thread!.stats(true);
    const done = await call(env.app, 'GET', `/v1/trackings/delivered/${t.tid}`, { token: a.session });
    expect(done.statusCode).toBe(200);
    const { transactionStatements } = await thread!.stats(true);
    // The lock, the scan, the tracking's update, the event, the notification, its job and the live event; the
    // context select the fan-out made before (event, tracking, shipment and account joined) was the 8th.
    expect(transactionStatements).toMatchObject({ n: 1, max: 7 });

    // The webhook is what it was: built from the rows the transaction wrote.
    const [n] = await env.ctx.db.select().from(notifications).where(eq(notifications.userId, user.id));
    const body = webhookEventSchema.parse(JSON.parse((n!.payload as { body: string }).body));
    expect(body.data).toMatchObject({ status: 'Delivered', previousStatus: 'InTransit' });
    expect(body.data.tracking).toMatchObject({ tid: t.tid, status: 'Delivered', title: 'Blue sofa' });
    expect(body.data.tracking.lastCheckPoint).toMatchObject({ status: 'Delivered', message: 'Marked as delivered' });
  });

  it("a refresh batch of 10 status changes to an account's webhook and e-mail writes their notifications in one statement and their jobs in one a channel", async () => {
    const thread = env.ctx.database.thread!;
    const a = await signUp(env.app);
    await saveSettings(env, a.session, {
      receiveNotification: {
        webhook: { triggers: allTriggers, endpoint: 'http://127.0.0.1:9/hook' },
        email: { triggers: allTriggers, endpoint: '' },
      },
    });
    const user = await userRow(env.ctx, a.email);
    const ts = [];
    for (let i = 0; i < 10; i++)
      ts.push(
        await insertTracking(env.ctx, user.id, {
          tid: `1ZBATCHFAN${String(i).padStart(6, '0')}`,
          nextCheckAt: new Date(Date.now() - 1000),
        }),
      );
    // The carrier answers every number at once: each moves to InTransit with one scan.
    await thread.stats(true);
    expect(await whileCarrierAnswersAll(env, () => runDueRefreshes(env.ctx))).toMatchObject({ fetched: 10, changed: 10, failed: 0 });
    const { transactionStatements } = await thread.stats(true);
    // One apply transaction: the lock, the scans, the rows, the events, their context, the notifications, a job
    // statement for each of the two channels and the live events; 36 when each event wrote its own three.
    expect(transactionStatements).toMatchObject({ n: 1, max: 9 });
    // Every change told once on each channel, each notification with its one job.
    for (const t of ts) {
      const [e] = await env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, t.id));
      const ns = await env.ctx.db.select().from(notifications).where(eq(notifications.eventId, e!.id));
      expect(ns.map((n) => `${n.channel} ${n.audience} ${n.status}`).sort()).toEqual(['email receive pending', 'webhook receive pending']);
    }
    const jobs = rowsOf<{ name: string; n: number }>(
      await env.ctx.db.execute(sql`select name, count(*)::int as n from pgboss.job where data->>'notificationId' in (
        select id::text from notifications where user_id = ${user.id}) group by name order by name`),
    );
    expect(jobs).toEqual([
      { name: 'notify-email', n: 10 },
      { name: 'notify-webhook', n: 10 },
    ]);
  });
});
