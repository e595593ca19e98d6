// Re-planning one change of a day (decision 125): the stops a plan does not have yet are put in the cheapest
// feasible place of the existing routes, after each route's locked head, and the routes that took a stop are
// then improved on their own (relocating strings of 1-3 stops, as is or reversed, and 2-opt) for what is left
// of a short budget. Nothing moves between routes that the change did not touch: a courier whose van is loaded
// keeps their stops, and the customers of other routes keep their times.
import { buildModel, type Model } from './model.ts';
import { evaluate, insertionCost, updateRoute, type Route, type Solution } from './route.ts';
import { answer, startingRoutes } from './solver.ts';
import type { RoutingProblem, RoutingSolution } from './types.ts';

export interface InsertOptions {
  /** Wall-clock budget in seconds from the call (default 0.3); the insertion itself always completes. */
  seconds?: number;
  /** Per stop id, the only vehicles it may go to (a stop the owner gave a courier, or took from one). */
  only?: Record<string, string[]>;
  /** Stops locked where they are put, with the stops before them (a stop the owner gave a courier by hand). */
  lockInserted?: string[];
  /**
   * Vehicles whose routes are improved even when they take no stop: a route that lost a stop or now starts
   * from somewhere else (a failed attempt, a cancelled or an out-of-order delivery; decision 137).
   */
  improve?: string[];
}

/** Extra distance below this is noise, not an improvement. */
const EPS = 1e-7;

/**
 * `problem.locked` and `problem.initial` are the plan as it stands; every other plannable stop is inserted,
 * the ones with the narrowest windows first, then the ones farthest from the first depot.
 */
export function insertStops(problem: RoutingProblem, options: InsertOptions = {}): RoutingSolution {
  const t0 = performance.now();
  const until = t0 + (options.seconds ?? 0.3) * 1000;
  const m = buildModel(problem);
  const { s, pool } = startingRoutes(m, problem);
  const vehicleIndex = new Map(problem.vehicles.map((v, i) => [v.id, i]));
  const idOf = (u: number) => problem.stops[m.stopOf[u]!]!.id;
  const lockIds = new Set(options.lockInserted ?? []);
  const depot = m.vehicles[0]!.start;
  pool.sort((a, b) => m.due[a]! - m.ready[a]! - (m.due[b]! - m.ready[b]!) || m.dist[depot * m.N + b]! - m.dist[depot * m.N + a]!);
  const touched = new Set<Route>();
  for (const id of options.improve ?? []) {
    const v = vehicleIndex.get(id);
    if (v !== undefined) touched.add(s.routes[v]!);
  }
  for (const u of pool) {
    const allowed = options.only?.[idOf(u)];
    const vehicles = allowed ? new Set(allowed.map((id) => vehicleIndex.get(id)).filter((v) => v !== undefined)) : null;
    let best: { r: Route; j: number; cost: number } | null = null;
    for (const r of s.routes) {
      if (vehicles && !vehicles.has(r.v)) continue;
      for (let j = r.locked; j <= r.nodes.length; j++) {
        const cost = insertionCost(m, r, u, j);
        if (cost < (best?.cost ?? Infinity)) best = { r, j, cost };
      }
    }
    if (!best) {
      s.unassigned.push(u);
      continue;
    }
    best.r.nodes.splice(best.j, 0, u);
    if (lockIds.has(idOf(u))) best.r.locked = best.j + 1;
    updateRoute(m, best.r);
    touched.add(best.r);
  }
  for (const r of touched) improveRoute(m, r, until);
  return answer(m, problem, s as Solution, 0, (performance.now() - t0) / 1000);
}

/**
 * First-improvement search within one route, after its locked head: move a string of 1-3 stops (as is or
 * reversed) to another place, or reverse a stretch (2-opt); until nothing improves or `until` passes.
 */
export function improveRoute(m: Model, r: Route, until = Infinity): boolean {
  let improvedAny = false;
  for (let round = 0; round < 100; round++) {
    if (performance.now() > until) break;
    const better = orOptWithin(m, r, until) || twoOptWithin(m, r, until);
    if (!better) break;
    improvedAny = true;
  }
  return improvedAny;
}

function apply(m: Model, r: Route, nodes: number[]): void {
  r.nodes = nodes;
  updateRoute(m, r);
}

/** Move nodes[i..i+len) to another place in the route, as is or reversed; true on the first improvement. */
export function orOptWithin(m: Model, r: Route, until = Infinity): boolean {
  const L = r.nodes.length;
  for (let len = 1; len <= 3; len++)
    for (let i = r.locked; i + len <= L; i++) {
      if (performance.now() > until) return false;
      const seg = r.nodes.slice(i, i + len);
      const rest = [...r.nodes.slice(0, i), ...r.nodes.slice(i + len)];
      for (let j = r.locked; j <= rest.length; j++) {
        if (j === i) continue;
        for (const part of len > 1 ? [seg, [...seg].reverse()] : [seg]) {
          const nodes = [...rest.slice(0, j), ...part, ...rest.slice(j)];
          if (evaluate(m, r.v, nodes) < r.dist - EPS) {
            apply(m, r, nodes);
            return true;
          }
        }
      }
    }
  return false;
}

/** Reverse nodes[i..j] (2-opt within the route); true on the first improvement. */
export function twoOptWithin(m: Model, r: Route, until = Infinity): boolean {
  const L = r.nodes.length;
  for (let i = r.locked; i < L - 1; i++) {
    if (performance.now() > until) return false;
    for (let j = i + 1; j < L; j++) {
      const nodes = [...r.nodes.slice(0, i), ...r.nodes.slice(i, j + 1).reverse(), ...r.nodes.slice(j + 1)];
      if (evaluate(m, r.v, nodes) < r.dist - EPS) {
        apply(m, r, nodes);
        return true;
      }
    }
  }
  return false;
}
