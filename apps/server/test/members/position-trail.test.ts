// The courier's trail (issue 31, decision 149): the positions a phone kept without signal arrive in one batch,
// each is kept once with the time it was taken (a resend adds nothing, also under the same Idempotency-Key), and
// the last position the owner and the recipient see is the newest by that time, not the last to arrive.
import { describe, expect, it } from 'vitest';
import { MSG, POSITION_TRAIL_MAX } from '@shiptrail/contract';
import { call, createTestEnv, envForFile, type TestEnv } from '../helpers.ts';
import { company, courier, createShipment, readmeShipment } from '../shipments/fixtures.ts';

let env: TestEnv;
envForFile(createTestEnv, (started) => (env = started));

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
type Member = { uid: string; email: string; geo: { lat: number; lng: number } | null; geoAt: string | null };

async function setUp() {
  const c = await company(env.app);
  const k = await courier(env.app, c.session);
  const members = await call(env.app, 'POST', '/v1/user/general/getmembers', { token: c.session });
  const uid = (members.body.payload as Member[]).find((m) => m.email === k.email)!.uid;
  const member = async () =>
    ((await call(env.app, 'POST', '/v1/user/general/getmembers', { token: c.session })).body.payload as Member[]).find(
      (m) => m.uid === uid,
    )!;
  const trail = async (since?: string) =>
    (await call(env.app, 'POST', '/v1/user/general/trail', { token: c.session, body: { uid, ...(since ? { since } : {}) } })).body
      .payload as Array<{ lat: number; lng: number; takenAt: string }>;
  return { c, k, uid, member, trail };
}

describe('a batch of positions kept on the phone', () => {
  it('is stored once, each with the time it was taken, also when sent again with or without its key', async () => {
    const { k, member, trail } = await setUp();
    const positions = [
      { lat: 30.2672, lng: -97.7431, takenAt: minutesAgo(30) },
      { lat: 30.2701, lng: -97.7402, takenAt: minutesAgo(29.5) },
      { lat: 30.2755, lng: -97.7377, takenAt: minutesAgo(29) },
    ];
    const send = (headers: Record<string, string> = {}) =>
      call(env.app, 'POST', '/v1/user/general/positions', { token: k.session, body: { positions }, headers });
    const first = await send({ 'Idempotency-Key': 'trail-batch-1' });
    expect(first.statusCode).toBe(200);
    expect(first.body.payload).toEqual({ added: 3, last: { lat: 30.2755, lng: -97.7377, takenAt: positions[2]!.takenAt } });
    // The reply was lost: the phone sends the same batch under the same key, then (another tab) without one.
    const again = await send({ 'Idempotency-Key': 'trail-batch-1' });
    expect(again.statusCode).toBe(200);
    expect(again.body).toEqual(first.body);
    const bare = await send();
    expect(bare.body.payload.added).toBe(0);
    expect(await trail()).toEqual(positions);
    // The couriers map has the newest, with the time it was taken (not when it arrived).
    const m = await member();
    expect(m.geo).toEqual({ lat: 30.2755, lng: -97.7377 });
    expect(m.geoAt).toBe(positions[2]!.takenAt);
  });

  it('an older fix arriving late does not replace a newer last position, and joins the trail in its place', async () => {
    const { c, k, member, trail } = await setUp();
    // The recipient's page of a shipment out for delivery shows the courier's last position.
    const s = await createShipment(env.app, c.session, readmeShipment(k.email));
    await call(env.app, 'POST', '/v1/shipment/update', {
      token: k.session,
      body: { tid: s.tid, status: 'OutForDelivery', location: 'Depot' },
    });
    const now = await call(env.app, 'POST', '/v1/user/general/position', { token: k.session, body: { lat: 34.06, lng: -118.47 } });
    expect(now.statusCode).toBe(200);
    const newest = await member();
    // The phone that was offline sends what it kept, older than the position just reported, after it.
    const late = [
      { lat: 34.01, lng: -118.41, takenAt: minutesAgo(3) },
      { lat: 34.02, lng: -118.42, takenAt: minutesAgo(2) },
    ];
    const r = await call(env.app, 'POST', '/v1/user/general/positions', { token: k.session, body: { positions: late } });
    expect(r.statusCode).toBe(200);
    expect(r.body.payload.added).toBe(2);
    expect(r.body.payload.last).toEqual({ lat: 34.06, lng: -118.47, takenAt: newest.geoAt });
    const m = await member();
    expect(m.geo).toEqual({ lat: 34.06, lng: -118.47 });
    expect(m.geoAt).toBe(newest.geoAt);
    const page = (await call(env.app, 'GET', `/v1/track/${c.profile.uid}_${s.tid}`)).body.payload[0];
    expect(page.courierPosition).toMatchObject({ lat: 34.06, lng: -118.47 });
    // The trail is in the order the courier went, the late fixes before the one reported online.
    const t = await trail(minutesAgo(10));
    expect(t.map((p) => p.lat)).toEqual([34.01, 34.02, 34.06]);
  });

  it('refuses a bad batch in words, and is a courier call', async () => {
    const { c, k, uid } = await setUp();
    const post = (body: unknown, token = k.session) => call(env.app, 'POST', '/v1/user/general/positions', { token, body });
    const empty = await post({ positions: [] });
    expect(empty.statusCode).toBe(400);
    expect(empty.body.message).toContain(MSG.positionsRequired);
    const fix = { lat: 1, lng: 1, takenAt: minutesAgo(1) };
    const many = await post({ positions: Array.from({ length: POSITION_TRAIL_MAX + 1 }, () => fix) });
    expect(many.statusCode).toBe(400);
    expect(many.body.message).toContain(MSG.positionsTooMany);
    const noTime = await post({ positions: [{ lat: 1, lng: 1 }] });
    expect(noTime.statusCode).toBe(400);
    expect(noTime.body.message).toContain(MSG.positionTakenAtRequired);
    expect((await post({ positions: [fix] }, c.session)).statusCode).toBe(403);
    // The trail is the owner's to read, not the courier's.
    expect((await call(env.app, 'POST', '/v1/user/general/trail', { token: k.session, body: { uid } })).statusCode).toBe(403);
    const unknown = await call(env.app, 'POST', '/v1/user/general/trail', { token: c.session, body: { uid: 'nobody' } });
    expect(unknown.statusCode).toBe(404);
  });
});
