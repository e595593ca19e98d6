// executeNamed (decision 184): the answer of db.execute, and on PostgreSQL a statement prepared once per connection
// under a name made from its text, then only bound and executed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, onPostgres, type TestEnv } from '../helpers.ts';
import { executeNamed, rowsOf, StatementOnce } from '../../src/db/client.ts';

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

describe('StatementOnce (decision 187)', () => {
  const counted = () => {
    let builds = 0;
    const statement = new StatementOnce<{ a: number; b: number; s: string }>(() => {
      builds++;
      return sql`select ${sql.placeholder('a')}::int + ${sql.placeholder('b')}::int as n, ${sql.placeholder('s')}::text as s, ${7}::int as k`;
    });
    return { statement, builds: () => builds };
  };

  it('builds its text once and binds each call its values, alone and in a transaction', async () => {
    const { statement, builds } = counted();
    expect(builds()).toBe(0);
    expect(rowsOf(await statement.execute(env.ctx.db, { a: 1, b: 2, s: '1+2' }))).toEqual([{ n: 3, s: '1+2', k: 7 }]);
    expect(rowsOf(await statement.execute(env.ctx.db, { a: 5, b: 6, s: '5+6' }))).toEqual([{ n: 11, s: '5+6', k: 7 }]);
    const inTx = await env.ctx.db.transaction(async (tx) => rowsOf(await statement.execute(tx, { a: 40, b: 2, s: '40+2' })));
    expect(inTx).toEqual([{ n: 42, s: '40+2', k: 7 }]);
    // Concurrent calls on one prepared query each get their own values.
    const many = await Promise.all(
      [1, 2, 3, 4, 5].map(async (i) => rowsOf<{ n: number }>(await statement.execute(env.ctx.db, { a: i, b: i, s: '' }))[0]!.n),
    );
    expect(many).toEqual([2, 4, 6, 8, 10]);
    expect(builds()).toBe(1);
  });

  it('a value left out is an error, not a null', async () => {
    const { statement } = counted();
    await expect(statement.execute(env.ctx.db, { a: 1, b: 2 } as never)).rejects.toThrow(/placeholder "s"/);
  });

  it('sends the text executeNamed sends for the same statement, under the same name', async () => {
    const { statement } = counted();
    const q = statement.query(env.ctx.db);
    const direct = (env.ctx.db as unknown as { dialect: { sqlToQuery(q: unknown): { sql: string } } }).dialect.sqlToQuery(
      sql`select ${1}::int + ${2}::int as n, ${'x'}::text as s, ${7}::int as k`,
    );
    expect(q.sql).toBe(direct.sql);
    expect(q.name).toMatch(/^shiptrail_[0-9a-f]{20}$/);
  });

  it.runIf(onPostgres)('on PostgreSQL is prepared once on its connection', async () => {
    const { statement } = counted();
    const prepared = await env.ctx.db.transaction(async (tx) => {
      await statement.execute(tx, { a: 1, b: 1, s: '' });
      await statement.execute(tx, { a: 2, b: 2, s: '' });
      return rowsOf<{ name: string }>(
        await tx.execute(sql`select name from pg_prepared_statements where statement = ${statement.query(tx).sql}`),
      );
    });
    expect(prepared).toHaveLength(1);
    expect(prepared[0]!.name).toBe(statement.query(env.ctx.db).name);
  });
});
