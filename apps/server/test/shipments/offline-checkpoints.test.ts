// A courier's phone that was offline sends its checkpoints later (decision 120): each under its own Idempotency-Key
// and with occurredAt, the time the courier acted. A resend (a lost reply, a second tab, a restarted server) adds
// nothing; the checkpoint keeps the time it happened; a shipment taken from the courier meanwhile refuses it in
// words and tells the owner; one that happened before the latest checkpoint joins the history without moving the
// status back.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { and, count, eq } from 'drizzle-orm';
import { MSG } from '@shiptrail/contract';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/app.ts';
import { closeContext, createContext } from '../../src/bootstrap.ts';
import { shipmentCheckpoints, shipments, trackingEvents } from '../../src/db/schema.ts';
import type { Queryable } from '../../src/db/client.ts';
import { call, createTestEnv, envForFile, onPostgres, type TestEnv } from '../helpers.ts';
import { TINY_PNG, company, courier, createShipment, readmeShipment } from './fixtures.ts';

let env: TestEnv;
envForFile(createTestEnv, (started) => (env = started));

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
/** A delivery the phone made `minutes` ago and sends now, with its proof (the recipient's name and signature). */
const deliveredAgo = (tid: string, location: string, minutes: number) => ({
  tid,
  status: 'Delivered',
  location,
  occurredAt: minutesAgo(minutes),
  proof: { recipientName: 'Rita', signature: TINY_PNG },
});

async function send(app: TestEnv['app'], token: string, key: string | undefined, body: Record<string, unknown>) {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/shipment/update',
    headers: {
      'sm-api-token': token,
      'content-type': 'application/json',
      'sm-http-status': 'real',
      ...(key ? { 'idempotency-key': key } : {}),
    },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, text: res.payload, body: res.json() };
}

async function shipmentId(db: Queryable, tid: string) {
  const [r] = await db.select({ id: shipments.id }).from(shipments).where(eq(shipments.tid, tid));
  return r!.id;
}
async function checkpointCount(db: Queryable, tid: string, status?: string) {
  const id = await shipmentId(db, tid);
  const [r] = await db
    .select({ n: count() })
    .from(shipmentCheckpoints)
    .where(and(eq(shipmentCheckpoints.shipmentId, id), status ? eq(shipmentCheckpoints.status, status) : undefined));
  return Number(r!.n);
}

/** A company, its courier, and a shipment assigned to that courier, created three hours ago (before the phone acted). */
async function assignedStop(app: TestEnv['app'], ctx: TestEnv['ctx'] = env.ctx) {
  const owner = await company(app);
  const k = await courier(app, owner.session);
  const now = ctx.now;
  ctx.now = () => new Date(Date.now() - 3 * 3_600_000);
  try {
    const s = await createShipment(app, owner.session, readmeShipment(k.email));
    return { owner, k, tid: s.tid };
  } finally {
    ctx.now = now;
  }
}

