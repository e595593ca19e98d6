// Plan the day (issue 30; decision 118): the company's open shipments of a day shared among its couriers by
// the route solver on its thread, stored, assigned, changed by hand and planned again.
import { sql } from 'drizzle-orm';
import { MSG, UNPLANNED_MESSAGES } from '@shiptrail/contract';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, createTestEnv, type TestEnv } from '../helpers.ts';
import { company, createShipment } from '../shipments/fixtures.ts';
import { DEPOT, companyWithCouriers, planStop, type PlanRoute } from './fixtures.ts';

// Each test makes a company, three couriers and twelve shipments, then plans (0.3 s of solving a time).
vi.setConfig({ testTimeout: 120_000 });
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

const DATE = '2030-03-05';
const stop = (i: number, over: Record<string, unknown> = {}) => planStop(DATE, i, over);
type Route = PlanRoute;

/** A company with three couriers and twelve shipments of DATE, one with a window before the shifts. */
async function day() {
  const { c, ks } = await companyWithCouriers(env.app);
  const tids: string[] = [];
  for (let i = 0; i < 11; i++) tids.push((await createShipment(env.app, c.session, stop(i))).tid);
  const impossible = (await createShipment(env.app, c.session, stop(11, { windowFrom: '05:00', windowTo: '06:00' }))).tid;
  return { c, ks, tids, impossible };
}

