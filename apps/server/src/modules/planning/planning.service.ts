// Plan the day (issue 30; decision 118): the company's open shipments of a day shared among its couriers by
// the route solver (packages/routing, on a worker thread), stored as ordered stops with an arrival time and a
// window for the customer, and handed to the couriers through the shipments module's assignment path.
import type { z } from 'zod';
import {
  MSG,
  PLAN_DEFAULTS,
  UNPLANNED_MESSAGES,
  normalizeTrackingNumber,
  type CourierDay,
  type PlanView,
  type patchPlanStopRequest,
  type planSettings,
} from '@shiptrail/contract';
import type { RoutingProblem, RoutingSolution, UnplannedReason } from '@shiptrail/routing';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors.ts';
import type { UserRow } from '../accounts/accounts.service.ts';
import { couriersOf, findCourierByEmail } from '../members/members.service.ts';
import {
  COMPANY_ONLY,
  assignPlanned,
  companyOf,
  openShipmentsForDay,
  shipmentsByIds,
  type PlanningShipment,
} from '../shipments/shipments.service.ts';
import { customerWindow, localDate, localMidnight, minutesOf, nextDate, routeTimes, type Matrix, type Point } from './model.ts';
import { travelFor, type TravelSource } from './travel.ts';
import * as repo from './planning.repository.ts';
import { solveOffThread } from './solve-thread.ts';

type SettingsInput = z.output<typeof planSettings>;

/** What a plan was made with, stored with it (a re-plan starts from it). */
interface Settings {
  serviceMinutes: number;
  seconds: number;
  shiftStart: string;
  shiftEnd: string;
  /** Parcels per courier as asked; null: no limit asked (a fair share is used, decision 118). */
  capacity: number | null;
  /** The depot as asked; null: the origin most shipments share. */
  depotGiven: Point | null;
  /** The couriers asked for (ids); null: all of the company's. */
  courierIds: string[] | null;
}
interface StoredSettings extends Settings {
  depot: Point;
  /** Road times from the routing server, or the straight-line estimate. */
  travel?: TravelSource;
  /** Each planned courier's day: leaving the depot, back at it (ISO), and the road estimate in km. */
  routes: { courierId: string; start: string; end: string; km: number }[];
}
type Unplanned = { shipmentId: string; reason: UnplannedReason }[];

function requireOwner(u: UserRow) {
  if (u.role === 'courier') throw forbidden(MSG.planOwnerOnly);
  if (u.userType !== 'company') throw forbidden(COMPANY_ONLY);
}

const fullName = (u: Pick<UserRow, 'firstName' | 'lastName' | 'email'>) => [u.firstName, u.lastName].filter(Boolean).join(' ') || u.email;

function zoneOf(company: UserRow): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: company.timeZone || 'UTC' });
    return company.timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

async function settingsOf(ctx: AppContext, company: UserRow, input: SettingsInput, base?: Settings): Promise<Settings> {
  let courierIds = base?.courierIds ?? null;
  if (input.couriers) {
    courierIds = [];
    for (const email of input.couriers) {
      const c = await findCourierByEmail(ctx, company.id, email);
      if (!c) throw badRequest(`${MSG.notYourCourier} (${email})`, { couriers: MSG.notYourCourier });
      courierIds.push(c.id);
    }
  }
  const s: Settings = {
    serviceMinutes: input.serviceMinutes ?? base?.serviceMinutes ?? PLAN_DEFAULTS.serviceMinutes,
    seconds: input.seconds ?? base?.seconds ?? PLAN_DEFAULTS.seconds,
    shiftStart: input.shiftStart ?? base?.shiftStart ?? PLAN_DEFAULTS.shiftStart,
    shiftEnd: input.shiftEnd ?? base?.shiftEnd ?? PLAN_DEFAULTS.shiftEnd,
    capacity: input.capacity ?? base?.capacity ?? null,
    depotGiven: input.depot ?? base?.depotGiven ?? null,
    courierIds,
  };
  if (s.shiftStart >= s.shiftEnd) throw badRequest(MSG.planShiftOrder, { shiftEnd: MSG.planShiftOrder });
  return s;
}