describe('a checkpoint sent late from a phone', () => {
  it('a resend under the same Idempotency-Key answers the first reply and adds nothing: Delivered with proof, and a failed attempt', async () => {
    const { k, tid } = await assignedStop(env.app);
    const fail = { tid, status: 'FailAttempt', location: '9 Elm St', message: 'Nobody home', occurredAt: minutesAgo(40) };
    const first = await send(env.app, k.session, 'phone-key-1', fail);
    expect(first.status).toBe(200);
    const again = await send(env.app, k.session, 'phone-key-1', fail);
    expect(again.text).toBe(first.text);
    const delivered = {
      tid,
      status: 'Delivered',
      location: '9 Elm St',
      occurredAt: minutesAgo(20),
      proof: { recipientName: 'Rita Receiver', signature: TINY_PNG, photo: TINY_PNG },
    };
    // Two tabs of the same phone racing with the same queued item.
    const racing = await Promise.all([1, 2, 3].map(() => send(env.app, k.session, 'phone-key-2', delivered)));
    const done = racing.filter((r) => r.status === 200);
    expect(done.length).toBeGreaterThan(0);
    for (const r of done) expect(r.text).toBe(done[0]!.text);
    for (const r of racing.filter((x) => x.status !== 200))
      expect(r.body).toMatchObject({ code: 409, message: MSG.idempotencyKeyInProgress });
    expect((await send(env.app, k.session, 'phone-key-2', delivered)).text).toBe(done[0]!.text);
    expect(await checkpointCount(env.ctx.db, tid, 'FailAttempt')).toBe(1);
    expect(await checkpointCount(env.ctx.db, tid, 'Delivered')).toBe(1);
    // One status event each: the customer hears of each once.
    const events = await env.ctx.db
      .select({ to: trackingEvents.toStatus })
      .from(trackingEvents)
      .where(eq(trackingEvents.shipmentId, await shipmentId(env.ctx.db, tid)));
    expect(events.map((e) => e.to).sort()).toEqual(['Delivered', 'FailAttempt', 'InfoReceived']);
    // The key with another request is refused, not answered with the first one's reply.
    const other = await send(env.app, k.session, 'phone-key-1', { ...fail, message: 'Dog in the yard' });
    expect(other.status).toBe(422);
    expect(other.body.message).toBe(MSG.idempotencyKeyReused);
  });

  it('keeps the time the courier acted as the checkpoint time, and the time it arrived beside it', async () => {
    const { owner, k, tid } = await assignedStop(env.app);
    const occurredAt = minutesAgo(95);
    const r = await send(env.app, k.session, 'when-1', { tid, status: 'OutForDelivery', location: 'Depot', occurredAt });
    expect(r.status).toBe(200);
    expect(r.body.payload.status).toBe('OutForDelivery');
    expect(r.body.payload.checkpoints[0]).toMatchObject({ status: 'OutForDelivery', time: occurredAt });
    const [row] = await env.ctx.db
      .select({ time: shipmentCheckpoints.time, createdAt: shipmentCheckpoints.createdAt })
      .from(shipmentCheckpoints)
      .where(and(eq(shipmentCheckpoints.shipmentId, await shipmentId(env.ctx.db, tid)), eq(shipmentCheckpoints.status, 'OutForDelivery')));
    expect(row!.time.toISOString()).toBe(occurredAt);
    expect(Date.now() - row!.createdAt.getTime()).toBeLessThan(60_000);
    // The owner's list shows it at the time it happened.
    const list = await call(env.app, 'POST', '/v1/shipment/getshipments', { token: owner.session, body: {} });
    expect(list.body.payload.find((s: { tid: string }) => s.tid === tid).checkpoints[0]).toMatchObject({ time: occurredAt });
  });

  it('refuses an occurredAt ahead of the server clock or older than 7 days, and one sent with time, in words', async () => {
    const { k, tid } = await assignedStop(env.app);
    const base = { tid, status: 'OutForDelivery', location: 'Depot' };
    const ahead = await send(env.app, k.session, 'bad-1', { ...base, occurredAt: new Date(Date.now() + 60 * 60_000).toISOString() });
    expect([ahead.status, ahead.body.message, ahead.body.payload.errors]).toEqual([
      400,
      MSG.occurredAtInFuture,
      { occurredAt: MSG.occurredAtInFuture },
    ]);
    const old = await send(env.app, k.session, 'bad-2', { ...base, occurredAt: minutesAgo(8 * 24 * 60) });
    expect([old.status, old.body.message]).toEqual([400, MSG.occurredAtTooOld]);
    const both = await send(env.app, k.session, undefined, { ...base, time: minutesAgo(5), occurredAt: minutesAgo(5) });
    expect([both.status, both.body.message]).toEqual([400, MSG.occurredAtWithTime]);
    // A phone clock a minute ahead is fine.
    const skew = await send(env.app, k.session, 'ok-1', { ...base, occurredAt: new Date(Date.now() + 60_000).toISOString() });
    expect(skew.status).toBe(200);
    expect(await checkpointCount(env.ctx.db, tid, 'OutForDelivery')).toBe(1);
  });

  it('a shipment given to another courier, or unassigned, while the phone was offline: 409 in words, nothing added, the owner told once', async () => {
    const { owner, k, tid } = await assignedStop(env.app);
    const other = await courier(env.app, owner.session, { firstName: 'Olga', lastName: 'Other' });
    expect(
      (await call(env.app, 'POST', '/v1/shipment/assign', { token: owner.session, body: { tids: [tid], courierEmail: other.email } }))
        .statusCode,
    ).toBe(200);
    const body = deliveredAgo(tid, '9 Elm St', 10);
    const r = await send(env.app, k.session, 'late-1', body);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 409, status: 'fail', message: MSG.checkpointNotYours, payload: { reason: 'not_yours', tid } });
    // The phone resends it (it cannot know the first answer arrived): the same answer, one alert.
    expect((await send(env.app, k.session, 'late-1', body)).body.message).toBe(MSG.checkpointNotYours);
    expect(await checkpointCount(env.ctx.db, tid)).toBe(1);
    const info = await call(env.app, 'GET', '/v1/user/info', { token: owner.session });
    const alerts = info.body.payload.alerts.general.filter((a: { name: string }) => a.name === 'courierUpdateNotSaved');
    expect(alerts).toHaveLength(1);
    expect(alerts[0].message).toContain(`Carl Courier recorded Delivered for ${tid}`);
    expect(alerts[0].message).toContain('now assigned to Olga Other');
    // Unassigned: the same refusal.
    expect((await call(env.app, 'POST', '/v1/shipment/unassign', { token: owner.session, body: { tids: [tid] } })).statusCode).toBe(200);
    const u = await send(env.app, k.session, 'late-2', { tid, status: 'FailAttempt', location: 'x', occurredAt: minutesAgo(5) });
    expect([u.status, u.body.message]).toEqual([409, MSG.checkpointNotYours]);
    // Without occurredAt (not a late phone) it stays a plain "not found", as for any shipment not yours.
    const plain = await send(env.app, k.session, undefined, { tid, status: 'FailAttempt', location: 'x' });
    expect([plain.status, plain.body.message]).toEqual([404, MSG.shipmentNotFound]);
    // Another company's courier learns nothing, occurredAt or not.
    const stranger = await courier(env.app, (await company(env.app)).session);
    const s = await send(env.app, stranger.session, 'late-3', { tid, status: 'FailAttempt', location: 'x', occurredAt: minutesAgo(5) });
    expect([s.status, s.body.message]).toEqual([404, MSG.shipmentNotFound]);
  });

  it('one that happened before the latest checkpoint joins the history in its place; the status stays the latest', async () => {
    const { owner, k, tid } = await assignedStop(env.app);
    // Sent in this order, happened in the other: the delivery's reply arrived first.
    expect((await send(env.app, k.session, 'ooo-2', deliveredAgo(tid, 'Door', 10))).status).toBe(200);
    const late = await send(env.app, k.session, 'ooo-1', { tid, status: 'OutForDelivery', location: 'Depot', occurredAt: minutesAgo(30) });
    expect(late.status).toBe(200);
    expect(late.body.payload.status).toBe('Delivered');
    expect(late.body.payload.lastCheckPoint.status).toBe('Delivered');
    expect(late.body.payload.checkpoints.map((c: { status: string }) => c.status)).toEqual(['Delivered', 'OutForDelivery', 'InfoReceived']);
    const list = await call(env.app, 'POST', '/v1/shipment/getshipments', { token: owner.session, body: {} });
    expect(list.body.payload.find((s: { tid: string }) => s.tid === tid).status).toBe('Delivered');
    // No "out for delivery" news after the parcel was delivered.
    const events = await env.ctx.db
      .select({ to: trackingEvents.toStatus })
      .from(trackingEvents)
      .where(eq(trackingEvents.shipmentId, await shipmentId(env.ctx.db, tid)));
    expect(events.map((e) => e.to)).not.toContain('OutForDelivery');
  });
});

