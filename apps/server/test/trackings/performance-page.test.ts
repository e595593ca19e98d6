// The Delivery performance page asks its four statements at once (decision 147): on PostgreSQL each runs on a
// connection of its own, so the page takes about its slowest statement, not their sum. Proved without timing: while
// another transaction holds `trackings` locked, the statements that read it (transit, stalled) both wait at the same
// time; one after the other, only the first of them would ever be waiting. PostgreSQL only (TEST_DATABASE_URL): on
// PGlite the statements queue in the database thread whatever the code does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import type { Db } from '../../src/db/client.ts';
import { findUserById } from '../../src/modules/accounts/accounts.repository.ts';
import { performance } from '../../src/modules/trackings/performance.ts';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { userIdOf } from './fixtures.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

let env: TestEnv;
beforeAll(async () => {
  if (onPostgres) env = await createTestEnv();
});
afterAll(async () => {
  if (onPostgres) await env.close();
});

describe.skipIf(!onPostgres)('the Delivery performance page on PostgreSQL', () => {
  it('runs its statements at once: two wait together on a locked trackings table, then the page answers', async () => {
    const a = await signUp(env.app);
    const user = (await findUserById(env.ctx.db, await userIdOf(env, a.email)))!;
    const locker = new pg.Client({ connectionString: env.ctx.database.url });
    await locker.connect();
    // The page on a pool of its own, named: the server's own loops also wait on the locked table, each holding a
    // connection of the server's pool, and would leave the page fewer than it asks for.
    const pool = new pg.Pool({ connectionString: env.ctx.database.url, max: 4, application_name: 'performance-page-test' });
    const ctx = { ...env.ctx, db: drizzle(pool) as unknown as Db };
    try {
      await locker.query('begin');
      await locker.query('lock table trackings in access exclusive mode');
      const page = performance(ctx, user, { days: 90, stalledDays: 3, format: 'json' });
      // Poll until the page's two statements that read trackings (transit and stalled) wait together, told apart from
      // the server's own work by the pool's application name (a statement waiting for its lock while being parsed
      // shows no query text yet). One after the other never gets there: the loop gives up after 20 s (a generous
      // bound, not a measured duration) and the lock is released.
      let waiting = 0;
      const giveUp = Date.now() + 20_000;
      while (waiting < 2 && Date.now() < giveUp) {
        await new Promise((r) => setTimeout(r, 50));
        const r = await locker.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()
             and application_name = 'performance-page-test'`,
        );
        waiting = r.rows[0]!.n;
      }
      expect(waiting).toBe(2);
      await locker.query('commit');
      const p = await page;
      expect([p.days, p.delivered, p.exceptions.count, p.stalled.count, p.couriers]).toEqual([90, 0, 0, 0, []]);
    } finally {
      await locker.query('rollback').catch(() => {});
      await locker.end();
      await pool.end();
    }
  });
});
