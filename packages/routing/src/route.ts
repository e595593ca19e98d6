// A route and its time-window bookkeeping. `es[k]` is the earliest start of service at extended position k
// (0 = the vehicle's start, 1..L = the customers, L+1 = the end place); `ls[k]` the latest start that keeps the
// rest of the route on time. With both, inserting a customer between two positions is checked in O(1).
import type { Model } from './model.ts';

export interface Route {
  v: number;
  nodes: number[];
  /** The first `locked` customers are fixed (locked stops): nothing is removed or inserted before them. */
  locked: number;
  es: Float64Array;
  ls: Float64Array;
  load: number;
  dist: number;
  feasible: boolean;
  /** es and ls may be shared with a clone: the next update writes new arrays instead of these. */
  shared: boolean;
}

export function newRoute(m: Model, v: number, nodes: number[] = [], locked = 0): Route {
  const r: Route = { v, nodes, locked, es: new Float64Array(2), ls: new Float64Array(2), load: 0, dist: 0, feasible: true, shared: true };
  updateRoute(m, r);
  return r;
}

export function cloneRoute(r: Route): Route {
  // Copy on write: both share es and ls until one of them is updated.
  r.shared = true;
  return {
    v: r.v,
    nodes: r.nodes.slice(),
    locked: r.locked,
    es: r.es,
    ls: r.ls,
    load: r.load,
    dist: r.dist,
    feasible: r.feasible,
    shared: true,
  };
}

/** Recomputes the route's schedule, slack, load and distance; returns whether it is feasible. */
export function updateRoute(m: Model, r: Route): boolean {
  const { N, time, dist, service, ready, due, demand } = m;
  const veh = m.vehicles[r.v]!;
  const nodes = r.nodes;
  const L = nodes.length;
  let es = r.es;
  let ls = r.ls;
  if (r.shared || es.length < L + 2) {
    // Room to grow, so that the next insertions write in place.
    es = new Float64Array(L + 8);
    ls = new Float64Array(L + 8);
  }
  let ok = true;
  let prev = veh.start;
  let t = veh.shiftStart;
  let d = 0;
  let load = 0;
  es[0] = t;
  for (let k = 0; k < L; k++) {
    const u = nodes[k]!;
    t += service[prev]! + time[prev * N + u]!;
    if (t < ready[u]!) t = ready[u]!;
    if (t > due[u]!) ok = false;
    es[k + 1] = t;
    d += dist[prev * N + u]!;
    load += demand[u]!;
    prev = u;
  }
  t += service[prev]! + time[prev * N + veh.end]!;
  d += dist[prev * N + veh.end]!;
  es[L + 1] = t;
  if (t > veh.shiftEnd) ok = false;
  if (load > veh.capacity) ok = false;
  ls[L + 1] = veh.shiftEnd;
  let next = veh.end;
  for (let k = L; k >= 1; k--) {
    const u = nodes[k - 1]!;
    const latest = ls[k + 1]! - time[u * N + next]! - service[u]!;
    ls[k] = latest < due[u]! ? latest : due[u]!;
    next = u;
  }
  ls[0] = ls[1]! - time[veh.start * N + next]!;
  r.es = es;
  r.ls = ls;
  r.shared = false;
  r.load = load;
  r.dist = d;
  r.feasible = ok;
  return ok;
}

/**
 * Inserts customer u before nodes[j] (j = L appends) and updates the schedule from there only: the earliest
 * starts after j until they meet the old ones again, the latest starts before j until they meet the old ones
 * (the rest only shifts by one place). The caller has checked the insertion with insertionCost, so the route
 * stays feasible. Same result as splicing and calling updateRoute, in less than O(L) work on long routes.
 */
