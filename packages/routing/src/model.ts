// The solver's working form of a problem: customers are nodes 0..n-1, then one node per distinct depot place;
// travel time and distance are dense Float64Arrays over those nodes (copied once from a matrix or a callback).
import type { RoutingProblem, UnplannedReason } from './types.ts';

export interface ModelVehicle {
  start: number;
  end: number;
  capacity: number;
  shiftStart: number;
  shiftEnd: number;
  /** Vehicles with the same signature are interchangeable while empty (only one of them is tried). */
  signature: number;
}

export interface Model {
  /** Customers (plannable stops). */
  n: number;
  /** All nodes: customers then depot places. */
  N: number;
  dist: Float64Array;
  time: Float64Array;
  demand: Float64Array;
  service: Float64Array;
  ready: Float64Array;
  due: Float64Array;
  vehicles: ModelVehicle[];
  /** Customer node → index in problem.stops. */
  stopOf: Int32Array;
  /** Per customer, the other customers nearest first. */
  neighbors: Int32Array[];
  /** Mean distance between customers (scales the annealing temperature). */
  meanArc: number;
  /** Larger than any possible distance total: the price of one unassigned customer. */
  penalty: number;
  /** Stops left out before the search, with the reason. */
  rejected: { stop: number; reason: UnplannedReason }[];
}

type Reader = (a: number, b: number) => number;

/** The distinct places vehicles start and end at, in order of first use, and each one's index among them. */
function depotsOf(vehicles: RoutingProblem['vehicles'], validLocation: (l: number | null | undefined) => l is number) {
  const depotLocations: number[] = [];
  const depotIndex = new Map<number, number>();
  for (const v of vehicles) {
    for (const l of [v.start, v.end]) {
      if (!validLocation(l)) throw new RangeError(`vehicle ${v.id}: start and end must be matrix indices`);
      if (!depotIndex.has(l)) {
        depotIndex.set(l, depotLocations.length);
        depotLocations.push(l);
      }
    }
  }

  return { depotLocations, depotIndex };
}

/** Stops any vehicle could serve on its own are kept; the rest are rejected now, with the reason. */
function screen(
  stops: RoutingProblem['stops'],
  vehicles: RoutingProblem['vehicles'],
  timeAt: Reader,
  validLocation: (l: number | null | undefined) => l is number,
) {
  const rejected: { stop: number; reason: UnplannedReason }[] = [];
  const keep: number[] = [];
  stops.forEach((s, i) => {
    if (!validLocation(s.location)) return rejected.push({ stop: i, reason: 'no-position' });
    const loc = s.location;
    let reachable = false;
    let roomy = false;
    let fits = false;
    for (const v of vehicles) {
      const there = timeAt(v.start, loc);
      const back = timeAt(loc, v.end);
      if (!Number.isFinite(there) || !Number.isFinite(back)) continue;
      reachable = true;
      if (s.demand > v.capacity) continue;
      roomy = true;
      const begin = Math.max(s.ready, v.shiftStart + there);
      if (begin <= s.due && begin + s.service + back <= v.shiftEnd) fits = true;
    }
    if (!reachable) rejected.push({ stop: i, reason: 'no-position' });
    else if (!roomy) rejected.push({ stop: i, reason: 'capacity' });
    else if (!fits) rejected.push({ stop: i, reason: 'window' });
    else keep.push(i);
  });

  return { rejected, keep };
}

/** Per customer, the other customers nearest first; the mean distance between customers and the longest arc. */
function nearest(dist: Float64Array, n: number, N: number) {
  const neighbors: Int32Array[] = [];
  let arcSum = 0;
  let arcCount = 0;
  let maxArc = 0;
  for (let a = 0; a < N; a++)
    for (let b = 0; b < N; b++) if (a !== b && Number.isFinite(dist[a * N + b]!)) maxArc = Math.max(maxArc, dist[a * N + b]!);
  for (let u = 0; u < n; u++) {
    const others: number[] = [];
    for (let v = 0; v < n; v++) {
      if (v === u) continue;
      others.push(v);
      const d = dist[u * N + v]!;
      if (Number.isFinite(d)) {
        arcSum += d;
        arcCount++;
      }
    }
    others.sort((x, y) => dist[u * N + x]! - dist[u * N + y]!);
    neighbors.push(Int32Array.from(others));
  }
  return { neighbors, meanArc: arcCount ? arcSum / arcCount : 1, maxArc };
}

export function buildModel(problem: RoutingProblem): Model {
  const { travel, vehicles, stops } = problem;
  const size = travel.size;
  const timeAt = typeof travel.time === 'function' ? travel.time : denseReader(travel.time, size);
  const rawDist = travel.distance;
  const distAt = rawDist === undefined ? timeAt : typeof rawDist === 'function' ? rawDist : denseReader(rawDist, size);
  const validLocation = (l: number | null | undefined): l is number => typeof l === 'number' && Number.isInteger(l) && l >= 0 && l < size;

  if (vehicles.length === 0) throw new RangeError('the problem has no vehicle');
  const { depotLocations, depotIndex } = depotsOf(vehicles, validLocation);

  const { rejected, keep } = screen(stops, vehicles, timeAt, validLocation);

  const n = keep.length;
  const N = n + depotLocations.length;
  const locOf = new Int32Array(N);
  keep.forEach((s, i) => (locOf[i] = stops[s]!.location as number));
  depotLocations.forEach((l, i) => (locOf[n + i] = l));
  const dist = new Float64Array(N * N);
  const time = new Float64Array(N * N);
  for (let a = 0; a < N; a++) {
    for (let b = 0; b < N; b++) {
      if (a === b) continue;
      const la = locOf[a]!;
      const lb = locOf[b]!;
      const t = timeAt(la, lb);
      const d = distAt(la, lb);
      time[a * N + b] = Number.isFinite(t) ? t : Infinity;
      dist[a * N + b] = Number.isFinite(d) ? d : Infinity;
    }
  }
  const demand = new Float64Array(N);
  const service = new Float64Array(N);
  const ready = new Float64Array(N).fill(-Infinity);
  const due = new Float64Array(N).fill(Infinity);
  keep.forEach((s, i) => {
    const st = stops[s]!;
    demand[i] = st.demand;
    service[i] = st.service;
    ready[i] = st.ready;
    due[i] = st.due;
  });

  const signatures = new Map<string, number>();
  const modelVehicles = vehicles.map((v) => {
    const key = `${v.start}/${v.end}/${v.capacity}/${v.shiftStart}/${v.shiftEnd}`;
    if (!signatures.has(key)) signatures.set(key, signatures.size);
    return {
      start: n + depotIndex.get(v.start)!,
      end: n + depotIndex.get(v.end)!,
      capacity: v.capacity,
      shiftStart: v.shiftStart,
      shiftEnd: v.shiftEnd,
      signature: signatures.get(key)!,
    };
  });

  const { neighbors, meanArc, maxArc } = nearest(dist, n, N);
  return {
    n,
    N,
    dist,
    time,
    demand,
    service,
    ready,
    due,
    vehicles: modelVehicles,
    stopOf: Int32Array.from(keep),
    neighbors,
    meanArc: meanArc > 0 ? meanArc : 1,
    penalty: 2 * (n + vehicles.length + 1) * Math.max(maxArc, 1) + 1,
    rejected,
  };
}

function denseReader(m: Float64Array, size: number): (a: number, b: number) => number {
  if (m.length !== size * size) throw new RangeError(`a dense matrix of size ${size} needs ${size * size} entries, not ${m.length}`);
  return (a, b) => m[a * size + b]!;
}
