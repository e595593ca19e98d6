// A status change on the embedded database holds its only connection from BEGIN to COMMIT, one round trip between
// the threads per statement (decision 140), so what it costs is counted in statements (decision 148): the fan-out
// takes the event, tracking and account the trackings module just wrote or holds instead of reading them back.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEventSchema } from '@shiptrail/contract';
import { notifications } from '../../src/db/schema.ts';
import { call, createTestEnv, onPostgres, signUp, type TestEnv } from '../helpers.ts';
import { allTriggers, insertTracking, saveSettings, userRow } from './fixtures.ts';

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
});