/** The origin most of the shipments share (to about a metre): where the vans are loaded. */
function commonOrigin(ships: PlanningShipment[]): Point | null {
  const counts = new Map<string, { p: Point; n: number }>();
  for (const s of ships) {
    if (s.origin.lat == null || s.origin.long == null) continue;
    const key = `${s.origin.lat.toFixed(5)},${s.origin.long.toFixed(5)}`;
    const c = counts.get(key) ?? { p: { lat: s.origin.lat, long: s.origin.long }, n: 0 };
    c.n++;
    counts.set(key, c);
  }
  let best: { p: Point; n: number } | null = null;
  for (const c of counts.values()) if (!best || c.n > best.n) best = c;
  return best?.p ?? null;
}

const pointOf = (s: PlanningShipment): Point | null =>
  s.destination.lat != null && s.destination.long != null ? { lat: s.destination.lat, long: s.destination.long } : null;

/** Far enough to mean "no closing time": the shift ends first. */
const OPEN_END = 2 * 86_400;

interface Prepared {
  tz: string;
  midnight: Date;
  settings: Settings;
  depot: Point;
  couriers: UserRow[];
  ships: PlanningShipment[];
  problem: RoutingProblem;
  startSec: number;
  lockedIds: Set<string>;
  travel: TravelSource;
}

/** The day's problem: couriers on shift from the depot, open shipments as stops, and a previous plan's locks. */
async function prepare(
  ctx: AppContext,
  company: UserRow,
  date: string,
  settings: Settings,
  previous?: { stops: repo.StopRow[] },
): Promise<Prepared> {
  const tz = zoneOf(company);
  const midnight = localMidnight(date, tz);
  const all = await couriersOf(ctx, company.id);
  const couriers = settings.courierIds ? all.filter((c) => settings.courierIds!.includes(c.id)) : all;
  if (couriers.length === 0) throw conflict(MSG.planNoCouriers);
  const ships = await openShipmentsForDay(ctx, company, midnight, localMidnight(nextDate(date), tz));
  if (ships.length === 0) throw conflict(MSG.planNoShipments);
  const depot = settings.depotGiven ?? commonOrigin(ships);
  if (!depot) throw conflict(MSG.planNoDepot);

  // Today, nobody leaves before now.
  const shiftEnd = minutesOf(settings.shiftEnd) * 60;
  let startSec = minutesOf(settings.shiftStart) * 60;
  const now = ctx.now();
  if (localDate(now, tz) === date) startSec = Math.max(startSec, Math.ceil((now.getTime() - midnight.getTime()) / 60_000) * 60);
  if (startSec >= shiftEnd) throw conflict(MSG.planShiftOver);

  const places: Point[] = [depot];
  const service = settings.serviceMinutes * 60;
  const stops = ships.map((s) => {
    const at = pointOf(s);
    if (at) places.push(at);
    return {
      id: s.id,
      location: at ? places.length - 1 : null,
      demand: s.parcels,
      service,
      ready: s.windowFrom ? minutesOf(s.windowFrom) * 60 : 0,
      due: s.windowTo ? minutesOf(s.windowTo) * 60 : OPEN_END,
    };
  });
  // No capacity asked: each courier takes an even share of the parcels (solveDay widens it if that leaves
  // stops out), so the day is spread over everyone on shift instead of packed into the fewest vans (the
  // solver's objective; decision 118).
  const total = ships.reduce((n, s) => n + s.parcels, 0);
  const biggest = Math.max(...ships.map((s) => s.parcels));
  const capacity = settings.capacity ?? Math.max(biggest, Math.ceil(total / couriers.length));

  const { matrix, source } = await travelFor(ctx, places);
  const placeOf = new Map(stops.map((s) => [s.id, s.location]));

  // Locked stops: each route's locked head, kept when still open and its courier still planned for.
  const open = new Set(ships.filter((s) => pointOf(s)).map((s) => s.id));
  const ids = new Set(couriers.map((c) => c.id));
  const byCourier = new Map<string, repo.StopRow[]>();
  for (const r of previous?.stops ?? [])
    if (ids.has(r.courierId) && open.has(r.shipmentId)) byCourier.set(r.courierId, [...(byCourier.get(r.courierId) ?? []), r]);
  const locked: RoutingProblem['locked'] = [];
  const initial: RoutingProblem['initial'] = [];
  const lockedIds = new Set<string>();
  const shipById = new Map(ships.map((s) => [s.id, s]));
  for (const [courierId, rows] of byCourier) {
    rows.sort((a, b) => a.position - b.position);
    const head = rows.filter((r) => r.locked).map((r) => r.shipmentId);
    if (head.length) {
      const check = routeTimes(
        startSec,
        shiftEnd,
        head.map((id) => stopTiming(shipById.get(id)!, service)),
        subMatrix(matrix, [0, ...head.map((id) => placeOf.get(id)!)]),
      );
      if (check.times.some((t) => t.late)) {
        const c = couriers.find((x) => x.id === courierId)!;
        throw conflict(`The locked stops of ${fullName(c)} no longer fit their windows or the shift: unlock some of them and plan again`);
      }
      locked.push({ vehicle: courierId, stops: head });
      for (const id of head) lockedIds.add(id);
    }
    initial.push({ vehicle: courierId, stops: rows.filter((r) => !r.locked).map((r) => r.shipmentId) });
  }
  const lockedDemand = (courierId: string) =>
    (locked.find((l) => l.vehicle === courierId)?.stops ?? []).reduce((n, id) => n + (shipById.get(id)?.parcels ?? 0), 0);
  const problem: RoutingProblem = {
    travel: matrix,
    vehicles: couriers.map((c) => ({
      id: c.id,
      start: 0,
      end: 0,
      capacity: Math.max(capacity, lockedDemand(c.id)),
      shiftStart: startSec,
      shiftEnd,
    })),
    stops,
    locked,
    initial,
  };
  return { tz, midnight, settings, depot, couriers, ships, problem, startSec, lockedIds, travel: source };
}

