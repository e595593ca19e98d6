import type { FastifyBaseLogger } from 'fastify';
import { withLogContext } from './log-context.ts';

/**
 * A worker's background loop: `round` every `tickMs`, never two rounds at once (a slow round skips ticks), each
 * round's log lines tagged with `name`, a failed round logged and the loop going on. `stop` waits for the round
 * in progress.
 */
export function startTickLoop(log: FastifyBaseLogger, name: string, tickMs: number, round: () => Promise<unknown>): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = withLogContext({ queue: name }, round)
      .catch((err: unknown) => log.error({ err }, `${name} round failed`))
      .finally(() => {
        running = null;
      });
  }, tickMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