const plan = (token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(env.app, 'POST', '/v1/plans', { token, body: { seconds: 0.3, ...body }, headers });

describe('plan the day', () => {
  it('plans three couriers in order with rising times, lists the impossible stop with its reason, and assigns', async () => {
    const { c, ks, tids, impossible } = await day();
    const r = await plan(c.session, { date: DATE });
    expect(r.statusCode, JSON.stringify(r.body)).toBe(201);
    const p = r.body.payload;
    expect(r.body.message).toMatch(/^11 stops planned for \d couriers; 1 could not be planned$/);
    expect(p.depot).toEqual(DEPOT);
    expect(p.routes).toHaveLength(3);
    const planned = (p.routes as Route[]).flatMap((x) => x.stops.map((s) => s.tid));
    expect(planned.sort()).toEqual([...tids].sort());
    // Spread over everyone on shift (the fair share, decision 118).
    for (const route of p.routes as Route[]) expect(route.stops.length).toBeGreaterThan(0);
    for (const route of p.routes as Route[]) {
      expect(route.stops.map((s) => s.position)).toEqual(route.stops.map((_, i) => i + 1));
      const etas = route.stops.map((s) => Date.parse(s.eta));
      for (let i = 1; i < etas.length; i++) expect(etas[i]!).toBeGreaterThan(etas[i - 1]!);
      expect(etas[0]!).toBeGreaterThanOrEqual(Date.parse(`${DATE}T08:00:00Z`));
      expect(etas.at(-1)!).toBeLessThanOrEqual(Date.parse(`${DATE}T18:00:00Z`));
      for (const s of route.stops) {
        // The customer's window: an hour around the arrival (to the nearest 5 minutes), on 5-minute marks.
        expect(Date.parse(s.windowTo) - Date.parse(s.windowFrom)).toBe(60 * 60_000);
        expect(Math.abs(Date.parse(s.eta) - (Date.parse(s.windowFrom) + 30 * 60_000))).toBeLessThanOrEqual(150_000);
        expect(new Date(s.windowFrom).getUTCMinutes() % 5).toBe(0);
      }
    }
    expect(p.unplanned).toEqual([
      {
        tid: impossible,
        reason: 'window',
        message: UNPLANNED_MESSAGES.window,
        address: '111 Ocean Ave, receiver city',
        at: expect.any(Object),
      },
    ]);
    // Each courier has their planned shipments, through the same assignment path as a bulk assign.
    for (const k of ks) {
      const route = (p.routes as Route[]).find((x) => x.courierEmail === k.email)!;
      const mine = await call(env.app, 'POST', '/v1/shipment/getassigned', { token: k.session, body: {} });
      expect(mine.body.payload.map((s: { tid: string }) => s.tid).sort()).toEqual(route.stops.map((s) => s.tid).sort());
    }
    const again = await call(env.app, 'GET', `/v1/plans/${DATE}`, { token: c.session });
    expect(again.body.payload).toEqual(p);
  });

  it('answers a replay under the same Idempotency-Key with the first plan, planning and assigning once', async () => {
    const { c } = await day();
    const first = await env.app.inject({
      method: 'POST',
      url: '/v1/plans',
      headers: { 'sm-api-token': c.session, 'idempotency-key': 'plan-1' },
      payload: { date: DATE, seconds: 0.3 },
    });
    expect(first.json().code).toBe(201);
    const before = (await call(env.app, 'GET', `/v1/plans/${DATE}`, { token: c.session })).body.payload;
    const replay = await env.app.inject({
      method: 'POST',
      url: '/v1/plans',
      headers: { 'sm-api-token': c.session, 'idempotency-key': 'plan-1' },
      payload: { seconds: 0.3, date: DATE },
    });
    expect(replay.body).toBe(first.body);
    const after = (await call(env.app, 'GET', `/v1/plans/${DATE}`, { token: c.session })).body.payload;
    expect(after.updatedAt).toBe(before.updatedAt);
    const reused = await plan(c.session, { date: '2030-03-06' }, { 'idempotency-key': 'plan-1' });
    expect(reused.statusCode).toBe(422);
    expect(reused.body.message).toBe(MSG.idempotencyKeyReused);
  });

  it('keeps locked stops at the head of their route when planned again, and fits a new shipment in', async () => {
    const { c } = await day();
    const p = (await plan(c.session, { date: DATE })).body.payload;
    const route = (p.routes as Route[]).find((x) => x.stops.length >= 2)!;
    const second = route.stops[1]!.tid;
    const locked = await call(env.app, 'PATCH', `/v1/plans/${DATE}/stops/${second}`, { token: c.session, body: { locked: true } });
    expect(locked.statusCode, JSON.stringify(locked.body)).toBe(200);
    const lockedRoute = (locked.body.payload.routes as Route[]).find((x) => x.courierEmail === route.courierEmail)!;
    // Locking a stop locks the ones before it: the route's head.
    expect(lockedRoute.stops.slice(0, 2).map((s) => [s.tid, s.locked])).toEqual([
      [route.stops[0]!.tid, true],
      [second, true],
    ]);
    expect(lockedRoute.stops.slice(2).every((s) => !s.locked)).toBe(true);

    const added = (await createShipment(env.app, c.session, stop(12))).tid;
    const r = await call(env.app, 'POST', `/v1/plans/${DATE}/replan`, { token: c.session, body: { seconds: 0.3 } });
    expect(r.statusCode, JSON.stringify(r.body)).toBe(200);
    const again = (r.body.payload.routes as Route[]).find((x) => x.courierEmail === route.courierEmail)!;
    expect(again.stops.slice(0, 2).map((s) => [s.tid, s.locked])).toEqual([
      [route.stops[0]!.tid, true],
      [second, true],
    ]);
    expect((r.body.payload.routes as Route[]).flatMap((x) => x.stops.map((s) => s.tid))).toContain(added);
    // Still spread over everyone on shift.
    for (const x of r.body.payload.routes as Route[]) expect(x.stops.length).toBeGreaterThan(0);
    expect(r.body.payload.createdAt).toBe(p.createdAt);
  });

  it('moves a stop to another courier: locked where it was put, new times, and assigned to them', async () => {
    const { c, ks } = await day();
    const p = (await plan(c.session, { date: DATE })).body.payload;
    const [a, b] = p.routes as Route[];
    const moving = a!.stops.at(-1)!.tid;
    const r = await call(env.app, 'PATCH', `/v1/plans/${DATE}/stops/${moving}`, {
      token: c.session,
      body: { courierEmail: b!.courierEmail, position: 1 },
    });
    expect(r.statusCode, JSON.stringify(r.body)).toBe(200);
    const to = (r.body.payload.routes as Route[]).find((x) => x.courierEmail === b!.courierEmail)!;
    expect(to.stops[0]).toMatchObject({ tid: moving, position: 1, locked: true });
    expect(to.stops.map((s) => s.tid)).toEqual([moving, ...b!.stops.map((s) => s.tid)]);
    const etas = to.stops.map((s) => Date.parse(s.eta));
    for (let i = 1; i < etas.length; i++) expect(etas[i]!).toBeGreaterThan(etas[i - 1]!);
    const from = (r.body.payload.routes as Route[]).find((x) => x.courierEmail === a!.courierEmail)!;
    expect(from.stops.map((s) => s.tid)).not.toContain(moving);
    const k = ks.find((x) => x.email === b!.courierEmail)!;
    const mine = await call(env.app, 'POST', '/v1/shipment/getassigned', { token: k.session, body: {} });
    expect(mine.body.payload.map((s: { tid: string }) => s.tid)).toContain(moving);
  });

  it("shows today's plan to the courier in order with times, and the window on the public page and in the out-for-delivery mail", async () => {
    const realNow = env.ctx.now;
    env.ctx.now = () => new Date(`${DATE}T07:00:00Z`);
    try {
      const { c, ks } = await day();
      const p = (await plan(c.session, { date: DATE })).body.payload;
      const route = (p.routes as Route[]).find((x) => x.courierEmail === ks[0]!.email)!;
      const today = await call(env.app, 'POST', '/v1/shipment/today', { token: ks[0]!.session, body: {} });
      expect(today.body.payload.stops.map((s: { tid: string }) => s.tid)).toEqual(route.stops.map((s) => s.tid));
      expect(today.body.payload.planned).toEqual(
        route.stops.map((s) => ({ tid: s.tid, position: s.position, eta: s.eta, windowFrom: s.windowFrom, windowTo: s.windowTo })),
      );
      const first = route.stops[0]!;
      const uid = (await call(env.app, 'POST', '/v1/shipment/getshipments', { token: c.session, body: {} })).body.payload[0].uid;
      const pub = await call(env.app, 'GET', `/v1/track/${uid}_${first.tid}`);
      expect(pub.body.payload[0].window).toEqual({ from: first.windowFrom, to: first.windowTo });
      // Out for delivery: the customer's mail says the hour.
      const out = await call(env.app, 'POST', '/v1/shipment/update', {
        token: ks[0]!.session,
        body: { tid: first.tid, status: 'OutForDelivery', location: 'Santa Monica, CA' },
      });
      expect(out.statusCode, JSON.stringify(out.body)).toBe(200);
      const mails = await env.ctx.db.execute<{ payload: { text: string; html: string } }>(
        sql`select n.payload from notifications n join tracking_events e on e.id = n.event_id join shipments s on s.id = e.shipment_id
            where s.tid = ${first.tid} and e.to_status = 'OutForDelivery' and n.channel = 'email' and n.audience = 'send'`,
      );
      const mail = (mails as unknown as { rows: { payload: { text: string; html: string } }[] }).rows[0]!.payload;
      const clock = (iso: string) =>
        new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' }).format(new Date(iso));
      expect(mail.text).toContain(`Expected between ${clock(first.windowFrom)} and ${clock(first.windowTo)}.`);
      expect(mail.html).toContain(`between ${clock(first.windowFrom)} and ${clock(first.windowTo)}`);
      // The next day, yesterday's plan no longer speaks for the shipment.
      env.ctx.now = () => new Date('2030-03-06T07:00:00Z');
      expect((await call(env.app, 'GET', `/v1/track/${uid}_${first.tid}`)).body.payload[0].window).toBeNull();
    } finally {
      env.ctx.now = realNow;
    }
  });

  it('refuses in words: a courier, a bad date, no couriers, no shipments', async () => {
    const { c, ks } = await day();
    const byCourier = await plan(ks[0]!.session, { date: DATE });
    expect(byCourier.statusCode).toBe(403);
    expect(byCourier.body.message).toBe(MSG.planOwnerOnly);
    const badDate = await plan(c.session, { date: '5/3/2030' });
    expect(badDate.statusCode).toBe(400);
    expect(badDate.body.message).toBe(MSG.planDateFormat);
    expect((await call(env.app, 'GET', '/v1/plans/2030-02-30', { token: c.session })).body.message).toBe(MSG.planDateFormat);
    expect((await call(env.app, 'GET', '/v1/plans/2031-01-01', { token: c.session })).body).toMatchObject({
      code: 404,
      message: MSG.planNotFound,
    });
    expect((await plan(c.session, { date: '2031-01-01' })).body).toMatchObject({ code: 409, message: MSG.planNoShipments });
    const alone = await company(env.app);
    await createShipment(env.app, alone.session, stop(1));
    expect((await plan(alone.session, { date: DATE })).body).toMatchObject({ code: 409, message: MSG.planNoCouriers });
    const shifts = await plan(c.session, { date: DATE, shiftStart: '18:00', shiftEnd: '08:00' });
    expect(shifts.body).toMatchObject({ code: 400, message: MSG.planShiftOrder });
  });
});
