// The planner's thread: one problem in, one plan out (the solver is CPU-bound for seconds; the API's event
// loop must not wait on it). Dense Float64Array matrices cross by structured clone.
import { parentPort } from 'node:worker_threads';
import { solve, type RoutingProblem, type SolveOptions } from '@shiptrail/routing';

parentPort?.once('message', (msg: { problem: RoutingProblem; options?: SolveOptions }) => {
  try {
    parentPort!.postMessage({ plan: solve(msg.problem, msg.options) });
  } catch (err) {
    parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
});