describe('across a restart', () => {
  it('the key is kept in the database: after the server restarts, a resend still adds nothing', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'shiptrail-offline-'));
    const config = loadConfig({
      DATA_DIR: dir,
      SESSION_SECRET: 'test-secret-test-secret-test-secret-0123',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'http://shiptrail.test',
      WEB_DIST: path.join(os.tmpdir(), 'shiptrail-test-no-web'),
      ...(onPostgres ? { DATABASE_URL: env.config.DATABASE_URL! } : {}),
    } as NodeJS.ProcessEnv);
    const open = async () => {
      const ctx = await createContext(config);
      const app = await buildApp(ctx);
      await app.ready();
      return { ctx, app, close: async () => (await app.close(), await closeContext(ctx)) };
    };
    let run = await open();
    try {
      const { k, tid } = await assignedStop(run.app, run.ctx);
      const body = deliveredAgo(tid, 'Door', 15);
      const first = await send(run.app, k.session, 'restart-1', body);
      expect(first.status).toBe(200);
      await run.close();
      run = await open();
      const again = await send(run.app, k.session, 'restart-1', body);
      expect(again.text).toBe(first.text);
      expect(await checkpointCount(run.ctx.db, tid, 'Delivered')).toBe(1);
    } finally {
      await run.close();
      rmSync(dir, { recursive: true, force: true });
    }
    // Two starts of an on-disk database, each migrating or opening it: slow on a busy machine, not what is tested.
  }, 180_000);
});
