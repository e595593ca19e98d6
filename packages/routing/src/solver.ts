// The solver: ruin and recreate in the style of SISR (Christiaens and Vanden Berghe, 2020) with local search.
// 1. Build: every stop inserted greedily (after locked stops and any initial plan).
// 2. Route minimisation: empty the smallest route and try to place its customers elsewhere, accepting
//    candidates that leave fewer (or less often left-out) customers out; repeat while it succeeds.
// 3. Distance: ruin (adjacent string removals, whole or split, random or related removal) and recreate (greedy
//    insertion with blinks) under simulated annealing, with the fleet capped at the best vehicle count.
// The objective is hierarchical: unassigned customers, then vehicles, then distance. No I/O here.
import { buildModel, type Model } from './model.ts';
import { localSearch } from './local-search.ts';
import { mulberry32 } from './random.ts';
import { cloneSolution, insertionCost, insertNode, newRoute, totalDistance, updateRoute, usedVehicles, type Solution } from './route.ts';
import type { RoutingProblem, RoutingSolution, SolveOptions, UnplannedReason } from './types.ts';

/** SISR's parameters (average removed customers, longest string, blink rate); the temperatures scale with the mean arc. */
const CBAR = 10;
const LMAX = 10;
const BLINK = 0.01;
/**
 * SISR's split strings: half of the strings keep a stretch of customers in their middle (removing two pieces
 * of one route, which plain strings cannot); the kept stretch grows by one with probability 1 - SPLIT_DEPTH.
 */
const SPLIT_RATE = 0.5;
const SPLIT_DEPTH = 0.01;
const T_START = 3;
const T_END = 0.01;
/** Share of the budget spent on removing vehicles before annealing on distance. */
const FLEET_SHARE = 0.45;

type Rng = () => number;

export function solve(problem: RoutingProblem, options: SolveOptions = {}): RoutingSolution {
  const t0 = performance.now();
  const deadline = Math.min(options.deadline ?? Infinity, t0 + (options.seconds ?? 1) * 1000);
  const maxIterations = options.maxIterations;
  const rng = mulberry32(options.seed ?? 1);
  const m = buildModel(problem);
  const s = initialSolution(m, problem, rng);
  const ctx = new Search(m, rng, t0, deadline, maxIterations);
  const best = ctx.run(s);
  return answer(m, problem, best, ctx.iterations, (performance.now() - t0) / 1000);
}

function initialSolution(m: Model, problem: RoutingProblem, rng: Rng): Solution {
  const { s, pool } = startingRoutes(m, problem);
  recreate(m, s, pool, m.vehicles.length, rng, 0);
  return s;
}

/**
 * The locked heads and the initial plan (kept stop by stop while it stays feasible) as routes, and the
 * customers they leave out (to be inserted).
 */
export function startingRoutes(m: Model, problem: RoutingProblem): { s: Solution; pool: number[] } {
  const vehicleIndex = new Map(problem.vehicles.map((v, i) => [v.id, i]));
  const customerOf = new Map<string, number>();
  for (let u = 0; u < m.n; u++) customerOf.set(problem.stops[m.stopOf[u]!]!.id, u);
  const routes = m.vehicles.map((_, v) => newRoute(m, v));
  const placed = new Uint8Array(m.n);
  for (const lock of problem.locked ?? []) {
    const v = vehicleIndex.get(lock.vehicle);
    if (v === undefined) throw new RangeError(`locked stops name an unknown vehicle ${lock.vehicle}`);
    const nodes: number[] = [];
    for (const id of lock.stops) {
      const u = customerOf.get(id);
      if (u === undefined) throw new RangeError(`locked stop ${id} is unknown or cannot be planned`);
      if (placed[u]) throw new RangeError(`stop ${id} is locked twice`);
      placed[u] = 1;
      nodes.push(u);
    }
    const r = routes[v]!;
    r.nodes = nodes;
    r.locked = nodes.length;
    if (!updateRoute(m, r)) throw new RangeError(`the locked stops of vehicle ${lock.vehicle} break a time window or its capacity`);
  }
  // An initial plan is kept stop by stop while it stays feasible; what does not fit is inserted again.
  for (const init of problem.initial ?? []) {
    const v = vehicleIndex.get(init.vehicle);
    if (v === undefined) continue;
    const r = routes[v]!;
    for (const id of init.stops) {
      const u = customerOf.get(id);
      if (u === undefined || placed[u]) continue;
      if (insertionCost(m, r, u, r.nodes.length) === Infinity) continue;
      r.nodes.push(u);
      updateRoute(m, r);
      placed[u] = 1;
    }
  }
  const pool: number[] = [];
  for (let u = 0; u < m.n; u++) if (!placed[u]) pool.push(u);
  return { s: { routes, unassigned: [] }, pool };
}

