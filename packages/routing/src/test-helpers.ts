// Small hand-made problems for the tests: points on a plane, Euclidean travel (time = distance).
import { buildModel, type Model } from './model.ts';
import { newRoute, type Solution } from './route.ts';
import type { RoutingProblem, Stop, Vehicle } from './types.ts';

export interface Point {
  x: number;
  y: number;
}

export interface PlaneStop extends Partial<Omit<Stop, 'location'>> {
  at: Point | null;
}

/** Location 0 is the depot; stop i (1-based, id `s${i}`) is at location i. */
export function planeProblem(depot: Point, stops: PlaneStop[], vehicles: Partial<Vehicle>[] = [{}]): RoutingProblem {
  const points = [depot, ...stops.map((s) => s.at ?? { x: 0, y: 0 })];
  const size = points.length;
  const time = new Float64Array(size * size);
  for (let i = 0; i < size; i++)
    for (let j = 0; j < size; j++) time[i * size + j] = Math.hypot(points[i]!.x - points[j]!.x, points[i]!.y - points[j]!.y);
  return {
    travel: { size, time },
    vehicles: vehicles.map((v, k) => ({ id: `v${k + 1}`, start: 0, end: 0, capacity: 100, shiftStart: 0, shiftEnd: 1000, ...v })),
    stops: stops.map((s, i) => ({
      id: `s${i + 1}`,
      location: s.at ? i + 1 : null,
      demand: s.demand ?? 1,
      service: s.service ?? 0,
      ready: s.ready ?? 0,
      due: s.due ?? 1000,
    })),
  };
}

/** A model and a solution with the given routes (customer node = stop number - 1, in model order). */
export function planeSolution(problem: RoutingProblem, routes: number[][]): { m: Model; s: Solution } {
  const m = buildModel(problem);
  const s: Solution = {
    routes: m.vehicles.map((_, v) =>
      newRoute(
        m,
        v,
        (routes[v] ?? []).map((stop) => stop - 1),
      ),
    ),
    unassigned: [],
  };
  return { m, s };
}

/** Stop numbers per route, for assertions. */
export function stopsOf(s: Solution): number[][] {
  return s.routes.map((r) => r.nodes.map((u) => u + 1));
}

/** A Solomon-format file text. Rows: [id, x, y, demand, ready, due, service]. */
export function solomonText(vehicles: number, capacity: number, rows: number[][]): string {
  return [
    'TINY',
    '',
    'VEHICLE',
    'NUMBER     CAPACITY',
    `  ${vehicles}         ${capacity}`,
    '',
    'CUSTOMER',
    'CUST NO.  XCOORD.   YCOORD.    DEMAND   READY TIME  DUE DATE   SERVICE   TIME',
    ' ',
    ...rows.map((r) => r.map((v) => String(v).padStart(8)).join(' ')),
    '',
  ].join('\n');
}
