// Local search on a feasible solution: relocate, exchange (swap), 2-opt*, or-opt and 2-opt, each over the nearest
// neighbours of a customer (granular), first improvement. A candidate's distance change is computed from the
// few arcs it changes; only a candidate that shortens the plan is checked for feasibility (O(route length)).
import type { Model } from './model.ts';
import { evaluate, updateRoute, type Route, type Solution } from './route.ts';

const EPS = 1e-9;

interface Where {
  route: Int32Array;
  pos: Int32Array;
}

function locate(m: Model, s: Solution): Where {
  const route = new Int32Array(m.n).fill(-1);
  const pos = new Int32Array(m.n).fill(-1);
  s.routes.forEach((r, ri) =>
    r.nodes.forEach((u, k) => {
      route[u] = ri;
      pos[u] = k;
    }),
  );
  return { route, pos };
}

function prevOf(m: Model, r: Route, k: number): number {
  return k === 0 ? m.vehicles[r.v]!.start : r.nodes[k - 1]!;
}
function nextOf(m: Model, r: Route, k: number): number {
  return k === r.nodes.length - 1 ? m.vehicles[r.v]!.end : r.nodes[k + 1]!;
}

/** Applies new node lists to routes when all are feasible and the total distance drops. */
function tryApply(m: Model, s: Solution, w: Where, changes: [number, number[]][]): boolean {
  let before = 0;
  let after = 0;
  for (const [ri, nodes] of changes) {
    const r = s.routes[ri]!;
    before += r.dist;
    const d = evaluate(m, r.v, nodes);
    if (d === Infinity) return false;
    after += d;
  }
  if (after >= before - EPS) return false;
  for (const [ri, nodes] of changes) {
    const r = s.routes[ri]!;
    r.nodes = nodes;
    updateRoute(m, r);
    nodes.forEach((u, k) => {
      w.route[u] = ri;
      w.pos[u] = k;
    });
  }
  return true;
}

/** Applies new node lists to two routes at once (a move between routes), as tryApply. */
function tryApplyTwo(m: Model, s: Solution, w: Where, ri: number, from: number[], rj: number, to: number[]): boolean {
  return tryApply(m, s, w, [
    [ri, from],
    [rj, to],
  ]);
}

/**
 * The distance added by putting the string first..last between places j - 1 and j of route r (its vehicle's start
 * before place 0, its end after the last place).
 */
function insertionCost(m: Model, r: Route, j: number, first: number, last: number): number {
  const { dist: D, N } = m;
  const x = j === 0 ? m.vehicles[r.v]!.start : r.nodes[j - 1]!;
  const y = j === r.nodes.length ? m.vehicles[r.v]!.end : r.nodes[j]!;
  return D[x * N + first]! + D[last * N + y]! - D[x * N + y]!;
}

type Move = (m: Model, s: Solution, w: Where, u: number, v: number) => boolean;

/** Swaps u and v. */
const exchangeMove: Move = (m, s, w, u, v) => {
  const ri = w.route[u]!;
  const rj = w.route[v]!;
  const a = s.routes[ri]!;
  const b = s.routes[rj]!;
  const iu = w.pos[u]!;
  const iv = w.pos[v]!;
  if (iu < a.locked || iv < b.locked) return false;
  const { dist: D, N } = m;
  const pu = prevOf(m, a, iu);
  const su = nextOf(m, a, iu);
  const pv = prevOf(m, b, iv);
  const sv = nextOf(m, b, iv);
  const adjacent = ri === rj && Math.abs(iu - iv) <= 1;
  if (!adjacent) {
    const delta =
      D[pu * N + v]! + D[v * N + su]! - D[pu * N + u]! - D[u * N + su]! + D[pv * N + u]! + D[u * N + sv]! - D[pv * N + v]! - D[v * N + sv]!;
    if (delta >= -EPS) return false;
  }
  if (ri === rj) {
    const nodes = a.nodes.slice();
    nodes[iu] = v;
    nodes[iv] = u;
    return tryApply(m, s, w, [[ri, nodes]]);
  }
  const from = a.nodes.slice();
  from[iu] = v;
  const to = b.nodes.slice();
  to[iv] = u;
  return tryApplyTwo(m, s, w, ri, from, rj, to);
};

/** 2-opt* between two routes: u's route keeps its head up to u and continues with v's tail from v. */
const twoOptStarMove: Move = (m, s, w, u, v) => {
  const ri = w.route[u]!;
  const rj = w.route[v]!;
  if (ri === rj) return false;
  const a = s.routes[ri]!;
  const b = s.routes[rj]!;
  const iu = w.pos[u]!;
  const iv = w.pos[v]!;
  if (iu + 1 < a.locked || iv < b.locked) return false;
  const { dist: D, N } = m;
  const va = m.vehicles[a.v]!;
  const vb = m.vehicles[b.v]!;
  if (va.end === vb.end) {
    const su = nextOf(m, a, iu);
    const pv = prevOf(m, b, iv);
    const delta = D[u * N + v]! + D[pv * N + su]! - D[u * N + su]! - D[pv * N + v]!;
    if (delta >= -EPS) return false;
  }
  const headA = a.nodes.slice(0, iu + 1).concat(b.nodes.slice(iv));
  const headB = b.nodes.slice(0, iv).concat(a.nodes.slice(iu + 1));
  return tryApplyTwo(m, s, w, ri, headA, rj, headB);
};

