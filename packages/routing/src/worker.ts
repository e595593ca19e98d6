// A worker_thread entry: post { problem, options } (dense Float64Array matrices only: functions do not cross
// threads) and receive { plan } or { error }. `new Worker(new URL('./worker.ts', import.meta.url))`.
import { parentPort } from 'node:worker_threads';
import { solve } from './solver.ts';
import type { RoutingProblem, SolveOptions } from './types.ts';

parentPort?.on('message', (msg: { problem: RoutingProblem; options?: SolveOptions }) => {
  try {
    parentPort!.postMessage({ plan: solve(msg.problem, msg.options) });
  } catch (err) {
    parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
});
