// Two real server processes (src/main.ts, as `npm start` runs it, each with its API and its worker) on one
// PostgreSQL database, with charges fired at both while automatic recharge is on. PostgreSQL only: PGlite is
// one embedded database in one process. In the slow set: two server starts take most of the time.
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestEnv, eventually, onPostgres, type TestEnv } from '../helpers.ts';
import { Cluster } from '../scale/cluster.ts';
import { payments } from '../../src/db/schema.ts';
import { expectBalanceHolds, signUpWithAutoRecharge } from './fixtures.ts';

const cluster = new Cluster();
let env: TestEnv | undefined;

afterAll(async () => {
  await cluster.stopAll();
  await env?.close();
});

/** src/main.ts with both roles, as `npm start` runs it, on the test's database. */
const startServer = async (databaseUrl: string) =>
  (
    await cluster.start('all', {
      DATABASE_URL: databaseUrl,
      DATA_DIR: 'memory://',
      SESSION_SECRET: 'test-secret-test-secret-test-secret-0123',
    })
  ).url;

describe('automatic recharge with two server processes on PostgreSQL', () => {
  it.runIf(onPostgres)(
    'charges fired at both: balance == ledger sum, never negative, exactly one recharge',
    async () => {
      env = await createTestEnv();
      const a = await signUpWithAutoRecharge(env);
      const userId = a.userId;
      const urls = await Promise.all([startServer(env.ctx.config.DATABASE_URL!), startServer(env.ctx.config.DATABASE_URL!)]);

      // $10.00 at $0.05 an add: the 101st add takes the balance under $5 once; the $20 recharge then keeps it
      // above $5 for the rest (300 adds = $15), so exactly one recharge whichever process runs it.
      const N = 300;
      let next = 0;
      const codes: number[] = [];
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next < N) {
            const i = next++;
            const res = await fetch(`${urls[i % 2]}/v1/trackings/add`, {
              method: 'POST',
              headers: { 'sm-api-token': a.session, 'sm-http-status': 'real', 'content-type': 'application/json' },
              body: JSON.stringify({ tid: `PROC${String(i).padStart(6, '0')}`, courier: 'ups', title: null }),
            });
            codes.push(res.status);
          }
        }),
      );
      expect(codes.filter((c) => c !== 200 && c !== 201 && c !== 402)).toEqual([]);
      const added = codes.filter((c) => c === 200 || c === 201).length;
      const recharges = await eventually(async () => {
        const rows = await env!.ctx.db.select().from(payments).where(eq(payments.userId, userId));
        return rows.length > 0 && rows.every((p) => p.status === 'submitted_for_settlement') ? rows : null;
      }, 30_000);
      expect(recharges.map((p) => [p.kind, p.amountCents])).toEqual([['auto_recharge', 2000]]);
      await expectBalanceHolds(env, userId, 1000 - 5 * added + 2000);
    },
    240_000,
  );
});
