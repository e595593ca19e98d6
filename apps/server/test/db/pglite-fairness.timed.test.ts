// The embedded database answers in this thread without I/O, so its promises settle as microtasks. While many
// callers keep it busy, a timer or a socket must still get its turn between two of them (db/client.ts): a user's
// request once waited 4 s behind a refresh batch. PGlite only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, onPostgres, type TestEnv } from '../helpers.ts';

describe.skipIf(onPostgres)('PGlite shares the event loop', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('timers run between transactions while 32 callers keep the database busy', async () => {
    // A 10 ms timer notes when it runs; the longest gap between two runs is how long the loop was held.
    let last = performance.now();
    let maxGapMs = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      maxGapMs = Math.max(maxGapMs, now - last);
      last = now;
    }, 10);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        for (let i = 0; i < 40; i++) {
          await env.ctx.db.transaction(async (tx) => {
            await tx.execute(sql`select count(*) from generate_series(1, 2000)`);
            await tx.execute(sql`select 1`);
          });
        }
      }),
    );
    const busyMs = performance.now() - started;
    // One more run of the timer after the burst, so a loop held for the whole burst is counted.
    await new Promise((r) => setTimeout(r, 30));
    clearInterval(tick);
    console.info(`pglite fairness: ${Math.round(busyMs)} ms of work, longest wait of a 10 ms timer ${Math.round(maxGapMs)} ms`);
    // The burst is long enough that a starved loop would show it (the gap is then the whole burst).
    expect(busyMs).toBeGreaterThan(600);
    expect(maxGapMs).toBeLessThan(Math.min(250, busyMs / 3));
  });
});