/** The rows and columns of `m` at `idx`, in that order. */
function subMatrix(m: Matrix, idx: number[]): Matrix {
  const n = idx.length;
  const time = new Float64Array(n * n);
  const distance = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      time[i * n + j] = m.time[idx[i]! * m.size + idx[j]!]!;
      distance[i * n + j] = m.distance[idx[i]! * m.size + idx[j]!]!;
    }
  return { size: n, time, distance };
}

const stopTiming = (s: PlanningShipment, service: number) => ({
  service,
  ready: s.windowFrom ? minutesOf(s.windowFrom) * 60 : 0,
  due: s.windowTo ? minutesOf(s.windowTo) * 60 : OPEN_END,
});

/**
 * The solver on its thread. Without an asked capacity, an even share that leaves stops out for capacity is
 * widened by a quarter, then lifted (each a solve of its own).
 */
async function solveDay(ctx: AppContext, p: Prepared): Promise<RoutingSolution> {
  const options = { seconds: p.settings.seconds, seed: 1 };
  let solution = await solveOffThread(p.problem, options, ctx.config.ROUTING_THREADS);
  if (p.settings.capacity != null) return solution;
  for (const widen of [1.25, Infinity]) {
    if (!solution.unplanned.some((u) => u.reason === 'capacity')) break;
    const vehicles = p.problem.vehicles.map((v) => ({
      ...v,
      capacity: widen === Infinity ? Number.MAX_SAFE_INTEGER : Math.ceil(v.capacity * widen),
    }));
    solution = await solveOffThread({ ...p.problem, vehicles }, options, ctx.config.ROUTING_THREADS);
  }
  return solution;
}

export interface Solved {
  prepared: Prepared;
  solution: RoutingSolution;
}

/** Work the plan out (no writes): the caller stores it with `storePlan`, under its Idempotency-Key if any. */
export async function solvePlan(ctx: AppContext, company: UserRow, date: string, input: SettingsInput, replan = false): Promise<Solved> {
  requireOwner(company);
  let settings: Settings;
  let previous: { stops: repo.StopRow[] } | undefined;
  if (replan) {
    const plan = await repo.findPlan(ctx.db, company.id, date);
    if (!plan) throw notFound(MSG.planNotFound);
    settings = await settingsOf(ctx, company, input, plan.settings as StoredSettings);
    previous = { stops: await repo.stopsOf(ctx.db, plan.id) };
  } else settings = await settingsOf(ctx, company, input);
  const prepared = await prepare(ctx, company, date, settings, previous);
  return { prepared, solution: await solveDay(ctx, prepared) };
}

