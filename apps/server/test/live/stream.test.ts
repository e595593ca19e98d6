// The live stream end to end: a real HTTP server on loopback read as it streams, the real bus (PGlite's
// listen/notify, or LISTEN/NOTIFY on a PostgreSQL server), scoping, Last-Event-ID replay and clean-up.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { call, createTestEnv, eventually, onPostgres, signUp, type TestEnv } from '../helpers.ts';
import { BUS_CHANNEL, publish } from '../../src/lib/bus.ts';
import { publishLive } from '../../src/modules/live/live.service.ts';
import { NOT_A_STREAM_CLIENT } from '../../src/modules/live/live.routes.ts';
import { EX, add, userIdOf } from '../trackings/fixtures.ts';
import { company, courier, createShipment, readmeShipment, updateShipment } from '../shipments/fixtures.ts';
import { openStream, type SseStream } from './sse-client.ts';

let env: TestEnv;
let base: string;
const opened: SseStream[] = [];

async function stream(token: string | null, headers: Record<string, string> = {}, on = () => base) {
  const s = await openStream(on(), token, headers);
  opened.push(s);
  return s;
}

async function listen(e: TestEnv): Promise<string> {
  await e.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(e.app.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  env = await createTestEnv();
  base = await listen(env);
});
afterAll(async () => {
  for (const s of opened) s.close();
  await env?.close();
});

