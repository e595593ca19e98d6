// Issue 31, decisions 128 and 129: while a shipment is Out For Delivery its public page (and live stream) shows
// where its courier is, and nothing of the courier's other stops or of a shipment not out for delivery; positions
// reach recipients at most every 15 s; "about N stops away" and "arriving now" are customer triggers, once each
// per shipment (a unique key in the database), by the company's thresholds.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { MSG, POSITION_SHARE_EVERY_MS } from '@shiptrail/contract';
import { notifications, shipments, trackingEvents } from '../../src/db/schema.ts';
import { insertApproachEvent } from '../../src/modules/shipments/shipments.repository.ts';
import { call, createTestEnv, type TestEnv } from '../helpers.ts';
import { markVerified, saveSettings } from '../notifications/fixtures.ts';
import { openStream, type SseStream } from '../live/sse-client.ts';
import { TINY_PNG, company, courier, createShipment, readmeShipment, updateShipment } from './fixtures.ts';

let env: TestEnv;
let base: string;
const opened: SseStream[] = [];
/** The server's clock runs, ahead of the real one by what `later` moved it. */
let ahead = 0;
const serverNow = () => new Date(Date.now() + ahead);
/** Move the server's clock past the 15 s share interval. */
const later = (ms = POSITION_SHARE_EVERY_MS) => (ahead += ms);

