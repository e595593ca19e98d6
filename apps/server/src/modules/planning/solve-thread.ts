// Runs the route solver on a worker thread (decision 118): the request thread only builds the problem and
// stores the answer. A thread per plan (its start-up is small next to the solve), at most ROUTING_THREADS at
// once per process; the next few wait their turn and beyond that a plan is refused as busy (503).
import { Worker } from 'node:worker_threads';
import type { RoutingProblem, RoutingSolution, SolveOptions } from '@shiptrail/routing';
import { MSG } from '@shiptrail/contract';
import { unavailable } from '../../lib/errors.ts';

const MAX_WAITING = 8;
/** Beyond its own time limit, how long a solve may take before its thread is stopped. */
const GRACE_MS = 15_000;

let running = 0;
const waiting: (() => void)[] = [];

async function turn(threads: number): Promise<() => void> {
  if (running >= threads) {
    if (waiting.length >= MAX_WAITING) throw unavailable(MSG.planBusy);
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  return () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
}

export async function solveOffThread(problem: RoutingProblem, options: SolveOptions, threads: number): Promise<RoutingSolution> {
  const done = await turn(threads);
  try {
    return await new Promise<RoutingSolution>((resolve, reject) => {
      const worker = new Worker(new URL('./solve.worker.ts', import.meta.url));
      const timer = setTimeout(
        () => {
          void worker.terminate();
          reject(new Error('the route solver did not answer in time'));
        },
        (options.seconds ?? 1) * 1000 + GRACE_MS,
      );
      worker.once('message', (m: { plan?: RoutingSolution; error?: string }) => {
        clearTimeout(timer);
        void worker.terminate();
        if (m.plan) resolve(m.plan);
        else reject(new Error(`the route solver failed: ${m.error}`));
      });
      worker.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      worker.postMessage({ problem, options });
    });
  } finally {
    done();
  }
}
