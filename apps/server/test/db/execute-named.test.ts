// executeNamed (decision 184): the answer of db.execute, and on PostgreSQL a statement prepared once per connection
// under a name made from its text, then only bound and executed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, onPostgres, type TestEnv } from '../helpers.ts';
import { executeNamed, rowsOf } from '../../src/db/client.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

const sum = (a: number, b: number) => sql`select ${a}::int + ${b}::int as n, ${`${a}+${b}`}::text as s`;

describe('executeNamed', () => {
  it('answers what execute answers, alone and in a transaction', async () => {
    expect(rowsOf(await executeNamed(env.ctx.db, sum(1, 2)))).toEqual(rowsOf(await env.ctx.db.execute(sum(1, 2))));
    expect(rowsOf(await executeNamed(env.ctx.db, sum(1, 2)))).toEqual([{ n: 3, s: '1+2' }]);
    const inTx = await env.ctx.db.transaction(async (tx) => rowsOf(await executeNamed(tx, sum(40, 2))));
    expect(inTx).toEqual([{ n: 42, s: '40+2' }]);
  });

  it.runIf(onPostgres)('on PostgreSQL prepares the statement once on its connection, named by its text', async () => {
    const prepared = await env.ctx.db.transaction(async (tx) => {
      // One connection for the transaction: both calls use it, and pg_prepared_statements lists that session's.
      expect(rowsOf(await executeNamed(tx, sum(1, 1)))).toEqual([{ n: 2, s: '1+1' }]);
      expect(rowsOf(await executeNamed(tx, sum(2, 2)))).toEqual([{ n: 4, s: '2+2' }]);
      return rowsOf<{ name: string; statement: string }>(
        await tx.execute(sql`select name, statement from pg_prepared_statements where statement like 'select $1::int + $2::int%'`),
      );
    });
    expect(prepared).toHaveLength(1);
    expect(prepared[0]!.name).toMatch(/^shiptrail_[0-9a-f]{20}$/);
  });
});
