// The routing problem and its answer as plain data: everything here survives structuredClone, so a
// worker_thread can take a problem and hand back a plan (except a travel callback, which stays in-thread).

/** Travel between matrix locations. Dense matrices are row-major `size × size` (from i to j at i * size + j). */
export type Travel =
  | { size: number; time: Float64Array; distance?: Float64Array }
  | { size: number; time: (from: number, to: number) => number; distance?: (from: number, to: number) => number };

export interface Vehicle {
  id: string;
  /** Matrix index of the place the shift starts from and the one it ends at (often the same depot). */
  start: number;
  end: number;
  capacity: number;
  /** Shift window: leave `start` no earlier than shiftStart, reach `end` no later than shiftEnd. */
  shiftStart: number;
  shiftEnd: number;
}

export interface Stop {
  id: string;
  /** Matrix index; null or undefined when the address has no coordinates (reason 'no-position'). */
  location: number | null | undefined;
  demand: number;
  service: number;
  /** Service starts within [ready, due]; arriving earlier waits, later is infeasible. */
  ready: number;
  due: number;
}

/** Stops fixed, in this order, at the head of a vehicle's route; the solver plans only after them. */
export interface Locked {
  vehicle: string;
  stops: string[];
}

/** A plan to start from (re-planning): stop ids in visit order per vehicle. */
export interface RouteIds {
  vehicle: string;
  stops: string[];
}

export interface RoutingProblem {
  travel: Travel;
  vehicles: Vehicle[];
  stops: Stop[];
  locked?: Locked[];
  initial?: RouteIds[];
}

export interface SolveOptions {
  /** Wall-clock budget in seconds from the call (default 1). */
  seconds?: number;
  /** Absolute stop time on performance.now()'s clock; wins over `seconds` when earlier. */
  deadline?: number;
  seed?: number;
  /** Stop after this many ruin-and-recreate iterations (with a seed, the answer is then reproducible). */
  maxIterations?: number;
}

export type UnplannedReason = 'window' | 'capacity' | 'no-position';

export interface PlannedRoute {
  vehicle: string;
  stops: string[];
  distance: number;
  /** Start of service at each stop (after any wait), then the arrival back at the end place. */
  times: number[];
  end: number;
  load: number;
}

export interface RoutingSolution {
  routes: PlannedRoute[];
  unplanned: { stop: string; reason: UnplannedReason }[];
  vehicles: number;
  distance: number;
  iterations: number;
  seconds: number;
}