/** Lexicographic: fewer unassigned, then fewer vehicles, then shorter. */
function better(a: Solution, b: Solution): boolean {
  if (a.unassigned.length !== b.unassigned.length) return a.unassigned.length < b.unassigned.length;
  const va = usedVehicles(a);
  const vb = usedVehicles(b);
  if (va !== vb) return va < vb;
  return totalDistance(a) < totalDistance(b) - 1e-9;
}

class Search {
  iterations = 0;
  private readonly m: Model;
  private readonly rng: Rng;
  private readonly t0: number;
  private readonly deadline: number;
  private readonly maxIterations: number | undefined;
  private readonly absences: Float64Array;
  /** The search leaves the last 3% of the budget (at most 150 ms) to the final local search. */
  private readonly searchEnd: number;

  constructor(m: Model, rng: Rng, t0: number, deadline: number, maxIterations: number | undefined) {
    this.m = m;
    this.rng = rng;
    this.t0 = t0;
    this.deadline = deadline;
    this.maxIterations = maxIterations;
    this.absences = new Float64Array(m.n);
    this.searchEnd = deadline - Math.min(150, 0.03 * (deadline - t0));
  }

  /** 0..1: the iteration budget's share when one is given (reproducible), otherwise the clock's. */
  private progress(): number {
    if (this.maxIterations !== undefined) return this.iterations / this.maxIterations;
    return (performance.now() - this.t0) / (this.deadline - this.t0);
  }

  private done(): boolean {
    return performance.now() >= this.searchEnd || (this.maxIterations !== undefined && this.iterations >= this.maxIterations);
  }

  run(start: Solution): Solution {
    const { m } = this;
    let best = start;
    if (m.n === 0) return best;
    best = this.minimiseVehicles(best);
    best = this.anneal(best);
    return best;
  }

  private ruinAndRecreate(from: Solution, fleet: number): Solution {
    const s = cloneSolution(from);
    const removed = ruin(this.m, s, this.rng);
    const pool = removed.concat(s.unassigned);
    s.unassigned = [];
    recreate(this.m, s, pool, fleet, this.rng, BLINK);
    this.iterations++;
    return s;
  }

  private minimiseVehicles(start: Solution): Solution {
    const { m, rng } = this;
    let best = start;
    let totalDemand = 0;
    let maxCapacity = 0;
    for (let u = 0; u < m.n; u++) totalDemand += m.demand[u]!;
    for (const v of m.vehicles) maxCapacity = Math.max(maxCapacity, v.capacity);
    const lockedRoutes = best.routes.filter((r) => r.locked > 0).length;
    const lowerBound = Math.max(lockedRoutes, maxCapacity > 0 ? Math.ceil(totalDemand / maxCapacity - 1e-9) : 1, 1);
    const absences = this.absences;
    const missing = (s: Solution) => s.unassigned.reduce((sum, u) => sum + absences[u]!, 0);
    while (!this.done() && this.progress() < FLEET_SHARE && best.unassigned.length === 0) {
      const k = usedVehicles(best);
      if (k <= lowerBound) break;
      // Empty the route with the fewest customers (ties broken at random), never one with locked stops.
      let cur = cloneSolution(best);
      let pick = -1;
      let fewest = Infinity;
      cur.routes.forEach((r, ri) => {
        if (r.nodes.length === 0 || r.locked > 0) return;
        const size = r.nodes.length + rng() * 0.5;
        if (size < fewest) {
          fewest = size;
          pick = ri;
        }
      });
      if (pick < 0) break;
      const emptied = cur.routes[pick]!;
      cur.unassigned = cur.unassigned.concat(emptied.nodes);
      emptied.nodes = [];
      updateRoute(m, emptied);
      while (!this.done() && this.progress() < FLEET_SHARE) {
        const cand = this.ruinAndRecreate(cur, k - 1);
        if (cand.unassigned.length < cur.unassigned.length || missing(cand) < missing(cur)) cur = cand;
        for (const u of cand.unassigned) absences[u]!++;
        if (cur.unassigned.length === 0) break;
      }
      if (cur.unassigned.length > 0) break;
      best = cur;
    }
    return best;
  }

