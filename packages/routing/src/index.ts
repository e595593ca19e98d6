// @shiptrail/routing: a vehicle-routing solver (VRPTW, heterogeneous fleet, locked stops, re-planning) in
// plain TypeScript. `solve` takes and returns plain data, so a worker_thread can run it (see worker.ts).
export { solve } from './solver.ts';
export { insertStops, type InsertOptions } from './insert.ts';
export { verifyPlan, verifySolomon, type Verdict } from './verify.ts';
export { parseSolomon, solomonProblem, SolomonFormatError, type SolomonInstance } from './solomon.ts';
export type * from './types.ts';
