// An independent check of an answer, kept deliberately simple (no shared code with the solver): recomputes
// loads, arrival times, waits, the return to the depot and the distance from the instance itself.
import type { RoutingProblem, RoutingSolution } from './types.ts';
import type { SolomonInstance } from './solomon.ts';

export interface Verdict {
  feasible: boolean;
  errors: string[];
  vehicles: number;
  distance: number;
}

/** Checks routes (customer ids in visit order) against a Solomon instance. */
export function verifySolomon(inst: SolomonInstance, routes: number[][], claimedDistance?: number): Verdict {
  const errors: string[] = [];
  const byId = new Map(inst.nodes.map((c) => [c.id, c]));
  const depot = inst.nodes[0]!;
  const seen = new Map<number, number>();
  let distance = 0;
  const used = routes.filter((r) => r.length > 0);
  if (used.length > inst.vehicles) errors.push(`${used.length} routes for ${inst.vehicles} vehicles`);
  used.forEach((route, ri) => {
    let at = depot;
    let time = depot.ready;
    let load = 0;
    for (const id of route) {
      const c = byId.get(id);
      if (!c || id === 0) {
        errors.push(`route ${ri + 1}: unknown customer ${id}`);
        continue;
      }
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const leg = Math.sqrt((at.x - c.x) ** 2 + (at.y - c.y) ** 2);
      distance += leg;
      time = Math.max(time + at.service + leg, c.ready);
      if (time > c.due + 1e-9) errors.push(`route ${ri + 1}: customer ${id} served at ${time.toFixed(2)}, after its due time ${c.due}`);
      load += c.demand;
      at = c;
    }
    const back = Math.sqrt((at.x - depot.x) ** 2 + (at.y - depot.y) ** 2);
    distance += back;
    time += at.service + back;
    if (time > depot.due + 1e-9) errors.push(`route ${ri + 1}: back at the depot at ${time.toFixed(2)}, after ${depot.due}`);
    if (load > inst.capacity) errors.push(`route ${ri + 1}: load ${load} over the capacity ${inst.capacity}`);
  });
  for (const c of inst.nodes.slice(1)) {
    const n = seen.get(c.id) ?? 0;
    if (n !== 1) errors.push(`customer ${c.id} visited ${n} times`);
  }
  if (claimedDistance !== undefined && Math.abs(claimedDistance - distance) > 1e-6 * Math.max(1, distance)) {
    errors.push(`claimed distance ${claimedDistance} but the routes measure ${distance}`);
  }
  return { feasible: errors.length === 0, errors, vehicles: used.length, distance };
}

/** Checks a solver answer against its general problem (travel read straight from the problem). */
export function verifyPlan(problem: RoutingProblem, plan: RoutingSolution): Verdict {
  const errors: string[] = [];
  const { travel } = problem;
  const read = (m: Float64Array | ((a: number, b: number) => number), a: number, b: number) =>
    typeof m === 'function' ? m(a, b) : m[a * travel.size + b]!;
  const time = (a: number, b: number) => read(travel.time, a, b);
  const dist = (a: number, b: number) => read(travel.distance ?? travel.time, a, b);
  const stops = new Map(problem.stops.map((s) => [s.id, s]));
  const vehicles = new Map(problem.vehicles.map((v) => [v.id, v]));
  const count = new Map<string, number>();
  let distance = 0;
  const usedVehicles = new Set<string>();
  for (const route of plan.routes) {
    const v = vehicles.get(route.vehicle);
    if (!v) {
      errors.push(`unknown vehicle ${route.vehicle}`);
      continue;
    }
    if (usedVehicles.has(v.id)) errors.push(`vehicle ${v.id} has two routes`);
    usedVehicles.add(v.id);
    let at = v.start;
    let t = v.shiftStart;
    let service = 0;
    let load = 0;
    for (const id of route.stops) {
      const s = stops.get(id);
      if (!s || typeof s.location !== 'number') {
        errors.push(`vehicle ${v.id}: stop ${id} is unknown or has no position`);
        continue;
      }
      count.set(id, (count.get(id) ?? 0) + 1);
      t = Math.max(t + service + time(at, s.location), s.ready);
      if (t > s.due + 1e-9) errors.push(`vehicle ${v.id}: stop ${id} served at ${t}, after ${s.due}`);
      distance += dist(at, s.location);
      load += s.demand;
      service = s.service;
      at = s.location;
    }
    t += service + time(at, v.end);
    distance += dist(at, v.end);
    if (t > v.shiftEnd + 1e-9) errors.push(`vehicle ${v.id}: back at ${t}, after the shift end ${v.shiftEnd}`);
    if (load > v.capacity) errors.push(`vehicle ${v.id}: load ${load} over the capacity ${v.capacity}`);
  }
  for (const u of plan.unplanned) count.set(u.stop, (count.get(u.stop) ?? 0) + 1);
  for (const s of problem.stops) if (count.get(s.id) !== 1) errors.push(`stop ${s.id} appears ${count.get(s.id) ?? 0} times`);
  for (const lock of problem.locked ?? []) {
    const route = plan.routes.find((r) => r.vehicle === lock.vehicle);
    if (!route || lock.stops.some((id, k) => route.stops[k] !== id))
      errors.push(`vehicle ${lock.vehicle} does not start with its locked stops`);
  }
  if (Math.abs(distance - plan.distance) > 1e-6 * Math.max(1, distance))
    errors.push(`claimed distance ${plan.distance} but the routes measure ${distance}`);
  return { feasible: errors.length === 0, errors, vehicles: plan.routes.length, distance };
}