  private anneal(start: Solution): Solution {
    const { m, rng } = this;
    const fleet = Math.max(usedVehicles(start), 1);
    let best = start;
    let cur = start;
    const cost = (s: Solution) => totalDistance(s) + m.penalty * s.unassigned.length;
    let curCost = cost(cur);
    const p0 = this.progress();
    const searchStart = performance.now();
    let polishing = 0;
    let lastPolish = -Infinity;
    while (!this.done()) {
      const cand = this.ruinAndRecreate(cur, fleet);
      const p = Math.min(1, Math.max(0, (this.progress() - p0) / Math.max(1e-9, 1 - p0)));
      const temperature = m.meanArc * T_START * Math.pow(T_END / T_START, p);
      const candCost = cost(cand);
      if (candCost < curCost - temperature * Math.log(rng())) {
        cur = cand;
        curCost = candCost;
      }
      if (better(cand, best)) {
        // Polish a new best with local search while that has taken under a tenth of the search time (with an
        // iteration budget: at most every 50 iterations, so that the run stays reproducible).
        const now = performance.now();
        const polish = this.maxIterations !== undefined ? this.iterations - lastPolish >= 50 : polishing < 0.1 * (now - searchStart);
        if (polish) {
          localSearch(m, cand, this.searchEnd);
          polishing += performance.now() - now;
          lastPolish = this.iterations;
          if (cur === cand) curCost = cost(cand);
        }
        best = cand;
      }
    }
    localSearch(m, best, this.deadline);
    return best;
  }
}

/** Work arrays of ruin, per model: allocating them on every iteration cost more than filling them. */
const scratch = new WeakMap<Model, { routeOf: Int32Array; removed: Uint8Array; score: Float64Array }>();

/**
 * Removes customers: adjacent strings around a random seed (SISR: in the routes of the seed's nearest
 * customers, one string each, or a split string that keeps a stretch in its middle), or random, or related ones.
 */
export function ruin(m: Model, s: Solution, rng: Rng, splitRate = SPLIT_RATE): number[] {
  let work = scratch.get(m);
  if (!work) {
    work = { routeOf: new Int32Array(m.n), removed: new Uint8Array(m.n), score: new Float64Array(m.n) };
    scratch.set(m, work);
  }
  const routeOf = work.routeOf.fill(-1);
  const free: number[] = [];
  let customers = 0;
  let used = 0;
  s.routes.forEach((r, ri) => {
    if (r.nodes.length) used++;
    customers += r.nodes.length;
    for (let k = r.locked; k < r.nodes.length; k++) {
      routeOf[r.nodes[k]!] = ri;
      free.push(r.nodes[k]!);
    }
  });
  if (free.length === 0) return [];
  const removed = work.removed.fill(0);
  const out: number[] = [];
  const take = (u: number) => {
    if (!removed[u]) {
      removed[u] = 1;
      out.push(u);
    }
  };
  const seed = free[Math.floor(rng() * free.length)]!;
  const mode = rng();
  if (mode < 0.8) {
    removeStrings(m, s, rng, seed, { routeOf, avgLen: customers / Math.max(used, 1), splitRate }, take);
  } else {
    const q = Math.min(free.length, 1 + Math.floor(rng() * 2 * CBAR));
    if (mode < 0.9) {
      for (let i = 0; i < q; i++) take(free[Math.floor(rng() * free.length)]!);
    } else {
      for (const u of related(m, free, seed, q, work.score)) take(u);
    }
  }
  const touched: number[] = [];
  for (const u of out) if (!touched.includes(routeOf[u]!)) touched.push(routeOf[u]!);
  for (const ri of touched) {
    const r = s.routes[ri]!;
    r.nodes = r.nodes.filter((u) => !removed[u]);
    updateRoute(m, r);
  }
  return out;
}

