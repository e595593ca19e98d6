// The day moves on (issue 30; decision 137): a failed attempt is done for the day and stays at the head of its
// route with its time, an Expired shipment leaves the plan, and a stop delivered out of order heads the route;
// each time only that courier's remaining route is worked out again, from where the courier is, and the owner's
// page and the courier's phone hear of it.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { planUpdatesSettled } from '../../src/modules/planning/planning.service.ts';
import { call, createTestEnv, type TestEnv } from '../helpers.ts';
import { openStream, type SseStream } from '../live/sse-client.ts';
import { plannedDay as plannedDayOf, type Plan, type PlanRoute } from './fixtures.ts';
import { MSG } from '@shiptrail/contract';

vi.setConfig({ testTimeout: 120_000 });
let env: TestEnv;
let base: string;
const opened: SseStream[] = [];
let realNow: () => Date;
beforeAll(async () => {
  env = await createTestEnv();
  realNow = env.ctx.now;
  await env.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of opened) s.close();
  env.ctx.now = realNow;
  await planUpdatesSettled();
  await env?.close();
});

const DATE = '2030-05-14';
const SERVICE_MS = 5 * 60_000;

type Route = PlanRoute;

/** A company (UTC) with three couriers and nine shipments of DATE, planned at 07:00 on the day. */
async function plannedDay() {
  env.ctx.now = () => new Date(`${DATE}T07:00:00Z`);
  const { c, ks, plan } = await plannedDayOf(env.app, DATE);
  // The busiest route, and its courier.
  const route = [...plan.routes].sort((a, b) => b.stops.length - a.stops.length)[0]!;
  expect(route.stops.length, JSON.stringify(plan)).toBeGreaterThanOrEqual(3);
  const k = ks.find((x) => x.email === route.courierEmail)!;
  return { c, ks, plan, route, k };
}

async function planOf(token: string) {
  await planUpdatesSettled();
  const r = await call(env.app, 'GET', `/v1/plans/${DATE}`, { token });
  expect(r.statusCode, JSON.stringify(r.body)).toBe(200);
  return r.body.payload as Plan;
}

const shape = (r: Route) => r.stops.map((s) => [s.tid, s.eta, s.windowFrom, s.locked]);
const others = (before: Plan, after: Plan, email: string) =>
  before.routes
    .filter((r) => r.courierEmail !== email)
    .map((r) => [shape(r), shape(after.routes.find((x) => x.courierEmail === r.courierEmail)!)]);

async function checkpoint(token: string, tid: string, status: string) {
  const r = await call(env.app, 'POST', '/v1/shipment/update', { token, body: { tid, status, location: 'Santa Monica, CA' } });
  expect(r.statusCode, JSON.stringify(r.body)).toBe(200);
}

async function stream(token: string) {
  const s = await openStream(base, token);
  opened.push(s);
  return s;
}

