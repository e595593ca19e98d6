// The planner's thread: one problem in, one plan out (the solver is CPU-bound for seconds; the API's event
// loop must not wait on it). Dense Float64Array matrices cross by structured clone.
import { parentPort } from 'node:worker_threads';
import { insertStops, solve, type InsertOptions, type RoutingProblem, type SolveOptions } from '@shiptrail/routing';

// `insert`: one change fitted into the plan as it stands (decision 125) instead of a whole search.
parentPort?.once('message', (msg: { problem: RoutingProblem; options?: SolveOptions; insert?: InsertOptions }) => {
  try {
    parentPort!.postMessage({ plan: msg.insert ? insertStops(msg.problem, msg.insert) : solve(msg.problem, msg.options) });
  } catch (err) {
    parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
});
