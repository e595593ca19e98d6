import { describe, expect, it } from 'vitest';
import { evaluate, insertionCost, insertNode, newRoute, updateRoute } from './route.ts';
import { mulberry32 } from './random.ts';
import { planeProblem, planeSolution } from './test-helpers.ts';
import { parseSolomon } from './solomon.ts';
import { verifySolomon } from './verify.ts';

const depot = { x: 0, y: 0 };

describe('the O(1) insertion check and the route evaluation', () => {
  it('accept a feasible insertion at its exact extra distance', () => {
    const { m, s } = planeSolution(planeProblem(depot, [{ at: { x: 10, y: 0 } }, { at: { x: 20, y: 0 } }]), [[1]]);
    // After s1: 0→10→20→0 is 40 instead of 20.
    expect(insertionCost(m, s.routes[0]!, 1, 1)).toBeCloseTo(20, 9);
    expect(evaluate(m, 0, [0, 1])).toBeCloseTo(40, 9);
  });

  it('reject a late arrival at the new stop and at a stop pushed later', () => {
    // Each stop can be served alone; together they cannot.
    const { m, s } = planeSolution(
      planeProblem(depot, [
        { at: { x: 10, y: 0 }, due: 10, service: 10 },
        { at: { x: 20, y: 0 }, due: 25 },
      ]),
      [[1]],
    );
    const r = s.routes[0]!;
    expect(insertionCost(m, r, 1, 1)).toBe(Infinity); // s1 leaves at 20, s2 reached at 30 > 25
    expect(insertionCost(m, r, 1, 0)).toBe(Infinity); // s2 first, then s1 at 30 > 10
    expect(evaluate(m, 0, [0, 1])).toBe(Infinity);
    expect(evaluate(m, 0, [1, 0])).toBe(Infinity);
  });

  it('wait for a ready time and count the wait', () => {
    const { m, s } = planeSolution(
      planeProblem(depot, [
        { at: { x: 10, y: 0 }, ready: 50, service: 5 },
        { at: { x: 20, y: 0 }, due: 64 },
      ]),
      [[1]],
    );
    expect(s.routes[0]!.es[1]).toBe(50);
    // s1 starts at 50, leaves at 55, reaches s2 at 65 > 64.
    expect(insertionCost(m, s.routes[0]!, 1, 1)).toBe(Infinity);
  });

  it('reject a load over the capacity', () => {
    const { m, s } = planeSolution(
      planeProblem(
        depot,
        [
          { at: { x: 1, y: 0 }, demand: 6 },
          { at: { x: 2, y: 0 }, demand: 5 },
        ],
        [{ capacity: 10 }],
      ),
      [[1]],
    );
    expect(insertionCost(m, s.routes[0]!, 1, 1)).toBe(Infinity);
    expect(evaluate(m, 0, [0, 1])).toBe(Infinity);
  });

  it('reject a return to the depot after the shift (depot window)', () => {
    const { m, s } = planeSolution(planeProblem(depot, [{ at: { x: 10, y: 0 } }, { at: { x: 0, y: 10 } }], [{ shiftEnd: 30 }]), [[1]]);
    expect(insertionCost(m, s.routes[0]!, 1, 1)).toBe(Infinity); // back at 34.1 > 30
    expect(evaluate(m, 0, [0, 1])).toBe(Infinity);
    expect(evaluate(m, 0, [0])).toBeCloseTo(20, 9);
  });

  it('respect a late shift start', () => {
    const { m } = planeSolution(planeProblem(depot, [{ at: { x: 10, y: 0 }, due: 100 }], [{}, { shiftStart: 95 }]), [[]]);
    expect(evaluate(m, 0, [0])).toBeCloseTo(20, 9);
    expect(evaluate(m, 1, [0])).toBe(Infinity); // leaves at 95, arrives at 105
  });
});

describe('inserting a customer in place', () => {
  it('leaves the same schedule, latest starts, load and distance as a full update', () => {
    // 40 customers with service times and windows, inserted one by one at random feasible places: after each
    // insertion the route's arrays must equal a route built from scratch with the same nodes.
    const rng = mulberry32(7);
    const stops = Array.from({ length: 40 }, () => {
      const ready = Math.floor(rng() * 300);
      return { at: { x: rng() * 50, y: rng() * 50 }, service: 5, ready, due: ready + 60 + Math.floor(rng() * 300) };
    });
    const { m, s } = planeSolution(planeProblem(depot, stops, [{ shiftEnd: 2000 }]), [[]]);
    const r = s.routes[0]!;
    let inserted = 0;
    for (let u = 0; u < m.n; u++) {
      const places: number[] = [];
      for (let j = 0; j <= r.nodes.length; j++) if (insertionCost(m, r, u, j) < Infinity) places.push(j);
      if (places.length === 0) continue;
      insertNode(m, r, u, places[Math.floor(rng() * places.length)]!);
      inserted++;
      const fresh = newRoute(m, 0, r.nodes.slice());
      const L = r.nodes.length;
      expect(fresh.feasible).toBe(true);
      expect(Array.from(r.es.subarray(0, L + 2))).toEqual(Array.from(fresh.es.subarray(0, L + 2)));
      expect(Array.from(r.ls.subarray(0, L + 2))).toEqual(Array.from(fresh.ls.subarray(0, L + 2)));
      expect(r.load).toBe(fresh.load);
      expect(r.dist).toBeCloseTo(fresh.dist, 9);
    }
    expect(inserted).toBeGreaterThan(20);
    // A route whose arrays are shared with a clone (or too short) takes the full update and stays right.
    updateRoute(m, r);
    expect(r.feasible).toBe(true);
  });
});

describe('the independent verifier', () => {
  const text = [
    'T',
    'VEHICLE',
    'NUMBER CAPACITY',
    '2 10',
    'CUSTOMER',
    'CUST NO. XCOORD. YCOORD. DEMAND READY TIME DUE DATE SERVICE TIME',
    '0 0 0 0 0 100 0',
    '1 10 0 6 0 20 5',
    '2 20 0 5 0 40 5',
    '3 0 10 1 0 12 0',
  ].join('\n');
  const inst = parseSolomon(text);

  it('accepts a feasible answer and measures it', () => {
    const v = verifySolomon(inst, [[1], [3, 2]]);
    expect(v.errors).toEqual([]);
    expect(v.vehicles).toBe(2);
    expect(v.distance).toBeCloseTo(20 + 10 + Math.hypot(20, 10) + 20, 9);
  });

  it('rejects an overload, a late arrival, a late return, a missing or repeated customer and a wrong distance', () => {
    expect(verifySolomon(inst, [[1, 2], [3]]).errors.join()).toMatch(/load 11 over the capacity 10/);
    expect(verifySolomon(inst, [[2, 3], [1]]).errors.join()).toMatch(/customer 3 served at .* after its due time 12/);
    const late = parseSolomon(text.replace('0 0 0 0 0 100 0', '0 0 0 0 0 30 0'));
    expect(verifySolomon(late, [[1], [3, 2]]).errors.join()).toMatch(/back at the depot at .* after 30/);
    expect(verifySolomon(inst, [[1], [3]]).errors.join()).toMatch(/customer 2 visited 0 times/);
    expect(
      verifySolomon(inst, [
        [1, 2],
        [3, 2],
      ]).errors.join(),
    ).toMatch(/customer 2 visited 2 times/);
    expect(verifySolomon(inst, [[1], [2], [3]]).errors.join()).toMatch(/3 routes for 2 vehicles/);
    expect(verifySolomon(inst, [[1], [3, 2]], 10).errors.join()).toMatch(/claimed distance 10/);
  });
});