describe('the plan follows a failed attempt, a cancel and an out-of-order delivery', () => {
  it('a failed attempt stays at the head of its route with its time, the rest of the route comes earlier, nothing else moves', async () => {
    const { c, plan, route, k } = await plannedDay();
    const failed = route.stops[0]!;
    const rest = route.stops.slice(1).map((s) => s.tid);
    const ownerLive = await stream(c.session);
    const courierLive = await stream(k.session);

    // The courier is at the first stop when planned, and nobody is in.
    env.ctx.now = () => new Date(failed.eta);
    await checkpoint(k.session, failed.tid, 'FailAttempt');
    const after = await planOf(c.session);

    const mine = after.routes.find((r) => r.courierEmail === route.courierEmail)!;
    expect(mine.stops[0], JSON.stringify(mine)).toMatchObject({
      tid: failed.tid,
      status: 'FailAttempt',
      position: 1,
      eta: failed.eta,
      locked: false,
    });
    expect(
      mine.stops
        .slice(1)
        .map((s) => s.tid)
        .sort(),
    ).toEqual([...rest].sort());
    // Timed from the failed stop when it failed (today's times start at now, to the minute above): no service
    // there, so the route ends about that much earlier.
    expect(Date.parse(mine.end)).toBeLessThanOrEqual(Date.parse(route.end) - SERVICE_MS + 60_000);
    const etas = mine.stops.slice(1).map((s) => Date.parse(s.eta));
    expect(etas[0]!).toBeGreaterThan(Date.parse(failed.eta));
    for (let i = 1; i < etas.length; i++) expect(etas[i]!).toBeGreaterThan(etas[i - 1]!);
    if (mine.stops.slice(1).every((s, i) => s.tid === rest[i]))
      mine.stops.slice(1).forEach((s, i) => expect(Date.parse(s.eta)).toBeLessThan(Date.parse(route.stops[i + 1]!.eta)));
    for (const [was, now] of others(plan, after, route.courierEmail)) expect(now).toEqual(was);
    expect(after.unplanned.map((u) => u.tid)).not.toContain(failed.tid);

    // The owner's page and the courier's phone hear of the plan's change (after the checkpoint's own event).
    for (const live of [ownerLive, courierLive])
      await live.waitFor((f) => f.data.kind === 'shipment' && f.data.tid === failed.tid && f.data.statusChanged === false, 10_000);
    // The courier's phone shows the new times; the customer is no longer told a window for today.
    const day = await call(env.app, 'POST', '/v1/shipment/today', { token: k.session, body: {} });
    const planned = day.body.payload.planned as { tid: string; eta: string }[];
    for (const s of mine.stops.slice(1)) expect(planned.find((p) => p.tid === s.tid)?.eta).toBe(s.eta);
    const uid = (await call(env.app, 'POST', '/v1/shipment/getshipments', { token: c.session, body: {} })).body.payload[0].uid;
    expect((await call(env.app, 'GET', `/v1/track/${uid}_${failed.tid}`)).body.payload[0].window ?? null).toBeNull();
    expect((await call(env.app, 'GET', `/v1/track/${uid}_${rest[0]}`)).body.payload[0].window).toBeTruthy();

    // Planning again keeps it done: not visited again.
    const again = await call(env.app, 'POST', `/v1/plans/${DATE}/replan`, { token: c.session, body: { seconds: 0.3 } });
    expect(again.statusCode, JSON.stringify(again.body)).toBe(200);
    const replanned = again.body.payload as Plan;
    expect(replanned.routes.flatMap((r) => r.stops).filter((s) => s.tid === failed.tid)).toEqual([
      expect.objectContaining({ tid: failed.tid, status: 'FailAttempt', position: 1, eta: failed.eta }),
    ]);

    // Given to a courier again by the owner, it is a stop to do once more.
    const b = plan.routes.find((r) => r.courierEmail !== route.courierEmail)!;
    const give = await call(env.app, 'POST', '/v1/shipment/assign', {
      token: c.session,
      body: { tids: [failed.tid], courierEmail: b.courierEmail },
    });
    expect(give.statusCode, JSON.stringify(give.body)).toBe(200);
    const readded = await planOf(c.session);
    expect(readded.routes.find((r) => r.courierEmail === route.courierEmail)!.stops.map((s) => s.tid)).not.toContain(failed.tid);
    const inB = readded.routes.find((r) => r.courierEmail === b.courierEmail)!.stops.find((s) => s.tid === failed.tid);
    expect(inB, JSON.stringify(readded)).toMatchObject({ locked: true });
    expect(Date.parse(inB!.eta)).toBeGreaterThan(Date.parse(failed.eta));
  });

  it('a failed attempt tried again the same day is a stop to do again for the same courier, told to the customer; delivered, it is done', async () => {
    const { c, plan, route, k } = await plannedDay();
    const failed = route.stops[0]!;
    env.ctx.now = () => new Date(failed.eta);
    await checkpoint(k.session, failed.tid, 'FailAttempt');
    const attempted = await planOf(c.session);
    expect(attempted.routes.flatMap((r) => r.stops).find((s) => s.tid === failed.tid)).toMatchObject({ done: true });
    const uid = (await call(env.app, 'POST', '/v1/shipment/getshipments', { token: c.session, body: {} })).body.payload[0].uid;
    expect((await call(env.app, 'GET', `/v1/track/${uid}_${failed.tid}`)).body.payload[0].window ?? null).toBeNull();

    // An hour later the courier goes back: Out For Delivery again.
    const later = Date.parse(failed.eta) + 3_600_000;
    env.ctx.now = () => new Date(later);
    await checkpoint(k.session, failed.tid, 'OutForDelivery');
    const again = await planOf(c.session);
    const mine = again.routes.find((r) => r.courierEmail === route.courierEmail)!;
    const reopened = mine.stops.find((s) => s.tid === failed.tid);
    expect(reopened, JSON.stringify(mine)).toMatchObject({ done: false, status: 'OutForDelivery' });
    expect(Date.parse(reopened!.eta)).toBeGreaterThanOrEqual(later);
    expect(mine.stops.map((s) => s.tid).sort()).toEqual(route.stops.map((s) => s.tid).sort());
    expect(mine.stops.map((s) => s.position)).toEqual(mine.stops.map((_, i) => i + 1));
    for (const [was, now] of others(plan, again, route.courierEmail)) expect(now).toEqual(was);
    // The customer is told a window again, and the courier's phone has the stop's new time.
    expect((await call(env.app, 'GET', `/v1/track/${uid}_${failed.tid}`)).body.payload[0].window).toEqual({
      from: reopened!.windowFrom,
      to: reopened!.windowTo,
    });
    const day = await call(env.app, 'POST', '/v1/shipment/today', { token: k.session, body: {} });
    expect((day.body.payload.planned as { tid: string; eta: string }[]).find((p) => p.tid === failed.tid)?.eta).toBe(reopened!.eta);

    // Delivered on the second try: done, at the head of the route.
    env.ctx.now = () => new Date(Date.parse(reopened!.eta));
    await checkpoint(k.session, failed.tid, 'Delivered');
    const delivered = (await planOf(c.session)).routes.find((r) => r.courierEmail === route.courierEmail)!;
    expect(delivered.stops.find((s) => s.tid === failed.tid)).toMatchObject({ done: true, status: 'Delivered' });
    expect(delivered.stops.filter((s) => s.done).map((s) => s.position)).toEqual([1]);
  });

  it('an Expired (cancelled) shipment leaves the plan; the later stops of its route come earlier, the other routes stay', async () => {
    const { c, plan, route } = await plannedDay();
    const gone = route.stops[1]!;
    await checkpoint(c.session, gone.tid, 'Expired');
    const after = await planOf(c.session);
    expect(after.routes.flatMap((r) => r.stops.map((s) => s.tid))).not.toContain(gone.tid);
    expect(after.unplanned.map((u) => u.tid)).not.toContain(gone.tid);
    const mine = after.routes.find((r) => r.courierEmail === route.courierEmail)!;
    expect(mine.stops.map((s) => s.tid).sort()).toEqual(
      route.stops
        .filter((s) => s !== gone)
        .map((s) => s.tid)
        .sort(),
    );
    expect(mine.stops.map((s) => s.position)).toEqual(mine.stops.map((_, i) => i + 1));
    expect(Date.parse(mine.end)).toBeLessThan(Date.parse(route.end));
    // The stop before it keeps its time; the first one after it comes earlier.
    expect(mine.stops[0]!.eta).toBe(route.stops[0]!.eta);
    if (mine.stops[1]!.tid === route.stops[2]!.tid) expect(Date.parse(mine.stops[1]!.eta)).toBeLessThan(Date.parse(route.stops[2]!.eta));
    for (const [was, now] of others(plan, after, route.courierEmail)) expect(now).toEqual(was);
  });

  it('a stop delivered out of order heads the route with its time; the route keeps the rest and is timed from there', async () => {
    const { c, plan, route, k } = await plannedDay();
    const first = route.stops[0]!;
    const skipped = route.stops.at(-1)!;
    env.ctx.now = () => new Date(first.eta);
    await checkpoint(k.session, skipped.tid, 'Delivered');
    const after = await planOf(c.session);
    const mine = after.routes.find((r) => r.courierEmail === route.courierEmail)!;
    expect(mine.stops[0]).toMatchObject({ tid: skipped.tid, status: 'Delivered', position: 1, eta: first.eta });
    expect(mine.stops.map((s) => s.tid).sort()).toEqual(route.stops.map((s) => s.tid).sort());
    const etas = mine.stops.map((s) => Date.parse(s.eta));
    for (let i = 1; i < etas.length; i++) expect(etas[i]!).toBeGreaterThan(etas[i - 1]!);
    for (const [was, now] of others(plan, after, route.courierEmail)) expect(now).toEqual(was);

    // A stop moved by hand to the top goes after the done one, which keeps its time.
    const last = mine.stops.at(-1)!;
    const moved = await call(env.app, 'PATCH', `/v1/plans/${DATE}/stops/${last.tid}`, { token: c.session, body: { position: 1 } });
    expect(moved.statusCode, JSON.stringify(moved.body)).toBe(200);
    const byHand = (moved.body.payload as Plan).routes.find((r) => r.courierEmail === route.courierEmail)!;
    expect(byHand.stops.slice(0, 2).map((s) => [s.tid, s.position, s.locked])).toEqual([
      [skipped.tid, 1, false],
      [last.tid, 2, true],
    ]);
    expect(byHand.stops[0]!.eta).toBe(first.eta);
    expect(Date.parse(byHand.stops[1]!.eta)).toBeGreaterThan(Date.parse(first.eta));
    expect(byHand.stops.map((s) => s.done)).toEqual(byHand.stops.map((_, i) => i === 0));

    // The done stop itself is not moved, unlocked or given to another courier: refused in words, the plan unchanged.
    const other = plan.routes.find((r) => r.courierEmail !== route.courierEmail)!;
    for (const body of [{ position: 2 }, { locked: true }, { courierEmail: other.courierEmail }]) {
      const r = await call(env.app, 'PATCH', `/v1/plans/${DATE}/stops/${skipped.tid}`, { token: c.session, body });
      expect([r.statusCode, r.body.message], JSON.stringify(body)).toEqual([409, MSG.planStopDone]);
    }
    expect((await planOf(c.session)).routes).toEqual((moved.body.payload as Plan).routes);
  });

  it('a status that does not end the stop changes nothing; one that ends it, on the same stop, does', async () => {
    const { c, plan, route, k } = await plannedDay();
    env.ctx.now = () => new Date(route.stops[0]!.eta);
    await checkpoint(k.session, route.stops[0]!.tid, 'OutForDelivery');
    const after = await planOf(c.session);
    // Everything but the stop's status (read live from its shipment) as it was: order, times, windows, locks.
    const timing = (p: Plan) => ({ ...p, routes: p.routes.map((r) => ({ ...r, stops: r.stops.map(({ status: _s, ...rest }) => rest) })) });
    expect(timing(after)).toEqual(timing(plan));
    // The control: the same stop, the same clock, a status that ends it. Without it the check above would also
    // pass with the plan not following checkpoints at all.
    await checkpoint(k.session, route.stops[0]!.tid, 'FailAttempt');
    const ended = await planOf(c.session);
    expect(ended.updatedAt).not.toBe(plan.updatedAt);
    expect(ended.routes.flatMap((r) => r.stops).find((s) => s.tid === route.stops[0]!.tid)).toMatchObject({ done: true });
  });
});
