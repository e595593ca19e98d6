import { describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { solve } from './solver.ts';
import { mulberry32 } from './random.ts';
import { planeProblem, type PlaneStop } from './test-helpers.ts';
import { verifyPlan } from './verify.ts';
import type { RoutingProblem, RoutingSolution } from './types.ts';

/** A seeded random day: stops around a central depot, a third of them with a narrow window. */
function randomProblem(seed: number, n: number, vehicles = 6): RoutingProblem {
  const rng = mulberry32(seed);
  const stops: PlaneStop[] = Array.from({ length: n }, () => {
    const windowed = rng() < 0.3;
    const ready = windowed ? Math.floor(rng() * 150) : 0;
    return {
      at: { x: rng() * 100, y: rng() * 100 },
      demand: 1 + Math.floor(rng() * 9),
      service: 5,
      ready,
      due: windowed ? ready + 60 : 400,
    };
  });
  return planeProblem(
    { x: 50, y: 50 },
    stops,
    Array.from({ length: vehicles }, () => ({ capacity: 60, shiftEnd: 500 })),
  );
}

const shape = (p: RoutingSolution) => p.routes.map((r) => `${r.vehicle}:${r.stops.join(',')}`);

describe('solve', () => {
  it('returns a feasible plan that serves every stop', () => {
    const problem = randomProblem(1, 40);
    const plan = solve(problem, { seconds: 0.5, seed: 3 });
    expect(verifyPlan(problem, plan).errors).toEqual([]);
    expect(plan.unplanned).toEqual([]);
    expect(plan.routes.flatMap((r) => r.stops)).toHaveLength(40);
  });

  it('is deterministic for a seed and an iteration budget', () => {
    const problem = randomProblem(2, 40);
    const a = solve(problem, { seconds: 120, maxIterations: 400, seed: 11 });
    const b = solve(problem, { seconds: 120, maxIterations: 400, seed: 11 });
    expect(a.iterations).toBe(400);
    expect(shape(b)).toEqual(shape(a));
    expect(b.distance).toBe(a.distance);
  });

  it('reads travel from a callback as from a dense matrix', () => {
    const problem = randomProblem(3, 25);
    const dense = problem.travel.time as Float64Array;
    const size = problem.travel.size;
    const viaCallback: RoutingProblem = { ...problem, travel: { size, time: (a, b) => dense[a * size + b]! } };
    const a = solve(problem, { seconds: 120, maxIterations: 200, seed: 5 });
    const b = solve(viaCallback, { seconds: 120, maxIterations: 200, seed: 5 });
    expect(shape(b)).toEqual(shape(a));
  });

  it('honours the time limit', () => {
    const problem = randomProblem(4, 120, 15);
    const t0 = performance.now();
    const plan = solve(problem, { seconds: 0.3, seed: 1 });
    // Generous: the bound is 0.3 s; a loaded machine may add scheduling delays but not seconds.
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(verifyPlan(problem, plan).errors).toEqual([]);
  });

  it('keeps locked stops at the head of their vehicle, in order', () => {
    const problem = {
      ...randomProblem(5, 30),
      locked: [
        { vehicle: 'v2', stops: ['s7', 's3'] },
        { vehicle: 'v4', stops: ['s12'] },
      ],
    };
    const plan = solve(problem, { seconds: 0.4, seed: 2 });
    expect(verifyPlan(problem, plan).errors).toEqual([]);
    expect(plan.routes.find((r) => r.vehicle === 'v2')!.stops.slice(0, 2)).toEqual(['s7', 's3']);
    expect(plan.routes.find((r) => r.vehicle === 'v4')!.stops[0]).toBe('s12');
  });

  it('refuses locked stops that break their own window', () => {
    const problem: RoutingProblem = {
      ...planeProblem({ x: 0, y: 0 }, [
        { at: { x: 10, y: 0 }, due: 50 },
        { at: { x: 50, y: 0 }, due: 50 },
      ]),
      locked: [{ vehicle: 'v1', stops: ['s2', 's1'] }],
    };
    expect(() => solve(problem, { seconds: 0.1 })).toThrow(/locked stops of vehicle v1/);
  });

  it('returns unplannable stops with the reason', () => {
    const problem = planeProblem(
      { x: 0, y: 0 },
      [
        { at: { x: 10, y: 0 } },
        { at: null },
        { at: { x: 5, y: 0 }, demand: 500 },
        { at: { x: 50, y: 0 }, ready: 0, due: 20 },
        { at: { x: 40, y: 0 }, ready: 980 },
      ],
      [{ capacity: 100 }],
    );
    const plan = solve(problem, { seconds: 0.2 });
    expect(verifyPlan(problem, plan).errors).toEqual([]);
    expect(plan.unplanned.sort((a, b) => a.stop.localeCompare(b.stop))).toEqual([
      { stop: 's2', reason: 'no-position' },
      { stop: 's3', reason: 'capacity' },
      { stop: 's4', reason: 'window' },
      { stop: 's5', reason: 'window' },
    ]);
    expect(plan.routes[0]!.stops).toEqual(['s1']);
  });

  it('says capacity when the fleet is full and window when the stop fits nowhere in time', () => {
    const full = planeProblem(
      { x: 0, y: 0 },
      [
        { at: { x: 1, y: 0 }, demand: 8 },
        { at: { x: 2, y: 0 }, demand: 8 },
      ],
      [{ capacity: 10 }],
    );
    expect(solve(full, { seconds: 0.1 }).unplanned.map((u) => u.reason)).toEqual(['capacity']);
    const clash = planeProblem(
      { x: 0, y: 0 },
      [
        { at: { x: 10, y: 0 }, ready: 100, due: 100, service: 50 },
        { at: { x: 0, y: 10 }, ready: 110, due: 110 },
      ],
      [{}],
    );
    expect(solve(clash, { seconds: 0.1 }).unplanned.map((u) => u.reason)).toEqual(['window']);
  });

  it('plans heterogeneous vehicles from their own depots', () => {
    const base = randomProblem(6, 30, 0);
    const problem: RoutingProblem = {
      ...base,
      vehicles: [
        { id: 'van', start: 0, end: 0, capacity: 120, shiftStart: 0, shiftEnd: 500 },
        { id: 'bike', start: 1, end: 2, capacity: 15, shiftStart: 100, shiftEnd: 400 },
        { id: 'car', start: 3, end: 3, capacity: 60, shiftStart: 0, shiftEnd: 500 },
      ],
    };
    const plan = solve(problem, { seconds: 0.4, seed: 1 });
    expect(verifyPlan(problem, plan).errors).toEqual([]);
  });

  it('re-plans from an initial plan with one added stop', () => {
    const all = randomProblem(7, 41);
    const day = { ...all, stops: all.stops.slice(0, 40) };
    const first = solve(day, { seconds: 0.5, seed: 1 });
    const initial = first.routes.map((r) => ({ vehicle: r.vehicle, stops: r.stops }));
    const again = solve({ ...all, initial }, { seconds: 0.2, seed: 1 });
    expect(verifyPlan({ ...all, initial }, again).errors).toEqual([]);
    expect(again.routes.some((r) => r.stops.includes('s41'))).toBe(true);
    expect(again.vehicles).toBeLessThanOrEqual(first.vehicles + 1);
  });

  it('takes and returns structured-clone data, and runs in a worker thread', async () => {
    const problem = randomProblem(8, 20);
    const cloned = structuredClone(problem);
    const plan = solve(cloned, { seconds: 120, maxIterations: 100, seed: 1 });
    expect(structuredClone(plan)).toEqual(plan);
    const worker = new Worker(new URL('./worker.ts', import.meta.url));
    try {
      const reply = await new Promise<{ plan?: RoutingSolution; error?: string }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage({ problem, options: { seconds: 120, maxIterations: 100, seed: 1 } });
      });
      expect(reply.error).toBeUndefined();
      expect(shape(reply.plan!)).toEqual(shape(plan));
    } finally {
      await worker.terminate();
    }
  });
});