/**
 * SISR's string removal: in the routes of the seed and of its nearest customers, one string each around that
 * customer, or a split string that keeps a stretch in its middle.
 */
function removeStrings(
  m: Model,
  s: Solution,
  rng: Rng,
  seed: number,
  o: { routeOf: Int32Array; avgLen: number; splitRate: number },
  take: (u: number) => void,
): void {
  const lsMax = Math.min(LMAX, o.avgLen);
  const ksMax = (4 * CBAR) / (1 + lsMax) - 1;
  const ks = Math.floor(rng() * ksMax) + 1;
  const ruined = new Set<number>();
  const near = m.neighbors[seed]!;
  for (let t = -1; t < near.length && ruined.size < ks; t++) {
    const c = t < 0 ? seed : near[t]!;
    const ri = o.routeOf[c]!;
    if (ri < 0 || ruined.has(ri)) continue;
    ruined.add(ri);
    const r = s.routes[ri]!;
    const L = r.nodes.length;
    const freeLen = L - r.locked;
    const l = Math.floor(rng() * Math.min(freeLen, lsMax)) + 1;
    const at = r.nodes.indexOf(c);
    if (l < freeLen && o.splitRate > 0 && rng() < o.splitRate) {
      // Split string: a string of l + keep customers around c, of which a stretch of `keep` stays.
      let keep = 1;
      while (l + keep < freeLen && rng() > SPLIT_DEPTH) keep++;
      const span = l + keep;
      const lo = Math.max(r.locked, at - span + 1);
      const hi = Math.min(at, L - span);
      const first = lo + Math.floor(rng() * (hi - lo + 1));
      const keepAt = first + Math.floor(rng() * (l + 1));
      for (let k = first; k < first + span; k++) if (k < keepAt || k >= keepAt + keep) take(r.nodes[k]!);
      continue;
    }
    const lo = Math.max(r.locked, at - l + 1);
    const hi = Math.min(at, L - l);
    const first = lo + Math.floor(rng() * (hi - lo + 1));
    for (let k = first; k < first + l; k++) take(r.nodes[k]!);
  }
}

/** Related removal (Shaw): the q free customers nearest the seed in space and in ready time, ties in `free`'s order. */
function related(m: Model, free: number[], seed: number, q: number, score: Float64Array): number[] {
  const { dist, N, ready } = m;
  const scale = m.meanArc;
  let span = 1;
  for (const u of free) span = Math.max(span, Math.abs(ready[u]! - ready[seed]!));
  for (const u of free) score[u] = dist[seed * N + u]! / scale + Math.abs(ready[u]! - ready[seed]!) / span;
  // The q best by score, ties in the order of `free` (as a stable sort would give).
  return free
    .slice()
    .sort((a, b) => score[a]! - score[b]!)
    .slice(0, q);
}

