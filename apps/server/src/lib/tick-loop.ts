import type { FastifyBaseLogger } from 'fastify';
import { withLogContext } from './log-context.ts';

export interface TickLoop {
  /** Run a round now: at once when idle, else right after the round in progress (wakes meanwhile make one round). */
  wake(): void;
  /** Stop ticking and wait for the round in progress. */
  stop(): Promise<void>;
}

/**
 * A worker's background loop: `round` every `tickMs` and on `wake`, never two rounds at once (a slow round skips
 * ticks), each round's log lines tagged with `name`, a failed round logged and the loop going on.
 */
export function startTickLoop(log: FastifyBaseLogger, name: string, tickMs: number, round: () => Promise<unknown>): TickLoop {
  let running: Promise<unknown> | null = null;
  let again = false;
  let stopped = false;
  const run = () => {
    if (stopped) return;
    running = withLogContext({ queue: name }, round)
      .catch((err: unknown) => log.error({ err }, `${name} round failed`))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const timer = setInterval(() => {
    if (!running) run();
  }, tickMs);
  timer.unref();
  return {
    wake() {
      if (running) again = true;
      else run();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      // A wake may chain one more round after the one awaited; `stopped` keeps it from starting.
      await running;
    },
  };
}
