import type { PGlite } from '@electric-sql/pglite';

/**
 * PGlite answers without I/O, so a query's promise settles as a microtask: while many callers keep it busy the
 * microtask queue never empties, and timers and messages wait for the whole burst (decision 092). Every top-level
 * query or transaction takes PGlite's turn through `_runExclusiveTransaction`; waiting one macrotask (setImmediate)
 * before it lets the event loop serve I/O between turns. Statements inside a transaction still run back to back.
 * Used on the in-thread PGlite (tests) and in the database thread (decision 115), where it lets the thread take in
 * new requests between two turns so they queue in arrival order. If a PGlite release renames that method this does
 * nothing, and test/db/pglite-fairness.timed.test.ts fails.
 */
export function yieldBeforeEachTurn(pglite: PGlite): void {
  const target = pglite as unknown as { _runExclusiveTransaction?: <T>(fn: () => Promise<T>) => Promise<T> };
  const take = target._runExclusiveTransaction;
  if (typeof take !== 'function') return;
  target._runExclusiveTransaction = async <T>(fn: () => Promise<T>): Promise<T> => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return take.call(pglite, fn) as Promise<T>;
  };
}
