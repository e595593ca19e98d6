import { describe, expect, it } from 'vitest';
import { recreate, ruin } from './solver.ts';
import { mulberry32 } from './random.ts';
import { evaluate, totalDistance } from './route.ts';
import { planeProblem, planeSolution, stopsOf } from './test-helpers.ts';

const depot = { x: 0, y: 0 };

/** A random source that plays the given values, then repeats the last one. */
function scripted(values: number[]): () => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)]!;
}

/** Twelve customers on a line, one route 1..12. */
function line() {
  const stops = Array.from({ length: 12 }, (_, i) => ({ at: { x: 10 * (i + 1), y: 0 } }));
  return planeSolution(planeProblem(depot, stops, [{ shiftEnd: 10_000 }]), [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]]);
}

describe('ruin', () => {
  it('removes a split string: two pieces of one route around a stretch it keeps', () => {
    const { m, s } = line();
    // Seed: the 6th customer (stop 6, position 5); string mode; one string; l = 3; split; the kept stretch grows
    // twice then stops (keep = 3, span 6); the span starts at position 3; the kept stretch at its 2nd place.
    const rng = scripted([5.5 / 12, 0.1, 0, 0.25, 0.1, 0.5, 0.5, 0.005, 0.5, 0.3]);
    const removed = ruin(m, s, rng, 0.5);
    expect(removed.map((u) => u + 1).sort((a, b) => a - b)).toEqual([4, 8, 9]);
    expect(stopsOf(s)).toEqual([[1, 2, 3, 5, 6, 7, 10, 11, 12]]);
    const r = s.routes[0]!;
    expect(r.dist).toBeCloseTo(evaluate(m, 0, r.nodes), 9);
  });

  it('removes one plain string when split strings are off', () => {
    const { m, s } = line();
    // Same draws without the split decision: l = 3, the string starts at position 3 + floor(0.1 * 3).
    const removed = ruin(m, s, scripted([5.5 / 12, 0.1, 0, 0.25, 0.1]), 0);
    expect(removed.map((u) => u + 1).sort((a, b) => a - b)).toEqual([4, 5, 6]);
    expect(stopsOf(s)).toEqual([[1, 2, 3, 7, 8, 9, 10, 11, 12]]);
  });

  it('with recreate, keeps every plan feasible and every customer once, and straightens a scrambled line', () => {
    // Customers on a zigzag line, two vehicles: 500 ruin-and-recreate rounds from a scrambled start, keeping the
    // shorter plan; split strings on.
    const stops = Array.from({ length: 30 }, (_, i) => ({ at: { x: 10 * (i + 1), y: (i % 2) * 3 }, ready: 0, due: 5000 }));
    const scrambled = [
      [1, 5, 3, 7, 9, 11, 13, 15, 2, 17, 19, 21, 23, 25, 27, 29],
      [4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30],
    ];
    const problem = planeProblem(depot, stops, [{ shiftEnd: 100_000 }, { shiftEnd: 100_000 }]);
    const { m, s: first } = planeSolution(problem, scrambled);
    let s = first;
    const lineTour = totalDistance(planeSolution(problem, [Array.from({ length: 30 }, (_, i) => i + 1)]).s);
    const start = totalDistance(s);
    const rng = mulberry32(3);
    for (let i = 0; i < 500; i++) {
      const { s: cand } = planeSolution(problem, stopsOf(s));
      const removed = ruin(m, cand, rng, 0.5);
      recreate(m, cand, removed, 2, rng, 0.01);
      expect(cand.unassigned).toEqual([]);
      for (const r of cand.routes) expect(evaluate(m, r.v, r.nodes)).toBeCloseTo(r.dist, 6);
      expect(
        stopsOf(cand)
          .flat()
          .sort((a, b) => a - b),
      ).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      if (totalDistance(cand) < totalDistance(s)) s = cand;
    }
    // Scrambled: 1480. Visiting 1..30 in order and back is 612.8; out on the even ones and back on the odd ones
    // (600.7) is shorter still, and that is what it finds.
    expect(start).toBeGreaterThan(1400);
    expect(totalDistance(s)).toBeLessThan(lineTour);
  });
});
