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

/**
 * Who takes PGlite's next turn in the database thread (decision 164). PGlite serves its callers in arrival order, so
 * a person's list queued behind every statement and transaction the job workers had sent before it: during a refresh
 * round that was the whole backlog. Here a statement or transaction marked urgent (sent while serving an HTTP request)
 * goes before background work that is still waiting; the turn in progress is never interrupted, and within each
 * class the order stays the arrival order. So that background work always moves, after `backgroundEvery` urgent turns
 * in a row a waiting background one goes first.
 */
export class TurnQueue {
  private held = false;
  private readonly urgent: Array<() => void> = [];
  private readonly background: Array<() => void> = [];
  private urgentInARow = 0;
  private readonly backgroundEvery: number;

  constructor(backgroundEvery = 4) {
    this.backgroundEvery = backgroundEvery;
  }

  /** Waits for the turn; call the function it gives once to hand the turn on. */
  take(urgent: boolean): Promise<() => void> {
    return new Promise((resolve) => {
      const grant = () => {
        this.held = true;
        this.urgentInARow = urgent ? this.urgentInARow + 1 : 0;
        let given = false;
        resolve(() => {
          if (given) return;
          given = true;
          this.next();
        });
      };
      if (this.held) (urgent ? this.urgent : this.background).push(grant);
      else grant();
    });
  }

  /** How many wait for the turn, by class (the bench reads it). */
  get waiting(): { urgent: number; background: number } {
    return { urgent: this.urgent.length, background: this.background.length };
  }

  private next(): void {
    this.held = false;
    const backgroundDue = this.background.length > 0 && (this.urgent.length === 0 || this.urgentInARow >= this.backgroundEvery);
    (backgroundDue ? this.background.shift() : this.urgent.shift())?.();
  }
}