/**
 * Moves the string of `len` customers starting at u next to v (before or after it), for each length of `lengths` in
 * turn: as it is, and reversed when it is longer than one. Relocate is the string of one, or-opt those of 2 and 3.
 */
function moveString(m: Model, s: Solution, w: Where, u: number, v: number, lengths: readonly number[]): boolean {
  const ri = w.route[u]!;
  const rj = w.route[v]!;
  const a = s.routes[ri]!;
  const b = s.routes[rj]!;
  const iu = w.pos[u]!;
  const iv = w.pos[v]!;
  if (iu < a.locked) return false;
  const { dist: D, N } = m;
  for (const len of lengths) {
    if (iu + len > a.nodes.length) break;
    if (ri === rj && iv >= iu && iv < iu + len) continue;
    const seg = a.nodes.slice(iu, iu + len);
    const first = seg[0]!;
    const last = seg[len - 1]!;
    const p = prevOf(m, a, iu);
    const q = nextOf(m, a, iu + len - 1);
    const gain = D[p * N + first]! + D[last * N + q]! - D[p * N + q]!;
    for (const j of [iv, iv + 1]) {
      if (j < b.locked) continue;
      for (const reversed of len > 1 ? [false, true] : [false]) {
        const piece = reversed ? seg.slice().reverse() : seg;
        if (ri === rj) {
          // Not next to the string's old place: the arcs around it and around j are distinct, so the change is exact.
          if (j >= iu && j <= iu + len) continue;
          if (insertionCost(m, a, j, piece[0]!, piece[len - 1]!) - gain >= -EPS) continue;
          const rest = a.nodes.slice(0, iu).concat(a.nodes.slice(iu + len));
          const at = j > iu ? j - len : j;
          const nodes = rest.slice(0, at).concat(piece, rest.slice(at));
          if (tryApply(m, s, w, [[ri, nodes]])) return true;
        } else {
          if (insertionCost(m, b, j, piece[0]!, piece[len - 1]!) - gain >= -EPS) continue;
          const from = a.nodes.slice(0, iu).concat(a.nodes.slice(iu + len));
          const to = b.nodes.slice(0, j).concat(piece, b.nodes.slice(j));
          if (tryApplyTwo(m, s, w, ri, from, rj, to)) return true;
        }
      }
    }
  }
  return false;
}

/** Moves u next to v (before or after it). */
const relocateMove: Move = (m, s, w, u, v) => moveString(m, s, w, u, v, [1]);

/** Or-opt: moves the string of 2 or 3 customers starting at u next to v, as it is or reversed. */
const orOptMove: Move = (m, s, w, u, v) => moveString(m, s, w, u, v, [2, 3]);

/** 2-opt within a route: u is followed by v, the stretch between them reversed. */
const twoOptMove: Move = (m, s, w, u, v) => {
  const ri = w.route[u]!;
  if (ri !== w.route[v]!) return false;
  const a = s.routes[ri]!;
  let i = w.pos[u]!;
  let j = w.pos[v]!;
  if (j < i) [i, j] = [j, i];
  if (j - i < 2 || i + 1 < a.locked) return false;
  // Arcs (x, x+) and (y, y+) become (x, y) and (x+, y+), nodes i+1..j reversed.
  const { dist: D, N } = m;
  const x = a.nodes[i]!;
  const xn = a.nodes[i + 1]!;
  const y = a.nodes[j]!;
  const yn = nextOf(m, a, j);
  if (D[x * N + y]! + D[xn * N + yn]! - D[x * N + xn]! - D[y * N + yn]! >= -EPS) return false;
  const nodes = a.nodes.slice(0, i + 1).concat(a.nodes.slice(i + 1, j + 1).reverse(), a.nodes.slice(j + 1));
  return tryApply(m, s, w, [[ri, nodes]]);
};

export const moves = { relocate: relocateMove, exchange: exchangeMove, twoOptStar: twoOptStarMove, orOpt: orOptMove, twoOpt: twoOptMove };
export type MoveName = keyof typeof moves;

/** One pass of a move over every customer and its `k` nearest neighbours; true when anything improved. */
export function improveWith(m: Model, s: Solution, name: MoveName, k = 20, until = Infinity): boolean {
  const move = moves[name];
  const w = locate(m, s);
  let improved = false;
  for (let u = 0; u < m.n; u++) {
    if (w.route[u]! < 0) continue;
    if (until !== Infinity && performance.now() > until) break;
    const near = m.neighbors[u]!;
    const limit = Math.min(k, near.length);
    for (let t = 0; t < limit; t++) {
      const v = near[t]!;
      if (w.route[v]! < 0 || w.route[u]! < 0) continue;
      if (move(m, s, w, u, v)) improved = true;
    }
  }
  return improved;
}

/** Runs every move until none improves (or `until` on performance.now()'s clock passes). */
export function localSearch(m: Model, s: Solution, until = Infinity, k = 20): void {
  for (let round = 0; round < 50; round++) {
    let improved = false;
    for (const name of ['relocate', 'twoOptStar', 'exchange', 'orOpt', 'twoOpt'] as const) {
      if (performance.now() > until) return;
      if (improveWith(m, s, name, k, until)) improved = true;
    }
    if (!improved) return;
  }
}