/** Store a worked-out plan and give each courier their stops (the bulk assignment path: one set of live events). */
export async function storePlan(ctx: AppContext, company: UserRow, date: string, solved: Solved, tx: Tx): Promise<PlanView> {
  const { prepared: p, solution } = solved;
  const now = ctx.now();
  const at = (secs: number) => new Date(p.midnight.getTime() + secs * 1000);
  const stops: repo.NewStop[] = [];
  const routes: StoredSettings['routes'] = [];
  const shipById = new Map(p.ships.map((s) => [s.id, s]));
  for (const c of p.couriers) {
    const r = solution.routes.find((x) => x.vehicle === c.id);
    if (!r || r.stops.length === 0) {
      routes.push({ courierId: c.id, start: at(p.startSec).toISOString(), end: at(p.startSec).toISOString(), km: 0 });
      continue;
    }
    r.stops.forEach((shipmentId, i) => {
      const eta = at(r.times[i]!);
      const w = customerWindow(eta, PLAN_DEFAULTS.windowHalfMinutes);
      stops.push({
        planId: '',
        shipmentId,
        courierId: c.id,
        position: i + 1,
        eta,
        windowFrom: w.from,
        windowTo: w.to,
        locked: p.lockedIds.has(shipmentId),
        late: false,
      });
    });
    routes.push({ courierId: c.id, start: at(p.startSec).toISOString(), end: at(r.end).toISOString(), km: round1(r.distance) });
  }
  const settings: StoredSettings = { ...p.settings, depot: p.depot, travel: p.travel, routes };
  const unplanned: Unplanned = solution.unplanned.map((u) => ({ shipmentId: u.stop, reason: u.reason }));
  const plan = await repo.savePlan(tx, { companyId: company.id, date, timeZone: p.tz, settings, unplanned, now });
  await repo.replaceStops(
    tx,
    plan.id,
    stops.map((s) => ({ ...s, planId: plan.id })),
  );
  for (const c of p.couriers) {
    const tids = stops
      .filter((s) => s.courierId === c.id && shipById.get(s.shipmentId)!.courierId !== c.id)
      .map((s) => shipById.get(s.shipmentId)!.tid);
    await assignPlanned(ctx, company, c, tids, tx);
  }
  return planView(ctx, company, plan, tx);
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** GET /v1/plans/{date} */
export async function getPlan(ctx: AppContext, company: UserRow, date: string): Promise<PlanView> {
  requireOwner(company);
  const plan = await repo.findPlan(ctx.db, company.id, date);
  if (!plan) throw notFound(MSG.planNotFound);
  return planView(ctx, company, plan, ctx.db);
}

async function planView(ctx: AppContext, company: UserRow, plan: repo.PlanRow, db: Tx | AppContext['db']): Promise<PlanView> {
  const settings = plan.settings as StoredSettings;
  const unplanned = plan.unplanned as Unplanned;
  const stops = await repo.stopsOf(db, plan.id);
  const ships = new Map(
    (await shipmentsByIds(ctx, company.id, [...stops.map((s) => s.shipmentId), ...unplanned.map((u) => u.shipmentId)], db)).map((s) => [
      s.id,
      s,
    ]),
  );
  const couriers = new Map((await couriersOf(ctx, company.id, db)).map((c) => [c.id, c]));
  return {
    date: plan.date,
    timeZone: plan.timeZone,
    depot: settings.depot,
    settings: {
      serviceMinutes: settings.serviceMinutes,
      seconds: settings.seconds,
      shiftStart: settings.shiftStart,
      shiftEnd: settings.shiftEnd,
      capacity: settings.capacity,
      travel: settings.travel ?? 'straight-line',
    },
    routes: settings.routes
      .filter((r) => couriers.has(r.courierId))
      .map((r) => {
        const c = couriers.get(r.courierId)!;
        return {
          courierUid: c.uid,
          courier: fullName(c),
          courierEmail: c.email,
          start: r.start,
          end: r.end,
          distanceKm: r.km,
          stops: stops
            .filter((s) => s.courierId === r.courierId && ships.has(s.shipmentId))
            .sort((a, b) => a.position - b.position)
            .map((s) => {
              const sh = ships.get(s.shipmentId)!;
              return {
                tid: sh.tid,
                status: sh.status,
                position: s.position,
                eta: s.eta.toISOString(),
                windowFrom: s.windowFrom.toISOString(),
                windowTo: s.windowTo.toISOString(),
                locked: s.locked,
                late: s.late,
                at: pointOf(sh) ?? settings.depot,
                address: sh.destination.address,
                name: sh.destination.name,
                shipmentWindow: { from: sh.windowFrom, to: sh.windowTo },
              };
            }),
        };
      }),
    unplanned: unplanned
      .filter((u) => ships.has(u.shipmentId))
      .map((u) => {
        const sh = ships.get(u.shipmentId)!;
        return { tid: sh.tid, reason: u.reason, message: UNPLANNED_MESSAGES[u.reason], address: sh.destination.address, at: pointOf(sh) };
      }),
    createdAt: plan.createdAt.toISOString(),
    updatedAt: plan.updatedAt.toISOString(),
  };
}

// ------------------------------------------------------------------ a stop changed by hand
type PatchInput = z.output<typeof patchPlanStopRequest>;

/**
 * Lock or unlock a stop, or move it to another courier and/or place. A route's locked stops are always its
 * head: locking a stop locks the stops before it, unlocking one unlocks the stops after it, and a moved stop
 * is locked where it was put (so planning again keeps it there). The changed routes' times are worked out
 * again with the same travel model; a stop that now misses its window or the shift is marked late.
 */
export async function patchStop(ctx: AppContext, company: UserRow, date: string, rawTid: string, input: PatchInput): Promise<PlanView> {
  requireOwner(company);
  const tid = normalizeTrackingNumber(rawTid);
  const target = input.courierEmail ? await findCourierByEmail(ctx, company.id, input.courierEmail) : undefined;
  if (input.courierEmail && !target) throw badRequest(MSG.notYourCourier, { courierEmail: MSG.notYourCourier });
  // Read and work the change out first (the changed routes' travel may come from the routing server), then
  // write it in a transaction that finds the plan as it was read.
  const plan = await repo.findPlan(ctx.db, company.id, date);
  if (!plan) throw notFound(MSG.planNotFound);
  const settings = plan.settings as StoredSettings;
  const rows = await repo.stopsOf(ctx.db, plan.id);
  const ships = new Map(
    (
      await shipmentsByIds(
        ctx,
        company.id,
        rows.map((r) => r.shipmentId),
      )
    ).map((s) => [s.id, s]),
  );
  const row = rows.find((r) => ships.get(r.shipmentId)?.tid === tid);
  if (!row) throw notFound(MSG.planStopNotFound);

  const routeOf = (courierId: string) => rows.filter((r) => r.courierId === courierId).sort((a, b) => a.position - b.position);
  const from = row.courierId;
  const to = target?.id ?? from;
  const moved = input.courierEmail !== undefined || input.position !== undefined;
  const a = routeOf(from).filter((r) => r !== row);
  const b = to === from ? a : routeOf(to);
  if (moved) {
    const at = input.position !== undefined ? Math.min(input.position - 1, b.length) : to === from ? routeOf(from).indexOf(row) : b.length;
    b.splice(at, 0, row);
    row.courierId = to;
    row.locked = true;
  } else a.splice(routeOf(from).indexOf(row), 0, row);
  const route = to === from ? a : b;
  const idx = route.indexOf(row);
  if (input.locked === true) row.locked = true;
  if (input.locked === false) for (let i = idx; i < route.length; i++) route[i]!.locked = false;
  const service = settings.serviceMinutes * 60;
  const midnight = localMidnight(plan.date, plan.timeZone);
  const changed = to === from ? [[from, a] as const] : [[from, a] as const, [to, b] as const];
  for (const [courierId, list] of changed) {
    // The locked stops are the route's head.
    const last = list.map((r) => r.locked).lastIndexOf(true);
    list.forEach((r, i) => {
      r.locked = i <= last;
      r.position = i + 1;
    });
    const meta = settings.routes.find((r) => r.courierId === courierId);
    const startSec = meta ? (Date.parse(meta.start) - midnight.getTime()) / 1000 : minutesOf(settings.shiftStart) * 60;
    const places = [settings.depot, ...list.map((r) => pointOf(ships.get(r.shipmentId)!) ?? settings.depot)];
    const timed = routeTimes(
      startSec,
      minutesOf(settings.shiftEnd) * 60,
      list.map((r) => stopTiming(ships.get(r.shipmentId)!, service)),
      (await travelFor(ctx, places)).matrix,
    );
    list.forEach((r, i) => {
      r.eta = new Date(midnight.getTime() + timed.times[i]!.start * 1000);
      const w = customerWindow(r.eta, PLAN_DEFAULTS.windowHalfMinutes);
      r.windowFrom = w.from;
      r.windowTo = w.to;
      r.late = timed.times[i]!.late;
    });
    const end = new Date(midnight.getTime() + timed.end * 1000).toISOString();
    const start = new Date(midnight.getTime() + startSec * 1000).toISOString();
    if (meta) Object.assign(meta, { start, end, km: round1(timed.km) });
    else settings.routes.push({ courierId, start, end, km: round1(timed.km) });
  }
  return ctx.db.transaction(async (tx) => {
    const now = await repo.lockPlan(tx, company.id, date);
    if (!now || now.id !== plan.id || now.updatedAt.getTime() !== plan.updatedAt.getTime()) throw conflict(MSG.planChanged);
    await repo.replaceStops(tx, plan.id, rows);
    const saved = await repo.savePlan(tx, {
      companyId: company.id,
      date: plan.date,
      timeZone: plan.timeZone,
      settings,
      unplanned: plan.unplanned,
      now: ctx.now(),
    });
    if (target && target.id !== ships.get(row.shipmentId)!.courierId) await assignPlanned(ctx, company, target, [tid], tx);
    return planView(ctx, company, saved, tx);
  });
}

// ------------------------------------------------------------------ what couriers and customers see
/** The courier's day in the order of today's plan (planned stops first), with their planned times. */
export async function courierDayInPlanOrder(ctx: AppContext, courier: UserRow, day: CourierDay): Promise<CourierDay> {
  if (courier.role !== 'courier' || !courier.companyId) return day;
  const company = await companyOf(ctx, courier);
  const date = localDate(ctx.now(), zoneOf(company));
  const planned = await repo.courierStops(ctx.db, company.id, date, courier.id);
  if (planned.length === 0) return day;
  const rank = new Map(planned.map((p, i) => [p.tid, i]));
  const stops = [...day.stops].sort((x, y) => (rank.get(x.tid) ?? Infinity) - (rank.get(y.tid) ?? Infinity));
  const open = new Set(stops.map((s) => s.tid));
  return {
    ...day,
    stops,
    planned: planned
      .filter((p) => open.has(p.tid))
      .map((p) => ({
        tid: p.tid,
        position: p.stop.position,
        eta: p.stop.eta.toISOString(),
        windowFrom: p.stop.windowFrom.toISOString(),
        windowTo: p.stop.windowTo.toISOString(),
      })),
  };
}

/** The window the customer is told on the public page: the latest plan's, for today or later, while open. */
export async function publicWindow(ctx: AppContext, tid: string, status: string): Promise<{ from: string; to: string } | null> {
  if (status === 'Delivered' || status === 'Expired') return null;
  const found = await repo.latestStopByTid(ctx.db, normalizeTrackingNumber(tid));
  if (!found || found.date < localDate(ctx.now(), found.timeZone)) return null;
  return { from: found.stop.windowFrom.toISOString(), to: found.stop.windowTo.toISOString() };
}
