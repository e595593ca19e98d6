// The line that ties a status change to its notifications ("status change: notifications queued", fanout.ts): an
// operator follows it from the change (its event, tracking or shipment, from and to) to each notification's id and,
// from there, to its delivery lines (delivery.ts). The customer messages a gate held or limited say so in it.
import { Writable } from 'node:stream';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client.ts';
import { notifications, trackingEvents } from '../../src/db/schema.ts';
import { runDueRefreshes } from '../../src/modules/trackings/refresh.ts';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { readmeShipment } from '../shipments/fixtures.ts';
import { whileCarrierAnswersAll } from '../trackings/fixtures.ts';
import { changeStatus, insertTracking, saveSettings, userRow } from './fixtures.ts';

type Line = { msg?: string; [k: string]: unknown };

describe('the log line of a status change names its notifications', () => {
  const lines: Line[] = [];
  let env: TestEnv;
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
        done();
      },
    });
    env = await createTestEnv({ LOG_LEVEL: 'info' }, { logTo: sink });
  });
  afterAll(async () => {
    await env?.close();
  });

  const queuedLines = (eventId: string) => lines.filter((l) => l.msg === 'status change: notifications queued' && l.eventId === eventId);
  const notificationsOf = async (eventId: string) =>
    (await env.ctx.db.select().from(notifications).where(eq(notifications.eventId, eventId))).map((n) => ({
      id: n.id,
      channel: n.channel,
      status: n.status,
    }));

  it("a tracking's change: its event, tracking, statuses and each pending notification by id and channel", async () => {
    const a = await signUp(env.app);
    await saveSettings(env, a.session, { receiveNotification: { email: { triggers: { InTransit: true } } } });
    const t = await insertTracking(env.ctx, (await userRow(env.ctx, a.email)).id);
    const eventId = await changeStatus(env.ctx, t.id, 'InTransit');
    const rows = await notificationsOf(eventId);
    expect(rows).toEqual([{ id: expect.any(String), channel: 'email', status: 'pending' }]);
    const [line, ...more] = queuedLines(eventId);
    expect(more).toEqual([]);
    expect(line).toMatchObject({ trackingId: t.id, fromStatus: 'Pending', toStatus: 'InTransit' });
    // A pending notification is listed without a status.
    expect(line!.notifications).toEqual([{ id: rows[0]!.id, channel: 'email' }]);
  });

  it("a refresh batch's changes, their notifications written together: a line each, naming its own notifications", async () => {
    const a = await signUp(env.app);
    await saveSettings(env, a.session, { receiveNotification: { email: { triggers: { InTransit: true } } } });
    const user = await userRow(env.ctx, a.email);
    const ts = [];
    for (let i = 0; i < 3; i++)
      ts.push(
        await insertTracking(env.ctx, user.id, {
          tid: `1ZLOGBATCH${String(i).padStart(6, '0')}`,
          nextCheckAt: new Date(Date.now() - 1000),
        }),
      );
    expect(await whileCarrierAnswersAll(env, () => runDueRefreshes(env.ctx))).toMatchObject({ fetched: 3, changed: 3 });
    for (const t of ts) {
      const [e] = await env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, t.id));
      const rows = await notificationsOf(e!.id);
      expect(rows).toEqual([{ id: expect.any(String), channel: 'email', status: 'pending' }]);
      const [line, ...more] = queuedLines(e!.id);
      expect(more).toEqual([]);
      expect(line).toMatchObject({ trackingId: t.id, fromStatus: 'Pending', toStatus: 'InTransit' });
      expect(line!.notifications).toEqual([{ id: rows[0]!.id, channel: 'email' }]);
    }
  });

  it("a shipment's change by an unverified company: its customer messages listed as held", async () => {
    const c = await signUp(env.app, { userType: 'company', company: 'Log & Co' });
    const triggers = { InTransit: true };
    await saveSettings(env, c.session, { sendNotification: { email: { triggers }, phone: { triggers } } });
    const body = readmeShipment();
    const s = await call(env.app, 'POST', '/v1/shipment/create', {
      token: c.session,
      body: { ...body, destination: { ...body.destination, email: 'customer@example.net', phone: '+12025550150' } },
    });
    expect(s.statusCode, JSON.stringify(s.body)).toBe(201);
    const tid = s.body.payload.tid as string;
    const before = lines.length;
    const u = await call(env.app, 'POST', '/v1/shipment/update', { token: c.session, body: { tid, status: 'InTransit', location: 'L1' } });
    expect(u.statusCode, JSON.stringify(u.body)).toBe(200);
    const [line, ...more] = lines.slice(before).filter((l) => l.msg === 'status change: notifications queued');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ shipmentId: expect.any(String), toStatus: 'InTransit' });
    expect(line).not.toHaveProperty('trackingId');
    const rows = await notificationsOf(line!.eventId as string);
    expect(rows.map((r) => r.status)).toEqual(['held', 'held']);
    expect(line!.notifications).toEqual(expect.arrayContaining(rows));
    expect(line!.notifications).toHaveLength(2);
    // Held messages get no delivery job until the account is verified (releaseHeldCustomerMessages enqueues them).
    const jobs = rowsOf<{ n: number }>(
      await env.ctx.db.execute(
        sql`select count(*)::int as n from pgboss.job where data->>'notificationId' in (${sql.join(
          rows.map((r) => sql`${r.id}`),
          sql`, `,
        )})`,
      ),
    );
    expect(jobs[0]!.n).toBe(0);
  });
});
