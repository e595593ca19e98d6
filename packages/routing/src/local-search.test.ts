import { describe, expect, it } from 'vitest';
import { improveWith, localSearch, type MoveName } from './local-search.ts';
import { evaluate, totalDistance } from './route.ts';
import { planeProblem, planeSolution, stopsOf, type PlaneStop } from './test-helpers.ts';
import type { Vehicle } from './types.ts';

const depot = { x: 0, y: 0 };

function run(name: MoveName, stops: PlaneStop[], routes: number[][], vehicles: Partial<Vehicle>[] = [{}, {}]) {
  const { m, s } = planeSolution(planeProblem(depot, stops, vehicles), routes);
  for (const r of s.routes) expect(r.feasible).toBe(true);
  const before = totalDistance(s);
  const improved = improveWith(m, s, name);
  const after = totalDistance(s);
  for (const r of s.routes) {
    expect(r.feasible).toBe(true);
    expect(evaluate(m, r.v, r.nodes)).toBeCloseTo(r.dist, 9);
  }
  // Every customer still served exactly once.
  expect(stopsOf(s).flat().sort()).toEqual(routes.flat().sort());
  return { improved, before, after, routes: stopsOf(s) };
}

describe('local search moves keep the plan feasible and shorten a hand-built case', () => {
  it('relocate moves a customer to the route it belongs to', () => {
    const r = run('relocate', [{ at: { x: 10, y: 0 } }, { at: { x: 0, y: 10 } }, { at: { x: 0, y: 11 } }], [[1, 2], [3]]);
    expect(r.improved).toBe(true);
    expect(r.after).toBeLessThan(r.before - 10);
    // s2 ends beside s3 (s1 may follow them: one route is shorter still).
    const withThree = r.routes.find((x) => x.includes(3))!;
    expect(Math.abs(withThree.indexOf(2) - withThree.indexOf(3))).toBe(1);
  });

  it('relocate refuses a shorter plan that would break a time window', () => {
    const stops: PlaneStop[] = [{ at: { x: 10, y: 0 }, due: 10.5 }, { at: { x: 0, y: 10 } }, { at: { x: 10, y: 1 }, due: 10.5 }];
    const tight = run('relocate', stops, [[1], [3, 2]]);
    expect(tight.improved).toBe(false);
    expect(tight.routes).toEqual([[1], [3, 2]]);
    // The same case without the windows: s3 joins s1.
    const loose = run(
      'relocate',
      stops.map((s) => ({ at: s.at })),
      [[1], [3, 2]],
    );
    expect(loose.improved).toBe(true);
    expect(loose.after).toBeLessThan(loose.before);
  });

  it('exchange swaps two customers when capacity forbids moving one', () => {
    const stops: PlaneStop[] = [{ at: { x: 10, y: 0 } }, { at: { x: 0, y: 10 } }, { at: { x: 0, y: 11 } }, { at: { x: 11, y: 0 } }];
    const relocate = run(
      'relocate',
      stops,
      [
        [1, 2],
        [3, 4],
      ],
      [{ capacity: 2 }, { capacity: 2 }],
    );
    expect(relocate.improved).toBe(false);
    const r = run(
      'exchange',
      stops,
      [
        [1, 2],
        [3, 4],
      ],
      [{ capacity: 2 }, { capacity: 2 }],
    );
    expect(r.improved).toBe(true);
    expect(r.after).toBeLessThan(r.before - 10);
    expect(r.routes.map((x) => x.slice().sort().join()).sort()).toEqual(['1,4', '2,3']);
  });

  it('2-opt* exchanges the tails of two crossing routes', () => {
    const stops: PlaneStop[] = [{ at: { x: 10, y: 1 } }, { at: { x: 20, y: 11 } }, { at: { x: 10, y: 11 } }, { at: { x: 20, y: 1 } }];
    const r = run(
      'twoOptStar',
      stops,
      [
        [1, 2],
        [3, 4],
      ],
      [{ capacity: 2 }, { capacity: 2 }],
    );
    expect(r.improved).toBe(true);
    expect(r.after).toBeLessThan(r.before - 5);
    expect(r.routes).toEqual([
      [1, 4],
      [3, 2],
    ]);
  });

  it('2-opt* is refused when the new tail would arrive too late', () => {
    // s4 must be served by time 21: only as the first stop of a route, which the tail exchange cannot give it.
    const stops: PlaneStop[] = [
      { at: { x: 10, y: 1 } },
      { at: { x: 20, y: 11 } },
      { at: { x: 10, y: 11 } },
      { at: { x: 20, y: 1 }, due: 21 },
    ];
    const r = run(
      'twoOptStar',
      stops,
      [
        [1, 2],
        [4, 3],
      ],
      [{ capacity: 2 }, { capacity: 2 }],
    );
    for (const route of r.routes) if (route.includes(4)) expect(route[0]).toBe(4);
  });

  it('or-opt moves a string of customers to another route', () => {
    const r = run(
      'orOpt',
      [{ at: { x: 10, y: 0 } }, { at: { x: 0, y: 10 } }, { at: { x: 0, y: 11 } }, { at: { x: 0, y: 12 } }],
      [[1, 2, 3], [4]],
    );
    expect(r.improved).toBe(true);
    expect(r.after).toBeLessThan(r.before - 10);
    // The string 2,3 travels whole (possibly reversed) to s4.
    expect(r.routes.find((x) => x.includes(4))!.join()).toMatch(/2,3,4|4,3,2/);
  });

  it('or-opt moves a string within its route', () => {
    // 1 and 2 sit at the far end but are visited first: moving them after 3 and 4 straightens the route.
    const stops: PlaneStop[] = [{ at: { x: 30, y: 0 } }, { at: { x: 31, y: 0 } }, { at: { x: 10, y: 0 } }, { at: { x: 20, y: 0 } }];
    const r = run('orOpt', stops, [[1, 2, 3, 4]], [{}]);
    expect(r.improved).toBe(true);
    expect(r.after).toBeLessThan(r.before);
  });

  it('2-opt uncrosses a route', () => {
    const stops: PlaneStop[] = [{ at: { x: 10, y: 0 } }, { at: { x: 10, y: 10 } }, { at: { x: 0, y: 10 } }];
    const r = run('twoOpt', stops, [[1, 3, 2]], [{}]);
    expect(r.improved).toBe(true);
    expect(r.after).toBeCloseTo(40, 9);
    expect(r.routes[0]).toEqual([1, 2, 3]);
    // s2 opens at 40 and s3 closes at 30: going round would reach s3 at 50, so the crossing route stays.
    const held = run('twoOpt', [stops[0]!, { ...stops[1]!, ready: 40 }, { ...stops[2]!, due: 30 }], [[1, 3, 2]], [{}]);
    expect(held.improved).toBe(false);
  });

  it('locked stops are never moved', () => {
    const problem = planeProblem(depot, [{ at: { x: 10, y: 0 } }, { at: { x: 0, y: 10 } }, { at: { x: 0, y: 11 } }], [{}, {}]);
    const { m, s } = planeSolution(problem, [[1, 2], [3]]);
    s.routes[0]!.locked = 2;
    localSearch(m, s);
    expect(stopsOf(s)[0]!.slice(0, 2)).toEqual([1, 2]);
  });
});
