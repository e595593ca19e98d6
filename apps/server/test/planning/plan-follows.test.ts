// The day moves (issue 30; decision 125): a shipment created for a planned day, given to a courier or taken
// from one is fitted into the stored plan at once, without undoing locked heads; the other routes keep their
// order and times, the courier gets the stop, and the customer's window follows.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { planUpdatesSettled } from '../../src/modules/planning/planning.service.ts';
import { call, createTestEnv, type TestEnv } from '../helpers.ts';
import { createShipment } from '../shipments/fixtures.ts';
import { planStop, plannedDay as plannedDayOf, type PlanRoute } from './fixtures.ts';

vi.setConfig({ testTimeout: 120_000 });
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await planUpdatesSettled();
  await env?.close();
});

const DATE = '2030-04-09';
const stop = (i: number, over: Record<string, unknown> = {}) => planStop(DATE, i, over);
type Route = PlanRoute;

/** A company with three couriers and nine shipments of DATE, planned. */
const plannedDay = () => plannedDayOf(env.app, DATE);

async function planOf(token: string) {
  await planUpdatesSettled();
  const r = await call(env.app, 'GET', `/v1/plans/${DATE}`, { token });
  return r.body.payload as { routes: Route[]; unplanned: { tid: string }[]; updatedAt: string };
}

const routeHolding = (routes: Route[], tid: string) => routes.find((r) => r.stops.some((s) => s.tid === tid));
const shape = (r: Route) => r.stops.map((s) => [s.tid, s.eta, s.locked]);

describe('the plan follows the day', () => {
  it('fits a new shipment into the cheapest route after the locked head; the other routes keep their order and times', async () => {
    const { c, ks, plan } = await plannedDay();
    const route = plan.routes.find((x) => x.stops.length >= 2)!;
    const lock = await call(env.app, 'PATCH', `/v1/plans/${DATE}/stops/${route.stops[1]!.tid}`, {
      token: c.session,
      body: { locked: true },
    });
    expect(lock.statusCode, JSON.stringify(lock.body)).toBe(200);
    const before = lock.body.payload.routes as Route[];

    const added = (await createShipment(env.app, c.session, stop(9))).tid;
    const after = await planOf(c.session);
    const took = routeHolding(after.routes, added);
    expect(took, JSON.stringify(after)).toBeDefined();
    // The locked head is where it was.
    const lockedNow = after.routes.find((x) => x.courierEmail === route.courierEmail)!;
    expect(lockedNow.stops.slice(0, 2).map((s) => [s.tid, s.locked])).toEqual([
      [route.stops[0]!.tid, true],
      [route.stops[1]!.tid, true],
    ]);
    // Only the route that took the stop changed.
    for (const r of before.filter((x) => x.courierEmail !== took!.courierEmail))
      expect(shape(after.routes.find((x) => x.courierEmail === r.courierEmail)!)).toEqual(shape(r));
    // Times rise along the route that took it, and its courier has the shipment.
    const etas = took!.stops.map((s) => Date.parse(s.eta));
    for (let i = 1; i < etas.length; i++) expect(etas[i]!).toBeGreaterThan(etas[i - 1]!);
    const k = ks.find((x) => x.email === took!.courierEmail)!;
    const mine = await call(env.app, 'POST', '/v1/shipment/getassigned', { token: k.session, body: {} });
    expect(mine.body.payload.map((s: { tid: string }) => s.tid)).toContain(added);
    // The customer's public page tells the new stop's window.
    const stopNow = took!.stops.find((s) => s.tid === added)!;
    const uid = (await call(env.app, 'POST', '/v1/shipment/getshipments', { token: c.session, body: {} })).body.payload[0].uid;
    const pub = await call(env.app, 'GET', `/v1/track/${uid}_${added}`);
    expect(pub.body.payload[0].window).toEqual({ from: stopNow.windowFrom, to: stopNow.windowTo });
  });

  it('a shipment of a day with no plan changes nothing, and one for another day stays out of this plan', async () => {
    const { c, plan } = await plannedDay();
    const other = (await createShipment(env.app, c.session, stop(10, { expected: '2030-04-10T12:00:00Z' }))).tid;
    const after = await planOf(c.session);
    expect(after.updatedAt).toBe(plan.updatedAt);
    expect(after.routes.flatMap((r) => r.stops.map((s) => s.tid))).not.toContain(other);
    expect((await call(env.app, 'GET', '/v1/plans/2030-04-10', { token: c.session })).statusCode).toBe(404);
  });

  it('a stop given to another courier goes to their route, locked there with the stops before it', async () => {
    const { c, plan } = await plannedDay();
    const [a, b] = plan.routes;
    const moving = a!.stops[0]!.tid;
    const r = await call(env.app, 'POST', '/v1/shipment/assign', {
      token: c.session,
      body: { tids: [moving], courierEmail: b!.courierEmail },
    });
    expect(r.statusCode, JSON.stringify(r.body)).toBe(200);
    const after = await planOf(c.session);
    const to = after.routes.find((x) => x.courierEmail === b!.courierEmail)!;
    const at = to.stops.findIndex((s) => s.tid === moving);
    expect(at, JSON.stringify(to)).toBeGreaterThanOrEqual(0);
    expect(to.stops.slice(0, at + 1).every((s) => s.locked)).toBe(true);
    expect(after.routes.find((x) => x.courierEmail === a!.courierEmail)!.stops.map((s) => s.tid)).not.toContain(moving);
    expect(after.routes.flatMap((x) => x.stops)).toHaveLength(9);
  });

  it("a stop taken from its courier goes to another courier's route and is assigned to them", async () => {
    const { c, ks, plan } = await plannedDay();
    const a = plan.routes[0]!;
    const taken = a.stops.at(-1)!.tid;
    const r = await call(env.app, 'POST', '/v1/shipment/unassign', { token: c.session, body: { tids: [taken] } });
    expect(r.statusCode, JSON.stringify(r.body)).toBe(200);
    const after = await planOf(c.session);
    const now = routeHolding(after.routes, taken);
    expect(now, JSON.stringify(after)).toBeDefined();
    expect(now!.courierEmail).not.toBe(a.courierEmail);
    const k = ks.find((x) => x.email === now!.courierEmail)!;
    const mine = await call(env.app, 'POST', '/v1/shipment/getassigned', { token: k.session, body: {} });
    expect(mine.body.payload.map((s: { tid: string }) => s.tid)).toContain(taken);
  });
});
