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
import { AppError, badRequest, conflict, forbidden, notFound } from '../../lib/errors.ts';
import type { UserRow } from '../accounts/accounts.service.ts';
import { publishLive } from '../live/live.service.ts';
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
  /** Stops already done (delivered or a failed attempt, decision 137): each route's head, kept as they are. */
  done: repo.StopRow[];
  /** When each courier's remaining route starts (seconds after local midnight): from their last done stop. */
  startOf: Map<string, number>;
}

/**
 * A previous plan's routes as the solver's start: each route's locked head is kept (when its stops are still open
 * and its courier still planned for) and must still fit its windows and the shift; the rest is the initial order.
 */
function keepLocks(
  previous: repo.StopRow[],
  day: {
    couriers: UserRow[];
    ships: PlanningShipment[];
    matrix: Matrix;
    from: Map<string, { place: number; at: number }>;
    startSec: number;
    shiftEnd: number;
    service: number;
    placeOf: Map<string, number | null>;
  },
): { locked: NonNullable<RoutingProblem['locked']>; initial: NonNullable<RoutingProblem['initial']>; lockedIds: Set<string> } {
  const { couriers, ships, matrix, from, startSec, shiftEnd, service, placeOf } = day;
  const ids = new Set(couriers.map((c) => c.id));
  const open = new Set(ships.filter((s) => pointOf(s)).map((s) => s.id));
  const byCourier = new Map<string, repo.StopRow[]>();
  for (const r of previous)
    if (ids.has(r.courierId) && open.has(r.shipmentId)) byCourier.set(r.courierId, [...(byCourier.get(r.courierId) ?? []), r]);
  const locked: NonNullable<RoutingProblem['locked']> = [];
  const initial: NonNullable<RoutingProblem['initial']> = [];
  const lockedIds = new Set<string>();
  const shipById = new Map(ships.map((s) => [s.id, s]));
  for (const [courierId, rows] of byCourier) {
    rows.sort((a, b) => a.position - b.position);
    const head = rows.filter((r) => r.locked).map((r) => r.shipmentId);
    if (head.length) {
      const start = from.get(courierId);
      const check = routeTimes(
        start?.at ?? startSec,
        shiftEnd,
        head.map((id) => stopTiming(shipById.get(id)!, service)),
        subMatrix(matrix, [start?.place ?? 0, ...head.map((id) => placeOf.get(id)!)], 0),
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
  return { locked, initial, lockedIds };
}

/** When the day's routes start and end (seconds after local midnight): today, nobody leaves before now. */
function shiftOf(ctx: AppContext, settings: Settings, date: string, midnight: Date, tz: string): { startSec: number; shiftEnd: number } {
  const shiftEnd = minutesOf(settings.shiftEnd) * 60;
  let startSec = minutesOf(settings.shiftStart) * 60;
  const now = ctx.now();
  if (localDate(now, tz) === date) startSec = Math.max(startSec, Math.ceil((now.getTime() - midnight.getTime()) / 60_000) * 60);
  if (startSec >= shiftEnd) throw conflict(MSG.planShiftOver);
  return { startSec, shiftEnd };
}

/**
 * Where and when each courier with done stops goes on: at the last one, when it was done (not before the day's
 * start). The places of those stops are added to `places`.
 */
async function carryOn(
  ctx: AppContext,
  company: UserRow,
  done: repo.StopRow[],
  places: Point[],
  startSec: number,
  midnight: Date,
): Promise<Map<string, { place: number; at: number }>> {
  const from = new Map<string, { place: number; at: number }>();
  const ids = done.map((r) => r.shipmentId);
  const doneShips = new Map((await shipmentsByIds(ctx, company.id, ids)).map((s) => [s.id, s]));
  for (const r of [...done].sort((a, b) => a.doneAt!.getTime() - b.doneAt!.getTime())) {
    const at = doneShips.get(r.shipmentId);
    const point = at && pointOf(at);
    if (!point) continue;
    places.push(point);
    from.set(r.courierId, {
      place: places.length - 1,
      at: Math.max(startSec, Math.ceil((r.doneAt!.getTime() - midnight.getTime()) / 1000)),
    });
  }
  return from;
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
  // Done stops (decision 137) are not planned again; their couriers go on from the last of them.
  const ids = new Set(couriers.map((c) => c.id));
  const done = (previous?.stops ?? []).filter((r) => r.doneAt && ids.has(r.courierId));
  const doneIds = new Set(done.map((r) => r.shipmentId));
  const ships = (await openShipmentsForDay(ctx, company, midnight, localMidnight(nextDate(date), tz))).filter((s) => !doneIds.has(s.id));
  if (ships.length === 0 && done.length === 0) throw conflict(MSG.planNoShipments);
  const depot = settings.depotGiven ?? commonOrigin(ships) ?? (settings as Partial<StoredSettings>).depot ?? null;
  if (!depot) throw conflict(MSG.planNoDepot);

  const { startSec, shiftEnd } = shiftOf(ctx, settings, date, midnight, tz);

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
  const biggest = Math.max(1, ...ships.map((s) => s.parcels));
  const capacity = settings.capacity ?? Math.max(biggest, Math.ceil(total / couriers.length));

  const from = await carryOn(ctx, company, done, places, startSec, midnight);

  const { matrix, source } = await travelFor(ctx, places);

  const { locked, initial, lockedIds } = keepLocks(previous?.stops ?? [], {
    couriers,
    ships,
    matrix,
    from,
    startSec,
    shiftEnd,
    service,
    placeOf: new Map(stops.map((s) => [s.id, s.location])),
  });
  const shipById = new Map(ships.map((s) => [s.id, s]));
  const lockedDemand = (courierId: string) =>
    (locked.find((l) => l.vehicle === courierId)?.stops ?? []).reduce((n, id) => n + (shipById.get(id)?.parcels ?? 0), 0);
  const problem: RoutingProblem = {
    travel: matrix,
    vehicles: couriers.map((c) => ({
      id: c.id,
      start: from.get(c.id)?.place ?? 0,
      end: 0,
      capacity: Math.max(capacity, lockedDemand(c.id)),
      shiftStart: Math.min(from.get(c.id)?.at ?? startSec, shiftEnd),
      shiftEnd,
    })),
    stops,
    locked,
    initial,
  };
  const startOf = new Map(problem.vehicles.map((v) => [v.id, v.shiftStart]));
  return { tz, midnight, settings, depot, couriers, ships, problem, startSec, lockedIds, travel: source, done, startOf };
}

/** A matrix over [start, ...stops, end] as routeTimes reads it (over [start, ...stops], back to 0): every way back goes to the end. */
function withEnd(m: Matrix): Matrix {
  const idx = Array.from({ length: m.size - 1 }, (_, i) => i);
  return subMatrix(m, idx, m.size - 1);
}

/** The rows and columns of `m` at `idx`, in that order; with `back`, every way back to idx[0] goes to `back`. */
function subMatrix(m: Matrix, idx: number[], back?: number): Matrix {
  const n = idx.length;
  const time = new Float64Array(n * n);
  const distance = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const to = j === 0 && back !== undefined ? back : idx[j]!;
      time[i * n + j] = m.time[idx[i]! * m.size + to]!;
      distance[i * n + j] = m.distance[idx[i]! * m.size + to]!;
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
  /**
   * Couriers whose route a change did not touch: their stored stops and day are written back as they were
   * (times included: a courier half-way through is not re-timed from the depot; decision 137).
   */
  keep?: Map<string, { rows: repo.StopRow[]; route: StoredSettings['routes'][number] }>;
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
    const kept = solved.keep?.get(c.id);
    if (kept) {
      stops.push(...kept.rows);
      routes.push(kept.route);
      continue;
    }
    // Done stops head the route in the order they were done, with the time they were done (decision 137).
    const done = p.done.filter((d) => d.courierId === c.id).sort((a, b) => a.doneAt!.getTime() - b.doneAt!.getTime());
    done.forEach((d, i) => stops.push({ ...d, position: i + 1, locked: false, late: false }));
    const start = at(p.startOf.get(c.id) ?? p.startSec).toISOString();
    const r = solution.routes.find((x) => x.vehicle === c.id);
    if (!r || r.stops.length === 0) {
      routes.push({ courierId: c.id, start, end: start, km: 0 });
      continue;
    }
    r.stops.forEach((shipmentId, i) => {
      const eta = at(r.times[i]!);
      const w = customerWindow(eta, PLAN_DEFAULTS.windowHalfMinutes);
      stops.push({
        planId: '',
        shipmentId,
        courierId: c.id,
        position: done.length + i + 1,
        eta,
        windowFrom: w.from,
        windowTo: w.to,
        locked: p.lockedIds.has(shipmentId),
        late: false,
      });
    });
    routes.push({ courierId: c.id, start, end: at(r.end).toISOString(), km: round1(r.distance) });
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
      .filter((s) => s.courierId === c.id && !s.doneAt && shipById.has(s.shipmentId) && shipById.get(s.shipmentId)!.courierId !== c.id)
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
                done: s.doneAt !== null,
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
  const ids = rows.map((r) => r.shipmentId);
  const ships = new Map((await shipmentsByIds(ctx, company.id, ids)).map((s) => [s.id, s]));
  const row = rows.find((r) => ships.get(r.shipmentId)?.tid === tid);
  if (!row) throw notFound(MSG.planStopNotFound);
  if (row.doneAt) throw conflict(MSG.planStopDone);

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
  const midnight = localMidnight(plan.date, plan.timeZone);
  const changed = to === from ? [[from, a] as const] : [[from, a] as const, [to, b] as const];
  for (const [courierId, all] of changed) await retimeRoute(ctx, settings, ships, midnight, courierId, all);
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

/**
 * A route after a stop moved in or out: done stops head it as they were done and keep their times; the rest is
 * timed from the last of them (decision 137), the locked stops being the head of the rest. Sets the rows' positions,
 * locks, times and windows, and the route's start, end and length in `settings`.
 */
async function retimeRoute(
  ctx: AppContext,
  settings: StoredSettings,
  ships: Map<string, PlanningShipment>,
  midnight: Date,
  courierId: string,
  all: repo.StopRow[],
): Promise<void> {
  const service = settings.serviceMinutes * 60;
  const done = all.filter((r) => r.doneAt).sort((x, y) => x.doneAt!.getTime() - y.doneAt!.getTime());
  const list = all.filter((r) => !r.doneAt);
  all.splice(0, all.length, ...done, ...list);
  const last = list.map((r) => r.locked).lastIndexOf(true);
  all.forEach((r, i) => {
    r.locked = !r.doneAt && i - done.length <= last;
    r.position = i + 1;
  });
  const meta = settings.routes.find((r) => r.courierId === courierId);
  const startSec = meta ? (Date.parse(meta.start) - midnight.getTime()) / 1000 : minutesOf(settings.shiftStart) * 60;
  const from = done.at(-1);
  const places = [
    (from && pointOf(ships.get(from.shipmentId)!)) || settings.depot,
    ...list.map((r) => pointOf(ships.get(r.shipmentId)!) ?? settings.depot),
    settings.depot,
  ];
  const timed = routeTimes(
    startSec,
    minutesOf(settings.shiftEnd) * 60,
    list.map((r) => stopTiming(ships.get(r.shipmentId)!, service)),
    withEnd((await travelFor(ctx, places)).matrix),
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

// ------------------------------------------------------------------ the day moves (decision 125)
/**
 * What happened to the shipments the shipments module tells Plan the day about. `status`: a checkpoint set a
 * status that ends the stop for the day (PLAN_ENDING_STATUSES; decision 137).
 */
export type ShipmentChange = 'created' | 'assigned' | 'unassigned' | 'status';

/**
 * A failed attempt or a delivery makes the stop done (it stays at the head of its route, with its time); an
 * Expired shipment (closed without delivery: the product's cancel) leaves the plan (decision 137).
 */
const PLAN_ENDING_STATUSES: readonly string[] = ['FailAttempt', 'Delivered', 'Expired'];
const DONE_STATUSES = new Set(['FailAttempt', 'Delivered']);
/** A courier who sets Out For Delivery again on a failed attempt of today tries once more (decision 143). */
const REATTEMPT_STATUSES = new Set(['OutForDelivery']);

/** Whether a checkpoint with this status may change a day plan (the shipments module asks before telling it). */
export function statusMovesThePlan(status: string): boolean {
  return PLAN_ENDING_STATUSES.includes(status) || REATTEMPT_STATUSES.has(status);
}

/** Seconds the local search after an insertion may take (the whole update aims at well under 500 ms). */
export const INSERT_SECONDS = 0.25;

/** One update at a time per company in this process (a second change waits for the first to be stored). */
const updates = new Map<string, Promise<void>>();

/**
 * A shipment was created, given to a courier or taken from one: every plan of the company from today on
 * takes the change in at once (decision 125). A shipment the plan does not have yet goes to the cheapest
 * place after the locked heads; one given to a courier by hand goes to that courier's route and is locked
 * there, as a stop moved on the page; one taken from a courier goes to the best of the other couriers'
 * routes. Only the routes that take a stop are improved, so the other couriers keep their order and times.
 * It runs after the caller's answer (the returned promise is for tests and for shutting down); a failure is
 * logged and leaves the plan as it was ("Plan again" still works).
 */
export function afterShipmentsChanged(ctx: AppContext, user: UserRow, tids: string[], change: ShipmentChange, at?: Date): Promise<void> {
  // A courier's checkpoint changes their company's plan (`status` only: couriers neither create nor assign).
  const companyId = user.role === 'courier' ? (change === 'status' ? user.companyId : null) : user.userType === 'company' ? user.id : null;
  if (!companyId || tids.length === 0) return Promise.resolve();
  const when = at ?? ctx.now();
  const run = (updates.get(companyId) ?? Promise.resolve())
    .then(async () => updatePlans(ctx, await companyOf(ctx, user), tids.map(normalizeTrackingNumber), change, when))
    .catch((err: unknown) => ctx.log.warn({ err, tids, change }, 'the day plan could not take a shipment change in'));
  updates.set(companyId, run);
  void run.finally(() => {
    if (updates.get(companyId) === run) updates.delete(companyId);
  });
  return run;
}

/** Resolves when the plan updates started so far are stored (tests; a graceful stop). */
export async function planUpdatesSettled(): Promise<void> {
  while (updates.size) await Promise.all([...updates.values()]);
}

async function updatePlans(ctx: AppContext, company: UserRow, tids: string[], change: ShipmentChange, at: Date): Promise<void> {
  if (company.role === 'courier' || company.userType !== 'company') return;
  const plans = await repo.plansFrom(ctx.db, company.id, localDate(ctx.now(), zoneOf(company)));
  for (const plan of plans) {
    // Another change of the same plan (a move on the page, another process) may win the race: work it out again.
    for (let attempt = 1; ; attempt++) {
      try {
        await takeIn(ctx, company, plan.date, tids, change, at);
        break;
      } catch (err) {
        if (err instanceof AppError && err.message === MSG.planChanged && attempt < 3) continue;
        // The day cannot be planned any more (its shift is over, no open shipment, the locks no longer fit):
        // nothing to update, the page says so on "Plan again".
        if (err instanceof AppError && err.httpStatus === 409) break;
        throw err;
      }
    }
  }
}

/**
 * The plan's stops after a change: those kept, those taken off a courier, the routes to work out again, the stops
 * ended. A stop whose courier is no longer the one it is planned with leaves its route, to be put in again. A stop
 * delivered or attempted is done: it heads its route with its time and the rest is timed from it; an Expired one
 * leaves the plan; either way only its courier's route is worked out again (decision 137).
 */
function sortRows(
  rows: repo.StopRow[],
  inRows: Map<string, PlanningShipment>,
  changed: Set<string>,
  change: ShipmentChange,
  at: Date,
): { kept: repo.StopRow[]; taken: Map<string, string>; improve: Set<string>; ended: { row: repo.StopRow; ship: PlanningShipment }[] } {
  const taken = new Map<string, string>();
  const improve = new Set<string>();
  const ended: { row: repo.StopRow; ship: PlanningShipment }[] = [];
  const kept = rows.filter((r) => {
    const sh = inRows.get(r.shipmentId);
    if (!sh || !changed.has(sh.tid)) return true;
    if (change === 'status') {
      // A re-attempt: the done stop is a stop to do again, for the same courier, where it costs least.
      if (r.doneAt && REATTEMPT_STATUSES.has(sh.status)) {
        improve.add(r.courierId);
        return false;
      }
      if (!PLAN_ENDING_STATUSES.includes(sh.status)) return true;
      improve.add(r.courierId);
      ended.push({ row: r, ship: sh });
      if (!DONE_STATUSES.has(sh.status)) return false;
      r.doneAt = at;
      r.eta = at;
      return true;
    }
    // Given again by the owner after a failed attempt: planned again, as a new stop for that courier.
    if (r.doneAt && change === 'assigned' && sh.status !== 'Delivered') {
      improve.add(r.courierId);
      return false;
    }
    if (sh.courierId === r.courierId) return true;
    taken.set(sh.id, r.courierId);
    improve.add(r.courierId);
    return false;
  });
  return { kept, taken, improve, ended };
}

/** The routes a change left as they were: they keep their stored times (their courier may be half-way through them). */
function untouchedRoutes(
  couriers: UserRow[],
  kept: repo.StopRow[],
  settings: StoredSettings,
  solution: RoutingSolution,
  improve: Set<string>,
): NonNullable<Solved['keep']> {
  const keep: NonNullable<Solved['keep']> = new Map();
  for (const c of couriers) {
    if (improve.has(c.id)) continue;
    const stored = kept.filter((r) => r.courierId === c.id).sort((a, b) => a.position - b.position);
    const open = stored.filter((r) => !r.doneAt).map((r) => r.shipmentId);
    const now = solution.routes.find((r) => r.vehicle === c.id)?.stops ?? [];
    const route = settings.routes.find((r) => r.courierId === c.id);
    if (route && stored.length && now.length === open.length && now.every((id, i) => id === open[i]))
      keep.set(c.id, { rows: stored, route });
  }
  return keep;
}

/**
 * Where the changed stops may go: a stop given to a courier to that courier's route (locked there when given by
 * hand; outside the plan when that courier is not in it), a stop taken off a courier to any other.
 */
function whereTheyGo(
  prepared: Prepared,
  planned: Set<string>,
  changed: Set<string>,
  change: ShipmentChange,
  taken: Map<string, string>,
): { only: Record<string, string[]>; lockInserted: string[]; skip: Set<string> } {
  const ids = new Set(prepared.couriers.map((c) => c.id));
  const only: Record<string, string[]> = {};
  const lockInserted: string[] = [];
  const skip = new Set<string>();
  for (const s of prepared.ships) {
    if (planned.has(s.id) || !changed.has(s.tid)) continue;
    if (s.courierId && change !== 'unassigned') {
      if (!ids.has(s.courierId)) skip.add(s.id);
      else {
        only[s.id] = [s.courierId];
        if (change === 'assigned') lockInserted.push(s.id);
      }
    } else if (taken.has(s.id)) only[s.id] = [...ids].filter((id) => id !== taken.get(s.id));
  }
  return { only, lockInserted, skip };
}

/** One plan takes the change in: see afterShipmentsChanged. */
async function takeIn(ctx: AppContext, company: UserRow, date: string, tids: string[], change: ShipmentChange, at: Date): Promise<void> {
  const plan = await repo.findPlan(ctx.db, company.id, date);
  if (!plan) return;
  const settings = plan.settings as StoredSettings;
  const rows = await repo.stopsOf(ctx.db, plan.id);
  const changed = new Set(tids);
  const inRows = new Map(
    (
      await shipmentsByIds(
        ctx,
        company.id,
        rows.map((r) => r.shipmentId),
      )
    ).map((s) => [s.id, s]),
  );
  const { kept, taken, improve, ended } = sortRows(rows, inRows, changed, change, at);
  // A status that neither ends nor re-opens a stop of this plan changes nothing (and costs no travel times).
  if (change === 'status' && improve.size === 0) return;
  const prepared = await prepare(ctx, company, date, settings, { stops: kept });
  const planned = new Set(kept.map((r) => r.shipmentId));
  const before = new Set((plan.unplanned as Unplanned).map((u) => u.shipmentId));
  const fresh = prepared.ships.filter((s) => !planned.has(s.id) && ((changed.has(s.tid) && change !== 'status') || !before.has(s.id)));
  if (taken.size === 0 && fresh.length === 0 && improve.size === 0) return;

  const { only, lockInserted, skip } = whereTheyGo(prepared, planned, changed, change, taken);
  // The even share of the parcels (decision 118) spreads a whole plan; one more stop goes where it costs least.
  const problem = {
    ...prepared.problem,
    stops: prepared.problem.stops.filter((st) => !skip.has(st.id)),
    vehicles:
      settings.capacity == null
        ? prepared.problem.vehicles.map((v) => ({ ...v, capacity: Number.MAX_SAFE_INTEGER }))
        : prepared.problem.vehicles,
  };
  const solution = await solveOffThread(problem, { seconds: INSERT_SECONDS, seed: 1 }, ctx.config.ROUTING_THREADS, {
    seconds: INSERT_SECONDS,
    only,
    lockInserted,
    improve: [...improve],
  });
  const keep = untouchedRoutes(prepared.couriers, kept, settings, solution, improve);
  // A stop locked where it was put locks the stops before it (a route's locked stops are its head).
  for (const id of lockInserted)
    for (const r of solution.routes) {
      const at = r.stops.indexOf(id);
      if (at >= 0) for (const sid of r.stops.slice(0, at + 1)) prepared.lockedIds.add(sid);
    }
  const courierOf = new Map(solution.routes.flatMap((r) => r.stops.map((sid) => [sid, r.vehicle] as const)));
  await ctx.db.transaction(async (tx) => {
    const now = await repo.lockPlan(tx, company.id, date);
    if (!now || now.id !== plan.id || now.updatedAt.getTime() !== plan.updatedAt.getTime()) throw conflict(MSG.planChanged);
    await storePlan(ctx, company, date, { prepared, solution, keep }, tx);
    // The owner's page and the courier's day follow (a stop given to a courier is announced by its assignment too).
    for (const s of prepared.ships)
      if (changed.has(s.tid) || taken.has(s.id))
        await publishLive(tx, {
          kind: 'shipment',
          accountId: company.id,
          courierId: courierOf.get(s.id) ?? null,
          shipmentId: s.id,
          tid: s.tid,
          status: s.status,
          statusChanged: false,
        });
    for (const { row, ship } of ended)
      await publishLive(tx, {
        kind: 'shipment',
        accountId: company.id,
        courierId: row.courierId,
        shipmentId: ship.id,
        tid: ship.tid,
        status: ship.status,
        statusChanged: false,
      });
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
  // A failed attempt is over for that day: no window until the owner plans it again (decision 137).
  if (found.stop.doneAt) return null;
  return { from: found.stop.windowFrom.toISOString(), to: found.stop.windowTo.toISOString() };
}