beforeAll(async () => {
  env = await createTestEnv({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  env.ctx.now = serverNow;
  await env.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of opened) s.close();
  await env?.close();
});

async function pageStream(uid: string, tid: string) {
  const s = await openStream(base, null, {}, `/v1/track/${uid}_${tid}/live`);
  opened.push(s);
  return s;
}

/** A company, its courier, and shipments to the given places (lat, long), assigned to the courier. */
async function day(places: Array<[number, number]>, customer = 'recipient@example.net') {
  const c = await company(env.app);
  await markVerified(env.ctx, c.email);
  const rider = await courier(env.app, c.session);
  const tids: string[] = [];
  for (const [i, [lat, long]] of places.entries()) {
    const body = readmeShipment(rider.email);
    body.destination = { ...body.destination, lat, long, email: customer.replace('@', `+${i}@`) };
    tids.push((await createShipment(env.app, c.session, body)).tid);
  }
  return { c, rider, tids };
}
/** A courier's checkpoint, which must be taken. */
const update = async (token: string, body: Record<string, unknown>) =>
  expect((await updateShipment(env.app, token, body)).body).toMatchObject({ code: 200 });
const outForDelivery = (token: string, tid: string) => update(token, { tid, status: 'OutForDelivery', location: 'Santa Monica, CA' });
const delivered = (token: string, tid: string) =>
  update(token, { tid, status: 'Delivered', location: 'Santa Monica, CA', proof: { recipientName: 'Jane', signature: TINY_PNG } });
const position = async (token: string, lat: number, lng: number) =>
  expect((await call(env.app, 'POST', '/v1/user/general/position', { token, body: { lat, lng } })).statusCode).toBe(200);
const publicPage = async (uid: string, tid: string) => (await call(env.app, 'GET', `/v1/track/${uid}_${tid}`)).body.payload[0];

/** Approach notification rows of some shipments: "tid toStatus channel". */
async function approachRows(tids: string[]) {
  const rows = await env.ctx.db
    .select({ tid: shipments.tid, kind: trackingEvents.toStatus, channel: notifications.channel, payload: notifications.payload })
    .from(notifications)
    .innerJoin(trackingEvents, eq(trackingEvents.id, notifications.eventId))
    .innerJoin(shipments, eq(shipments.id, trackingEvents.shipmentId))
    .where(and(inArray(shipments.tid, tids), inArray(trackingEvents.toStatus, ['CourierNear', 'CourierArriving'])));
  return rows;
}
const summary = (rows: Awaited<ReturnType<typeof approachRows>>) => rows.map((r) => `${r.tid} ${r.kind} ${r.channel}`).sort();

// Destinations in Santa Monica, about 1 km apart; the courier starts 5 km away.
const FAR: [number, number] = [34.07, -118.45];
const A: [number, number] = [34.032016, -118.482805];
const B: [number, number] = [34.041, -118.482805];
const C: [number, number] = [34.05, -118.482805];
const D: [number, number] = [34.059, -118.482805];

describe("the recipient's page while the courier comes", () => {
  it('shows the courier only while the shipment is Out For Delivery, and nothing of the other stops', async () => {
    const { c, rider, tids } = await day([A, B]);
    await position(rider.session, ...FAR);
    // Not out for delivery yet: no position, though the courier has one.
    expect((await publicPage(c.profile.uid, tids[0]!)).courierPosition).toBeNull();
    await outForDelivery(rider.session, tids[0]!);
    later();
    await position(rider.session, 34.06, -118.47);
    const page = await publicPage(c.profile.uid, tids[0]!);
    expect(page.courierPosition).toMatchObject({ lat: 34.06, lng: -118.47 });
    expect(Math.abs(new Date(page.courierPosition.at).getTime() - serverNow().getTime())).toBeLessThan(60_000);
    expect(JSON.stringify(page)).not.toContain(tids[1]!);
    // The other shipment of the same courier is not out for delivery: its page says nothing of where they are.
    expect((await publicPage(c.profile.uid, tids[1]!)).courierPosition).toBeNull();
    // An old position is not shown (it would send the recipient looking the wrong way).
    later(6 * 60_000);
    expect((await publicPage(c.profile.uid, tids[0]!)).courierPosition).toBeNull();
    later();
    await position(rider.session, 34.05, -118.47);
    expect((await publicPage(c.profile.uid, tids[0]!)).courierPosition).toMatchObject({ lat: 34.05 });
    // Delivered: the courier's position is no business of this recipient any more.
    await delivered(rider.session, tids[0]!);
    expect((await publicPage(c.profile.uid, tids[0]!)).courierPosition).toBeNull();
  });

  it("streams the courier's position to the pages of shipments out for delivery only, at most every 15 s", async () => {
    const { c, rider, tids } = await day([A, B, C]);
    await outForDelivery(rider.session, tids[0]!);
    await outForDelivery(rider.session, tids[1]!);
    const first = await pageStream(c.profile.uid, tids[0]!);
    const second = await pageStream(c.profile.uid, tids[1]!);
    const notOut = await pageStream(c.profile.uid, tids[2]!);
    later();
    await position(rider.session, 34.061, -118.471);
    const f = await first.waitFor((x) => x.data.kind === 'courier');
    expect(f.data).toEqual({ kind: 'courier', tid: tids[0], lat: 34.061, lng: -118.471, at: expect.any(String) });
    const g = await second.waitFor((x) => x.data.kind === 'courier');
    expect(g.data.tid).toBe(tids[1]);
    // Within 15 s of the last one shared: stored for the company's map, not sent to recipients.
    later(5_000);
    await position(rider.session, 34.062, -118.472);
    later(POSITION_SHARE_EVERY_MS - 5_000);
    await position(rider.session, 34.063, -118.473);
    await first.waitFor((x) => x.data.kind === 'courier' && x.data.lat === 34.063);
    expect(first.frames.filter((x) => x.data.kind === 'courier').map((x) => x.data.lat)).toEqual([34.061, 34.063]);
    // No page hears of another shipment, nor of the courier's account; the one not out for delivery hears nothing.
    for (const [s, tid] of [
      [first, tids[0]],
      [second, tids[1]],
    ] as const) {
      expect(s.frames.every((x) => x.data.tid === tid)).toBe(true);
      for (const secret of [...tids.filter((t) => t !== tid), rider.uid, rider.email, 'courierId', 'accountId'])
        expect(s.text()).not.toContain(secret);
    }
    expect(notOut.frames.filter((x) => x.data.kind === 'courier')).toHaveLength(0);
  });
});

describe('"about N stops away" and "arriving now"', () => {
  const allChannels = { CourierNear: true, CourierArriving: true };
  async function withTriggers(session: string, over: Record<string, unknown> = {}) {
    await saveSettings(env, session, {
      sendNotification: { email: { triggers: allChannels, endpoint: '' }, phone: { triggers: allChannels, endpoint: '' } },
      receiveNotification: { webhook: { triggers: allChannels, endpoint: 'http://127.0.0.1:9/shiptrail' } },
      ...over,
    });
  }

  it('tells the first 3 stops (the default) once each, by mail, SMS and webhook, in the order of the day', async () => {
    const { c, rider, tids } = await day([A, B, C, D]);
    await withTriggers(c.session);
    for (const t of tids) await outForDelivery(rider.session, t);
    later();
    await position(rider.session, ...FAR);
    const rows = await approachRows(tids);
    expect(summary(rows)).toEqual(
      tids
        .slice(0, 3)
        .flatMap((t) => ['email', 'sms', 'webhook'].map((ch) => `${t} CourierNear ${ch}`))
        .sort(),
    );
    const sms = rows.find((r) => r.tid === tids[2] && r.channel === 'sms')!.payload as { body: string };
    expect(sms.body).toContain('Acme Deliveries: your courier is about 3 stops away with parcel');
    const mail = rows.find((r) => r.tid === tids[0] && r.channel === 'email')!.payload as { subject: string; text: string };
    expect(mail.subject).toBe('Acme Deliveries: your courier is heading to you next');
    expect(mail.text).toContain('Status: Out For Delivery');
    const hook = JSON.parse((rows.find((r) => r.tid === tids[1] && r.channel === 'webhook')!.payload as { body: string }).body);
    expect(hook).toMatchObject({ type: 'shipment.courier_near', data: { status: 'OutForDelivery', approach: { stopsAway: 2 } } });
    // More positions, and two at once: nothing more.
    later();
    await position(rider.session, 34.069, -118.45);
    later();
    await Promise.all([position(rider.session, 34.068, -118.45), position(rider.session, 34.067, -118.45)]);
    expect(await approachRows(tids)).toHaveLength(9);
    // Two processes racing past the check: the unique key in the database keeps one event (no memory flag).
    const [row] = await env.ctx.db.select().from(shipments).where(eq(shipments.tid, tids[0]!));
    const racing = await Promise.all(
      [1, 2].map(() =>
        insertApproachEvent(env.ctx.db, {
          shipmentId: row!.id,
          userId: row!.companyId,
          fromStatus: 'OutForDelivery',
          toStatus: 'CourierNear',
          checkpoint: null,
          createdAt: new Date(),
        }),
      ),
    );
    expect(racing).toEqual([undefined, undefined]);
    // The first stop done, the fourth becomes third: it is told now.
    await delivered(rider.session, tids[0]!);
    later();
    await position(rider.session, ...FAR);
    expect(summary(await approachRows([tids[3]!]))).toEqual(['email', 'sms', 'webhook'].map((ch) => `${tids[3]} CourierNear ${ch}`));
  });

  it("says 'arriving now' within the company's distance (150 m by default), once", async () => {
    const { c, rider, tids } = await day([A, D]);
    await withTriggers(c.session, { approach: { stops: 1 } });
    await outForDelivery(rider.session, tids[1]!);
    // 200 m south of D: outside 150 m.
    later();
    await position(rider.session, D[0] - 0.0018, D[1]);
    expect(summary(await approachRows(tids)).filter((r) => r.includes('Arriving'))).toEqual([]);
    // 100 m: inside.
    later();
    await position(rider.session, D[0] - 0.0009, D[1]);
    later();
    await position(rider.session, D[0] - 0.0005, D[1]);
    const rows = await approachRows(tids);
    expect(summary(rows).filter((r) => r.includes('Arriving'))).toEqual(
      ['email', 'sms', 'webhook'].map((ch) => `${tids[1]} CourierArriving ${ch}`),
    );
    const sms = rows.find((r) => r.kind === 'CourierArriving' && r.channel === 'sms')!.payload as { body: string };
    expect(sms.body).toContain('your courier is arriving now with parcel');
    // A company that sets 300 m hears it at 200 m.
    const other = await day([D]);
    await withTriggers(other.c.session, { approach: { meters: 300 } });
    await outForDelivery(other.rider.session, other.tids[0]!);
    later();
    await position(other.rider.session, D[0] - 0.0018, D[1]);
    expect(summary(await approachRows(other.tids)).filter((r) => r.includes('Arriving'))).toHaveLength(3);
  });

  it('takes the number of stops from the settings, and sends nothing while the triggers are off', async () => {
    const { c, rider, tids } = await day([A, B, C]);
    await withTriggers(c.session, { approach: { stops: 1 } });
    const info = (await call(env.app, 'GET', '/v1/user/info', { token: c.session })).body.payload;
    expect(info.settings.approach).toEqual({ stops: 1, meters: 150 });
    for (const t of tids) await outForDelivery(rider.session, t);
    later();
    await position(rider.session, ...FAR);
    expect(summary(await approachRows(tids))).toEqual(['email', 'sms', 'webhook'].map((ch) => `${tids[0]} CourierNear ${ch}`));

    const off = await day([A]);
    await outForDelivery(off.rider.session, off.tids[0]!);
    later();
    await position(off.rider.session, ...A);
    expect(await approachRows(off.tids)).toEqual([]);
  });

  it("a stale position, sent late from the phone's outbox, says nothing of now: no 'arriving now', no frame, not over a newer one", async () => {
    const { c, rider, tids } = await day([D]);
    await withTriggers(c.session, { approach: { stops: 1 } });
    await outForDelivery(rider.session, tids[0]!);
    const page = await pageStream(c.profile.uid, tids[0]!);
    const ago = (ms: number) => new Date(serverNow().getTime() - ms).toISOString();
    later();
    // Taken 10 minutes ago at the door, sent now: stored for the map (the newest it has), not shared, no message.
    const late = await call(env.app, 'POST', '/v1/user/general/position', {
      token: rider.session,
      body: { lat: D[0], lng: D[1], takenAt: ago(10 * 60_000) },
    });
    expect(late.statusCode).toBe(200);
    // A checkpoint recorded offline at the door 8 minutes ago, with its coordinates: the same.
    later();
    expect(
      (
        await call(env.app, 'POST', '/v1/shipment/update', {
          token: rider.session,
          body: { tid: tids[0], status: 'OutForDelivery', location: 'At the door', lat: D[0], long: D[1], occurredAt: ago(8 * 60_000) },
        })
      ).body,
    ).toMatchObject({ code: 200 });
    expect(await approachRows(tids)).toEqual([]);
    expect((await publicPage(c.profile.uid, tids[0]!)).courierPosition).toBeNull();
    // A fresh fix far away is shared; a late one from a minute before it does not replace it.
    later();
    await position(rider.session, ...FAR);
    await page.waitFor((x) => x.data.kind === 'courier');
    const older = await call(env.app, 'POST', '/v1/user/general/position', {
      token: rider.session,
      body: { lat: D[0], lng: D[1], takenAt: ago(60_000) },
    });
    expect(older.statusCode).toBe(200);
    expect((await publicPage(c.profile.uid, tids[0]!)).courierPosition).toMatchObject({ lat: FAR[0], lng: FAR[1] });
    expect(summary(await approachRows(tids)).filter((r) => r.includes('Arriving'))).toEqual([]);
    expect(page.frames.filter((x) => x.data.kind === 'courier')).toHaveLength(1);
  });

  it('refuses thresholds out of bounds with a clear message', async () => {
    const c = await company(env.app);
    for (const [approach, message] of [
      [{ stops: 0 }, MSG.approachStopsInvalid],
      [{ stops: 2.5 }, MSG.approachStopsInvalid],
      [{ meters: 10 }, MSG.approachMetersInvalid],
      [{ meters: 'far' }, MSG.approachMetersInvalid],
    ] as const) {
      const r = await call(env.app, 'POST', '/v1/user/general/update', { token: c.session, body: { settings: { approach } } });
      expect(r.statusCode).toBe(400);
      expect(r.body.message).toBe(message);
    }
  });
});
