import { describe, expect, it } from 'vitest';
import { improveRoute, insertStops, orOptWithin, twoOptWithin } from './insert.ts';
import { solve } from './solver.ts';
import { planeProblem, planeSolution, stopsOf } from './test-helpers.ts';
import { verifyPlan } from './verify.ts';

// A depot at the origin; stops on a line east (s1-s3) and west (s4-s6) of it; s7 is the one added.
const line = planeProblem(
  { x: 0, y: 0 },
  [
    { at: { x: 10, y: 0 } },
    { at: { x: 20, y: 0 } },
    { at: { x: 30, y: 0 } },
    { at: { x: -10, y: 0 } },
    { at: { x: -20, y: 0 } },
    { at: { x: -30, y: 0 } },
    { at: { x: 25, y: 1 } },
  ],
  [{}, {}],
);
const plan = [
  { vehicle: 'v1', stops: ['s1', 's2', 's3'] },
  { vehicle: 'v2', stops: ['s4', 's5', 's6'] },
];
const byVehicle = (p: ReturnType<typeof insertStops>) => Object.fromEntries(p.routes.map((r) => [r.vehicle, r.stops]));

describe('insertStops', () => {
  it('puts a new stop in the cheapest place of the existing routes and leaves the rest as it was', () => {
    const out = insertStops({ ...line, initial: plan });
    // Between s3 and the way back is cheaper (0.12) than between s2 and s3 (0.20).
    expect(byVehicle(out)).toEqual({ v1: ['s1', 's2', 's3', 's7'], v2: ['s4', 's5', 's6'] });
    expect(verifyPlan(line, out).errors).toEqual([]);
    expect(out.unplanned).toEqual([]);
  });

  it('keeps to the vehicles a stop may go to, and locks a stop put by hand with the stops before it', () => {
    const out = insertStops({ ...line, initial: plan }, { only: { s7: ['v2'] }, lockInserted: ['s7'] });
    // Cheapest on v2's route, whatever v1 would cost.
    expect(byVehicle(out).v2).toContain('s7');
    expect(byVehicle(out).v1).toEqual(['s1', 's2', 's3']);
    // A second insertion keeps s7 and what is before it where they are.
    const v2 = byVehicle(out).v2!;
    const at = v2.indexOf('s7');
    const again = insertStops({
      ...line,
      locked: [{ vehicle: 'v2', stops: v2.slice(0, at + 1) }],
      initial: [plan[0]!, { vehicle: 'v2', stops: v2.slice(at + 1) }],
    });
    expect(byVehicle(again).v2!.slice(0, at + 1)).toEqual(v2.slice(0, at + 1));
  });

  it('never inserts before a locked head', () => {
    const out = insertStops({
      ...line,
      locked: [{ vehicle: 'v1', stops: ['s3', 's1'] }],
      initial: [
        { vehicle: 'v2', stops: ['s4', 's5', 's6'] },
        { vehicle: 'v1', stops: ['s2'] },
      ],
    });
    expect(byVehicle(out).v1!.slice(0, 2)).toEqual(['s3', 's1']);
    expect(verifyPlan(line, out).errors).toEqual([]);
  });

  it('improves a route it is asked to even when no stop goes in it, and only that route', () => {
    // v1 was planned from the depot; its courier is now at x=30 (s3 done): s2 then s1 is the short way.
    const from = {
      ...line,
      stops: line.stops.filter((s) => s.id !== 's3' && s.id !== 's7'),
      vehicles: line.vehicles.map((v) => (v.id === 'v1' ? { ...v, start: 3 } : v)),
    };
    const initial = [
      { vehicle: 'v1', stops: ['s1', 's2'] },
      { vehicle: 'v2', stops: ['s6', 's4', 's5'] },
    ];
    expect(byVehicle(insertStops({ ...from, initial }))).toEqual({ v1: ['s1', 's2'], v2: ['s6', 's4', 's5'] });
    const out = insertStops({ ...from, initial }, { improve: ['v1'] });
    expect(byVehicle(out)).toEqual({ v1: ['s2', 's1'], v2: ['s6', 's4', 's5'] });
    expect(verifyPlan(from, out).errors).toEqual([]);
  });

  it('reports a stop no route can take, with the reason', () => {
    const tight = planeProblem({ x: 0, y: 0 }, [{ at: { x: 10, y: 0 } }, { at: { x: 10, y: 10 }, ready: 0, due: 5 }], [{ capacity: 10 }]);
    const out = insertStops({ ...tight, initial: [{ vehicle: 'v1', stops: ['s1'] }] });
    expect(out.routes[0]!.stops).toEqual(['s1']);
    expect(out.unplanned).toEqual([{ stop: 's2', reason: 'window' }]);
  });

  it('re-plans one added stop of a 300-stop day, feasible', () => {
    const stops = Array.from({ length: 301 }, (_, i) => ({
      at: { x: 50 + 40 * Math.cos(i * 2.4), y: 50 + 40 * Math.sin(i * 1.7) },
      service: 2,
    }));
    const day = planeProblem(
      { x: 50, y: 50 },
      stops,
      Array.from({ length: 10 }, () => ({ capacity: 40, shiftEnd: 100_000 })),
    );
    const first = solve({ ...day, stops: day.stops.slice(0, 300) }, { maxIterations: 50, seconds: 5, seed: 1 });
    const out = insertStops({ ...day, initial: first.routes.map((r) => ({ vehicle: r.vehicle, stops: r.stops })) }, { seconds: 0.4 });
    expect(out.unplanned).toEqual([]);
    expect(out.routes.flatMap((r) => r.stops)).toContain('s301');
    expect(verifyPlan(day, out).errors).toEqual([]);
  });
});

describe('moves within a route', () => {
  it('or-opt moves a stop to where it belongs, 2-opt undoes a crossing', () => {
    // The corners of a square: the round trip is 40 long; any crossing makes it 48.3.
    const p = planeProblem({ x: 0, y: 0 }, [{ at: { x: 10, y: 0 } }, { at: { x: 10, y: 10 } }, { at: { x: 0, y: 10 } }]);
    const a = planeSolution(p, [[2, 1, 3]]);
    expect(a.s.routes[0]!.dist).toBeCloseTo(48.28, 1);
    expect(orOptWithin(a.m, a.s.routes[0]!)).toBe(true);
    expect(a.s.routes[0]!.dist).toBeCloseTo(40);
    const b = planeSolution(p, [[1, 3, 2]]);
    expect(twoOptWithin(b.m, b.s.routes[0]!)).toBe(true);
    expect(stopsOf(b.s)[0]).toEqual([1, 2, 3]);
    expect(b.s.routes[0]!.dist).toBeCloseTo(40);
    expect(twoOptWithin(b.m, b.s.routes[0]!)).toBe(false);
  });

  it('leaves the locked head alone', () => {
    const p = planeProblem({ x: 0, y: 0 }, [{ at: { x: 10, y: 0 } }, { at: { x: 10, y: 10 } }, { at: { x: 0, y: 10 } }]);
    const { m, s } = planeSolution(p, [[2, 1, 3]]);
    s.routes[0]!.locked = 1;
    expect(improveRoute(m, s.routes[0]!)).toBe(false);
    expect(stopsOf(s)[0]).toEqual([2, 1, 3]);
  });
});