/** Greedy insertion with blinks, in one of SISR's orders; at most `fleet` non-empty routes. */
export function recreate(m: Model, s: Solution, pool: number[], fleet: number, rng: Rng, blink: number): void {
  const { demand, dist, N, ready, due } = m;
  const depot = m.vehicles[0]!.start;
  const order = rng();
  if (order < 4 / 12) shuffle(pool, rng);
  else if (order < 8 / 12) pool.sort((a, b) => demand[b]! - demand[a]!);
  else if (order < 10 / 12) pool.sort((a, b) => dist[depot * N + b]! - dist[depot * N + a]!);
  else if (order < 11 / 12) pool.sort((a, b) => dist[depot * N + a]! - dist[depot * N + b]!);
  else pool.sort((a, b) => due[a]! - ready[a]! - (due[b]! - ready[b]!));
  let used = usedVehicles(s);
  const seen = new Uint8Array(m.vehicles.length);
  const { time, service } = m;
  // Blinks: each position is skipped with probability `blink`; the gap to the next skip is drawn at once.
  const logKeep = blink > 0 ? Math.log(1 - blink) : 0;
  const gap = () => (blink > 0 ? Math.floor(Math.log(1 - rng()) / logKeep) : Infinity);
  let untilBlink = gap();
  for (const u of pool) {
    let bestCost = Infinity;
    let bestRoute = -1;
    let bestAt = -1;
    seen.fill(0);
    const readyU = ready[u]!;
    const dueU = due[u]!;
    const serviceU = service[u]!;
    const rowU = u * N;
    for (let ri = 0; ri < s.routes.length; ri++) {
      const r = s.routes[ri]!;
      const veh = m.vehicles[r.v]!;
      if (r.nodes.length === 0) {
        if (used >= fleet || seen[veh.signature]) continue;
        seen[veh.signature] = 1;
      }
      if (r.load + demand[u]! > veh.capacity) continue;
      const nodes = r.nodes;
      const es = r.es;
      const ls = r.ls;
      // Latest starts only grow along a route: skip the head where even starting u at its ready time is too
      // late for the next stop; earliest starts only grow too: stop once the previous stop starts after u's due.
      const L = nodes.length;
      let lo = r.locked;
      let hi = L;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (ls[mid + 1]! < readyU) lo = mid + 1;
        else hi = mid;
      }
      for (let j = lo; j <= L; j++) {
        const esA = es[j]!;
        if (esA > dueU) break;
        if (untilBlink-- === 0) {
          untilBlink = gap();
          continue;
        }
        // insertionCost(m, r, u, j), inlined; the time windows are checked only where the place is cheaper.
        const a = j === 0 ? veh.start : nodes[j - 1]!;
        const b = j === L ? veh.end : nodes[j]!;
        const c = dist[a * N + u]! + dist[rowU + b]! - dist[a * N + b]!;
        if (c >= bestCost) continue;
        let t = esA + service[a]! + time[a * N + u]!;
        if (t < readyU) t = readyU;
        if (t > dueU) continue;
        if (t + serviceU + time[rowU + b]! > ls[j + 1]!) continue;
        bestCost = c;
        bestRoute = ri;
        bestAt = j;
      }
    }
    if (bestRoute < 0) {
      s.unassigned.push(u);
      continue;
    }
    const r = s.routes[bestRoute]!;
    if (r.nodes.length === 0) used++;
    insertNode(m, r, u, bestAt);
  }
}

function shuffle(a: number[], rng: Rng): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  }
}

export function answer(m: Model, problem: RoutingProblem, s: Solution, iterations: number, seconds: number): RoutingSolution {
  const routes = s.routes
    .filter((r) => r.nodes.length > 0)
    .map((r) => ({
      vehicle: problem.vehicles[r.v]!.id,
      stops: r.nodes.map((u) => problem.stops[m.stopOf[u]!]!.id),
      distance: r.dist,
      times: Array.from(r.es.subarray(1, r.nodes.length + 1)),
      end: r.es[r.nodes.length + 1]!,
      load: r.load,
    }));
  const unplanned: { stop: string; reason: UnplannedReason }[] = m.rejected.map((x) => ({
    stop: problem.stops[x.stop]!.id,
    reason: x.reason,
  }));
  for (const u of s.unassigned) {
    // Plannable alone but left out: capacity when no route in use has room for it, otherwise its window.
    const room = s.routes.some((r) => r.load + m.demand[u]! <= m.vehicles[r.v]!.capacity);
    unplanned.push({ stop: problem.stops[m.stopOf[u]!]!.id, reason: room ? 'window' : 'capacity' });
  }
  return { routes, unplanned, vehicles: routes.length, distance: routes.reduce((d, r) => d + r.distance, 0), iterations, seconds };
}
