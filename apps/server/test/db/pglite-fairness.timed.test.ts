// The embedded database answers in this thread without I/O, so its promises settle as microtasks. While many
// callers keep it busy, a timer or a socket must still get its turn between two of them (db/client.ts): a user's
// request once waited 4 s behind a refresh batch. PGlite only.
//
// Measured by order, not by the clock, so a busy machine cannot fail it (decision 106): a timer that re-arms
// itself notes how many transactions committed since it last ran. With a turn of the event loop before each
// transaction it runs again and again through the burst, a few dozen transactions apart at most (one turn
// each for the 32 callers); with none it runs once, after all 384. How long it waited is the bench's figure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, onPostgres, type TestEnv } from '../helpers.ts';

describe.skipIf(onPostgres)('PGlite shares the event loop', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('timers run between transactions while 32 callers keep the database busy', { timeout: 120_000 }, async () => {
    const CALLERS = 32;
    const EACH = 12;
    let committed = 0;
    let runsDuringBurst = 0;
    let mostBetweenRuns = 0;
    let atLastRun = 0;
    let burst = true;
    let longestGapMs = 0;
    let lastAt = performance.now();
    const tick = () => {
      if (!burst) return;
      const now = performance.now();
      longestGapMs = Math.max(longestGapMs, now - lastAt);
      lastAt = now;
      runsDuringBurst++;
      mostBetweenRuns = Math.max(mostBetweenRuns, committed - atLastRun);
      atLastRun = committed;
      setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        for (let i = 0; i < EACH; i++) {
          await env.ctx.db.transaction(async (tx) => {
            await tx.execute(sql`select count(*) from generate_series(1, 500)`);
            await tx.execute(sql`select 1`);
          });
          committed++;
        }
      }),
    );
    burst = false;
    // A timer held off for the whole burst would show here: everything committed since its last run.
    mostBetweenRuns = Math.max(mostBetweenRuns, committed - atLastRun);
    console.info(
      `pglite fairness: ${committed} transactions; a 0 ms timer ran ${runsDuringBurst} times during them, at most ${mostBetweenRuns} transactions apart (longest wait ${Math.round(longestGapMs)} ms)`,
    );
    expect(committed).toBe(CALLERS * EACH);
    // One turn of the loop lets each caller commit at most one transaction; four turns' worth is the margin.
    expect(mostBetweenRuns).toBeLessThanOrEqual(4 * CALLERS);
    expect(runsDuringBurst).toBeGreaterThanOrEqual(EACH / 4);
  });
});