describe('GET /v1/live', () => {
  it('refuses a request without a valid token with the 401 envelope, and opens no stream', async () => {
    const s = await stream(null);
    expect(s.status).toBe(401);
    expect(s.headers['content-type']).toContain('application/json');
    const bad = await stream('sess_not-a-session');
    expect(bad.status).toBe(401);
    expect(env.app.liveHub.size).toBe(0);
  });

  it('answers a client that does not ask for an event stream with the 406 envelope at once', async () => {
    const a = await signUp(env.app);
    const res = await call(env.app, 'GET', '/v1/live', { token: a.session });
    expect(res.statusCode).toBe(406);
    expect(res.body).toMatchObject({ code: 406, status: 'fail', message: NOT_A_STREAM_CLIENT });
    expect(env.app.liveHub.size).toBe(0);
  });

  it("streams the account's balance and tracking status changes, and never another account's", async () => {
    const a = await signUp(env.app);
    const b = await signUp(env.app);
    const sa = await stream(a.session);
    const sb = await stream(b.apiKey);
    expect(sa.status).toBe(200);
    expect(sa.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const aId = await userIdOf(env, a.email);

    expect((await add(env, a.apiKey, { tid: EX.ups.delivered })).statusCode).toBe(201);
    const added = await sa.waitFor((f) => f.data.kind === 'tracking');
    expect(added.data).toMatchObject({ tid: EX.ups.delivered, status: 'Pending', statusChanged: false });
    const balance = await sa.waitFor((f) => f.data.kind === 'balance');
    expect(balance.data).toEqual({ kind: 'balance', accountId: aId });
    expect(balance.id).toMatch(/^[\w-]+$/);

    expect((await call(env.app, 'GET', `/v1/trackings/delivered/${EX.ups.delivered}`, { token: a.apiKey })).statusCode).toBe(200);
    const changed = await sa.waitFor((f) => f.data.kind === 'tracking' && f.data.statusChanged);
    expect(changed.data).toMatchObject({
      kind: 'tracking',
      accountId: aId,
      tid: EX.ups.delivered,
      status: 'Delivered',
      statusChanged: true,
    });

    // B's own event arrives on B's stream, which proves B's stream was live while A's events went by.
    expect((await add(env, b.apiKey, { tid: EX.fedex.delivered })).statusCode).toBe(201);
    await sb.waitFor((f) => f.data.kind === 'balance');
    expect(sb.frames.every((f) => f.data.accountId !== aId)).toBe(true);
    expect(sa.frames.every((f) => f.data.accountId === aId)).toBe(true);
  });

  it('a change whose transaction rolls back is never announced', async () => {
    const a = await signUp(env.app);
    const aId = await userIdOf(env, a.email);
    const s = await stream(a.session);
    await expect(
      env.ctx.db.transaction(async (tx) => {
        await publishLive(tx, { kind: 'alert', accountId: aId });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // A later committed event is the fence: once it is here, the rolled-back one would have been too.
    await publishLive(env.ctx.db, { kind: 'balance', accountId: aId });
    await s.waitFor((f) => f.data.kind === 'balance');
    expect(s.frames.map((f) => f.data.kind)).toEqual(['balance']);
  });

  it('a courier hears only the shipments assigned to them; the company hears them and the position', async () => {
    const co = await company(env.app);
    const c1 = await courier(env.app, co.apiKey);
    const c2 = await courier(env.app, co.apiKey);
    const shipment = await createShipment(env.app, co.apiKey, readmeShipment(c1.email));
    const other = await createShipment(env.app, co.apiKey, readmeShipment(c2.email));
    const sCo = await stream(co.session);
    const s1 = await stream(c1.session);
    const s2 = await stream(c2.session);

    const up = await call(env.app, 'POST', '/v1/shipment/update', {
      token: c1.apiKey,
      body: { tid: shipment.tid, status: 'InTransit', location: 'Depot', lat: 34.05, long: -118.25 },
    });
    expect(up.statusCode).toBe(200);
    expect((await s1.waitFor((f) => f.data.kind === 'shipment')).data).toMatchObject({
      tid: shipment.tid,
      status: 'InTransit',
      statusChanged: true,
    });
    await s1.waitFor((f) => f.data.kind === 'position');
    await sCo.waitFor((f) => f.data.kind === 'shipment' && f.data.tid === shipment.tid);
    await sCo.waitFor((f) => f.data.kind === 'position');

    // c2's own shipment is the fence for c2's stream.
    expect((await updateShipment(env.app, co.apiKey, { tid: other.tid, status: 'InTransit', location: 'Hub' })).statusCode).toBe(200);
    await s2.waitFor((f) => f.data.kind === 'shipment' && f.data.tid === other.tid);
    expect(s2.frames.map((f) => f.data.tid ?? f.data.kind)).toEqual([other.tid]);
    expect(s1.frames.some((f) => f.data.tid === other.tid)).toBe(false);
    // Couriers are not told the company's balance (the create charged it).
    expect(s1.frames.some((f) => f.data.kind === 'balance')).toBe(false);
    expect(sCo.frames.some((f) => f.data.kind === 'balance')).toBe(false);
  });

  it('announces edits and removals too: a tracking renamed or deleted, a shipment edited or reassigned, a courier added, renamed or removed', async () => {
    const co = await company(env.app);
    const c1 = await courier(env.app, co.apiKey);
    const c2 = await courier(env.app, co.apiKey);
    const shipment = await createShipment(env.app, co.apiKey, readmeShipment(c1.email));
    expect((await add(env, co.apiKey, { tid: EX.usps.notFound })).statusCode).toBe(201);
    const sCo = await stream(co.session);
    const s1 = await stream(c1.session);
    const s2 = await stream(c2.session);
    const next = async (s: SseStream, pred: (d: any) => boolean) => (await s.waitFor((f) => pred(f.data))).data;

    expect(
      (await call(env.app, 'PUT', '/v1/trackings/update', { token: co.apiKey, body: { tid: EX.usps.notFound, title: 'Renamed' } }))
        .statusCode,
    ).toBe(200);
    expect(await next(sCo, (d) => d.kind === 'tracking' && d.tid === EX.usps.notFound)).toMatchObject({
      status: 'Pending',
      statusChanged: false,
    });
    const before = sCo.frames.length;
    expect((await call(env.app, 'DELETE', `/v1/trackings/delete/${EX.usps.notFound}`, { token: co.apiKey })).statusCode).toBe(200);
    await sCo.waitFor((f) => sCo.frames.indexOf(f) >= before && f.data.kind === 'tracking' && f.data.tid === EX.usps.notFound);

    // Reassigned from c1 to c2: the company, the new courier and the old one are each told.
    expect(
      (
        await call(env.app, 'POST', '/v1/shipment/edit', {
          token: co.apiKey,
          body: { tid: shipment.tid, courierEmail: c2.email, message: 'Moved to Carl 2' },
        })
      ).statusCode,
    ).toBe(200);
    await next(sCo, (d) => d.kind === 'shipment' && d.tid === shipment.tid && d.statusChanged === false);
    await next(s2, (d) => d.kind === 'shipment' && d.tid === shipment.tid);
    await next(s1, (d) => d.kind === 'shipment' && d.tid === shipment.tid && d.statusChanged === false);

    const third = { email: `c3.${Date.now()}@example.com`, firstName: 'Third', lastName: 'Rider', phone: '(213) 555-0199' };
    const added = await call(env.app, 'POST', '/v1/user/general/addmember', {
      token: co.apiKey,
      body: { ...third, role: 'courier', password: 'courierpass1' },
    });
    expect(added.statusCode).toBe(201);
    await next(sCo, (d) => d.kind === 'members');
    const n = sCo.frames.filter((f) => f.data.kind === 'members').length;
    expect(
      (
        await call(env.app, 'POST', '/v1/user/general/updatemember', {
          token: co.apiKey,
          body: { ...third, role: 'courier', uid: added.body.payload.uid, firstName: 'Renamed' },
        })
      ).statusCode,
    ).toBe(200);
    await sCo.waitFor(() => sCo.frames.filter((f) => f.data.kind === 'members').length >= n + 1);
    expect(
      (await call(env.app, 'POST', '/v1/user/general/deletemember', { token: co.apiKey, body: { uid: added.body.payload.uid } }))
        .statusCode,
    ).toBe(200);
    await sCo.waitFor(() => sCo.frames.filter((f) => f.data.kind === 'members').length >= n + 2);
    // Couriers are not told about the team.
    expect([...s1.frames, ...s2.frames].some((f) => f.data.kind === 'members')).toBe(false);
  });

  it('replays what a reconnecting client missed after its Last-Event-ID, and says reset when the id is unknown', async () => {
    const a = await signUp(env.app);
    const aId = await userIdOf(env, a.email);
    const first = await stream(a.session);
    await publishLive(env.ctx.db, { kind: 'alert', accountId: aId });
    const seen = await first.waitFor((f) => f.data.kind === 'alert');
    first.close();

    // Missed while disconnected: one for this account, one for somebody else. A second stream that stays
    // open shows when the bus has delivered them to the hub.
    const b = await signUp(env.app);
    const fence = await stream(a.session);
    await publishLive(env.ctx.db, { kind: 'balance', accountId: aId });
    await publishLive(env.ctx.db, { kind: 'balance', accountId: await userIdOf(env, b.email) });
    await publishLive(env.ctx.db, { kind: 'alert', accountId: aId });
    await fence.waitFor((f) => f.data.kind === 'alert');
    fence.close();

    const again = await stream(a.session, { 'last-event-id': seen.id! });
    await again.waitFor((f) => f.data.kind === 'alert');
    expect(again.frames.map((f) => f.data.kind)).toEqual(['balance', 'alert']);
    expect(again.frames.every((f) => f.data.accountId === aId)).toBe(true);

    const unknown = await stream(a.session, { 'last-event-id': 'no-such-id' });
    expect((await unknown.waitFor(() => true)).data).toEqual({ kind: 'reset' });
  });

  it('a closed stream lets go of its subscriber', async () => {
    for (const s of opened) s.close();
    await eventually(async () => env.app.liveHub.size === 0, 5000, 20);
    const a = await signUp(env.app);
    const s1 = await stream(a.session);
    const s2 = await stream(a.session);
    await eventually(async () => env.app.liveHub.size === 2, 5000, 20);
    s1.close();
    await eventually(async () => env.app.liveHub.size === 1, 5000, 20);
    s2.close();
    await eventually(async () => env.app.liveHub.size === 0, 5000, 20);
    // One bus handler for the whole hub, whatever the number of streams.
    expect(env.ctx.bus.handlerCount('live')).toBe(1);
  });

  it('hears what is sent on the database channel from outside this app (another process)', async () => {
    const a = await signUp(env.app);
    const aId = await userIdOf(env, a.email);
    const s = await stream(a.session);
    if (onPostgres) {
      // A second app on the same database, as a second process behind a load balancer would be.
      const other = await createTestEnv({ DATABASE_URL: env.config.DATABASE_URL! });
      try {
        expect((await add(other, a.apiKey, { tid: EX.canadapost.delivered })).statusCode).toBe(201);
        expect((await call(other.app, 'GET', `/v1/trackings/delivered/${EX.canadapost.delivered}`, { token: a.apiKey })).statusCode).toBe(
          200,
        );
        const f = await s.waitFor((f) => f.data.kind === 'tracking' && f.data.statusChanged);
        expect(f.data).toMatchObject({ accountId: aId, tid: EX.canadapost.delivered, status: 'Delivered' });
        // And the other way round: a stream on the second app hears a change made through the first.
        const base2 = await listen(other);
        const s2 = await stream(a.session, {}, () => base2);
        await publish(env.ctx.db, 'live', { kind: 'alert', accountId: aId });
        await s2.waitFor((f) => f.data.kind === 'alert');
        s2.close();
      } finally {
        await other.close();
      }
    } else {
      // PGlite is one process: a raw NOTIFY on the database, not through publish(), reaches the stream.
      const payload = JSON.stringify({ topic: 'live', id: 'raw-1', data: { kind: 'alert', accountId: aId } });
      await env.ctx.db.execute(sql`select pg_notify(${BUS_CHANNEL}, ${payload})`);
      const f = await s.waitFor((f) => f.id === 'raw-1');
      expect(f.data).toEqual({ kind: 'alert', accountId: aId });
    }
  });

  it('sends a heartbeat comment when idle, so proxies keep the stream open', async () => {
    const a = await signUp(env.app);
    const s = await stream(a.session);
    await eventually(async () => s.text().includes(': connected'), 2000, 20);
    expect(s.text()).toMatch(/^retry: \d+\n/);
  });
});