export function insertNode(m: Model, r: Route, u: number, j: number): void {
  const L = r.nodes.length;
  if (r.shared || r.es.length < L + 3) {
    r.nodes.splice(j, 0, u);
    updateRoute(m, r);
    return;
  }
  const { N, time, dist, service, ready, due, demand } = m;
  const veh = m.vehicles[r.v]!;
  const nodes = r.nodes;
  const a = j === 0 ? veh.start : nodes[j - 1]!;
  const b = j === L ? veh.end : nodes[j]!;
  nodes.splice(j, 0, u);
  const es = r.es;
  const ls = r.ls;
  // Old positions j+1..L+1 (nodes[j..] and the end place) move to j+2..L+2.
  es.copyWithin(j + 2, j + 1, L + 2);
  ls.copyWithin(j + 2, j + 1, L + 2);
  let prev = a;
  let t = es[j]!;
  for (let k = j + 1; k <= L + 2; k++) {
    const w = k === L + 2 ? veh.end : nodes[k - 1]!;
    t += service[prev]! + time[prev * N + w]!;
    if (k <= L + 1 && t < ready[w]!) t = ready[w]!;
    if (k > j + 1 && t === es[k]) break;
    es[k] = t;
    prev = w;
  }
  let next = b;
  for (let k = j + 1; k >= 1; k--) {
    const w = nodes[k - 1]!;
    const latest = ls[k + 1]! - time[w * N + next]! - service[w]!;
    const value = latest < due[w]! ? latest : due[w]!;
    if (k <= j && value === ls[k]) {
      next = -1;
      break;
    }
    ls[k] = value;
    next = w;
  }
  if (next >= 0) ls[0] = ls[1]! - time[veh.start * N + next]!;
  r.load += demand[u]!;
  r.dist += dist[a * N + u]! + dist[u * N + b]! - dist[a * N + b]!;
}

/**
 * Extra distance of inserting customer u before nodes[j] (j = L appends), or Infinity when the insertion breaks
 * capacity or a time window. O(1): the forward schedule up to j-1 and the backward slack from j are known.
 */
export function insertionCost(m: Model, r: Route, u: number, j: number): number {
  const { N, time, dist, service, ready, due } = m;
  const veh = m.vehicles[r.v]!;
  if (r.load + m.demand[u]! > veh.capacity) return Infinity;
  const L = r.nodes.length;
  const a = j === 0 ? veh.start : r.nodes[j - 1]!;
  const b = j === L ? veh.end : r.nodes[j]!;
  let t = r.es[j]! + service[a]! + time[a * N + u]!;
  if (t < ready[u]!) t = ready[u]!;
  if (t > due[u]!) return Infinity;
  if (t + service[u]! + time[u * N + b]! > r.ls[j + 1]!) return Infinity;
  return dist[a * N + u]! + dist[u * N + b]! - dist[a * N + b]!;
}

/** Distance of vehicle v driving `nodes`, or Infinity when that breaks capacity or a time window. O(L). */
export function evaluate(m: Model, v: number, nodes: readonly number[]): number {
  const { N, time, dist, service, ready, due, demand } = m;
  const veh = m.vehicles[v]!;
  let prev = veh.start;
  let t = veh.shiftStart;
  let d = 0;
  let load = 0;
  for (let k = 0; k < nodes.length; k++) {
    const u = nodes[k]!;
    t += service[prev]! + time[prev * N + u]!;
    if (t < ready[u]!) t = ready[u]!;
    if (t > due[u]!) return Infinity;
    load += demand[u]!;
    d += dist[prev * N + u]!;
    prev = u;
  }
  if (load > veh.capacity) return Infinity;
  t += service[prev]! + time[prev * N + veh.end]!;
  if (t > veh.shiftEnd) return Infinity;
  return d + dist[prev * N + veh.end]!;
}

/** Routes (one per vehicle, empty ones included) and the customers not in any. */
export interface Solution {
  routes: Route[];
  unassigned: number[];
}

export function cloneSolution(s: Solution): Solution {
  return { routes: s.routes.map(cloneRoute), unassigned: s.unassigned.slice() };
}

export function totalDistance(s: Solution): number {
  let d = 0;
  for (const r of s.routes) d += r.dist;
  return d;
}

export function usedVehicles(s: Solution): number {
  let k = 0;
  for (const r of s.routes) if (r.nodes.length > 0) k++;
  return k;
}
