// The test envs' pool of PGlite instances (decision 186): a reused database is equal to a fresh copy of the template,
// an instance whose schema a test changed, that a test closed or left in a transaction is never reused, and a finished
// env cannot reach the database the next one got.
import { readFile } from 'node:fs/promises';
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { createTestEnv, eventually, onPostgres, pgliteBinaries, signUp, call, template, type TestEnv } from '../helpers.ts';
import { fingerprint, instanceOf, PglitePool } from '../pglite-pool.ts';

/** A new in-memory PGlite loaded from the template, as every test env had before the pool. */
async function freshCopy(): Promise<Database> {
  const dump = await readFile(template('pgliteTemplate'));
  return openDatabase({
    dataDir: 'memory://',
    pglite: { loadDataDir: new Blob([dump]), ...(await pgliteBinaries()) },
    pgliteThread: 'main',
  });
}

/**
 * What one database holds that a test could see: every table's row count and rows, every sequence's value, the
 * catalog's fingerprint, the session's LISTENs, advisory locks and changed settings, and planner statistics.
 */
async function stateOf(pglite: PGlite) {
  const user = `c.relnamespace in (select oid from pg_namespace
    where nspname not in ('pg_catalog', 'information_schema') and nspname not like 'pg\\_toast%' and nspname not like 'pg\\_temp%')`;
  const tables = (
    await pglite.query<{ name: string }>(
      `select c.oid::regclass::text as name from pg_class c where c.relkind = 'r' and ${user} order by 1`,
    )
  ).rows;
  const rows: Record<string, { count: number; digest: string }> = {};
  for (const { name } of tables) {
    const r = await pglite.query<{ count: number; digest: string }>(
      `select count(*)::int as count, md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as digest from ${name} t`,
    );
    rows[name] = r.rows[0]!;
  }
  const sequences: Record<string, string> = {};
  const seqs = (
    await pglite.query<{ name: string }>(
      `select c.oid::regclass::text as name from pg_class c where c.relkind = 'S' and ${user} order by 1`,
    )
  ).rows;
  for (const { name } of seqs) {
    const r = await pglite.query<{ v: string }>(`select last_value::text || ' ' || is_called::text as v from ${name}`);
    sequences[name] = r.rows[0]!.v;
  }
  const one = async (q: string) => (await pglite.query<{ v: unknown }>(q)).rows[0]!.v;
  return {
    rows,
    sequences,
    fingerprint: await fingerprint(pglite),
    listening: await one(`select coalesce(string_agg(c, ','), '') as v from pg_listening_channels() c`),
    advisoryLocks: await one(`select count(*)::int as v from pg_locks where locktype = 'advisory'`),
    settings: await one(
      `select coalesce(string_agg(name || '=' || setting, ',' order by name), '') as v from pg_settings where source = 'session'`,
    ),
    statistics: await one(`select count(*)::int as v from pg_statistic s join pg_class c on c.oid = s.starelid where ${user}`),
    // What the planner reads of a table's size (relation sizes, the row estimate an ANALYZE left).
    sizes: await one(
      `select md5(string_agg(c.oid::regclass::text || ' ' || c.relpages || ' ' || c.reltuples || ' ' || c.relallvisible, ',' order by c.oid::regclass::text)) as v
       from pg_class c where c.relkind in ('r', 'i') and ${user}`,
    ),
  };
}

/**
 * A use that leaves behind what a reset must undo: rows in several tables, every sequence advanced, a LISTEN (on the
 * server and in JavaScript), a session advisory lock, a session setting, a prepared statement and planner statistics.
 */
async function useRaw(pglite: PGlite, heard: string[]) {
  await pglite.query(`select pgboss.create_queue('pool-test', '{"policy": "standard"}'::jsonb)`);
  await pglite.query(`insert into pgboss.job (name, data) values ('pool-test', '{}'::jsonb)`);
  const seqs = (await pglite.query<{ name: string }>(`select c.oid::regclass::text as name from pg_class c where c.relkind = 'S'`)).rows;
  for (const { name } of seqs) await pglite.query(`select nextval('${name}')`);
  await pglite.listen('pool_test', (payload) => heard.push(payload));
  await pglite.exec(
    `listen pool_test_sql; select pg_advisory_lock(4242); set statement_timeout = 12345; prepare pool_p as select 1; analyze`,
  );
}

// No pool on PostgreSQL. The pool is off by default (decision 186): this file turns it on for its own envs and puts
// the setting back after (the files of a worker process run one after another).
describe.skipIf(onPostgres)('the test envs’ PGlite pool', () => {
  let fresh: Database;
  let freshState: Awaited<ReturnType<typeof stateOf>>;
  const before = process.env.TEST_PGLITE_POOL;
  beforeAll(async () => {
    process.env.TEST_PGLITE_POOL = 'on';
    fresh = await freshCopy();
    freshState = await stateOf(fresh.pglite!);
  });
  afterAll(async () => {
    if (before === undefined) delete process.env.TEST_PGLITE_POOL;
    else process.env.TEST_PGLITE_POOL = before;
    await fresh?.close();
  });

  it('a reused database equals a fresh copy of the template after a use that wrote, advanced, listened and locked', async () => {
    const first = await createTestEnv();
    const raw = instanceOf(first.ctx.database.pglite!)!;
    expect(raw).toBeDefined();
    const heard: string[] = [];
    const user = await signUp(first.app);
    const created = await call(first.app, 'POST', '/v1/trackings/add', {
      token: user.apiKey,
      body: { tid: '9400111899223197428490', courier: 'USPS' },
    });
    expect(created.statusCode).toBe(201);
    // A pg-boss job left waiting in an app queue, plus the raw use above.
    const [queue] = (await raw.query<{ name: string }>(`select name from pgboss.queue order by name limit 1`)).rows;
    await first.ctx.queue.send(queue!.name, {}, { startAfter: 3600 });
    await useRaw(first.ctx.database.pglite!, heard);
    const used = await stateOf(raw);
    // The use changed each part the comparison reads, so the comparison below can fail.
    expect(used.rows).not.toEqual(freshState.rows);
    expect(used.sequences).not.toEqual(freshState.sequences);
    expect(used.listening).not.toEqual(freshState.listening);
    expect(used.advisoryLocks).not.toEqual(freshState.advisoryLocks);
    expect(used.settings).not.toEqual(freshState.settings);
    expect(used.statistics).not.toEqual(freshState.statistics);
    expect(used.sizes).not.toEqual(freshState.sizes);
    expect(Object.values(used.rows).filter((r, i) => r.count !== Object.values(freshState.rows)[i]!.count).length).toBeGreaterThan(3);

    await first.close();
    expect(await stateOf(raw)).toEqual(freshState);

    // The next env gets that same instance; the finished env can no longer reach it, nor hear its notifications.
    const second = await createTestEnv();
    try {
      expect(instanceOf(second.ctx.database.pglite!)).toBe(raw);
      await expect(first.ctx.database.pglite!.query('select 1')).rejects.toThrow('PGlite is closed');
      // Drizzle names the query and keeps PGlite's error as the cause.
      await expect(first.ctx.db.execute('select 1')).rejects.toMatchObject({ cause: { message: 'PGlite is closed' } });
      expect(first.ctx.database.pglite!.closed).toBe(true);
      await second.ctx.database.pglite!.exec(`notify pool_test, 'for the second env'`);
      await new Promise((r) => setTimeout(r, 50));
      expect(heard).toEqual([]);
      // And the app works on it: a sign-up from scratch.
      await signUp(second.app);
    } finally {
      await second.close();
    }
  });

  it('without the reset, the same use leaves a state the comparison tells apart from a fresh copy', async () => {
    const pool = new PglitePool(() => freshCopy(), { reset: false });
    try {
      const first = await pool.take();
      const raw = instanceOf(first.pglite!)!;
      await useRaw(first.pglite!, []);
      await first.close();
      const again = await pool.take();
      expect(instanceOf(again.pglite!)).toBe(raw);
      expect(pool.counts).toMatchObject({ opened: 1, reused: 1 });
      const state = await stateOf(raw);
      expect(state.rows).not.toEqual(freshState.rows);
      expect(state.sequences).not.toEqual(freshState.sequences);
      expect(state.advisoryLocks).not.toEqual(freshState.advisoryLocks);
      await again.close();
    } finally {
      await pool.drain();
    }
  });

  async function notReusedAfter(harm: (env: TestEnv) => Promise<unknown>) {
    const env = await createTestEnv();
    const raw = instanceOf(env.ctx.database.pglite!)!;
    await harm(env);
    await env.close();
    const next = await createTestEnv();
    try {
      expect(instanceOf(next.ctx.database.pglite!)).not.toBe(raw);
      await eventually(async () => raw.closed, 10_000, 20);
      // The one it got is a clean copy.
      expect(await fingerprint(next.ctx.database.pglite!)).toBe(freshState.fingerprint);
    } finally {
      await next.close();
    }
  }

  it('an instance where a test created a table is closed, not reused', async () => {
    await notReusedAfter((env) => env.ctx.database.pglite!.exec('create table pool_x (id int)'));
  });

  it('an instance where a test added a column is closed, not reused', async () => {
    await notReusedAfter((env) => env.ctx.database.pglite!.exec('alter table users add column pool_y int'));
  });

  it('an instance where a test created a function is closed, not reused', async () => {
    await notReusedAfter((env) => env.ctx.database.pglite!.exec(`create function pool_f() returns int language sql as 'select 1'`));
  });

  it('an instance where a test made a partitioned pg-boss queue (a table of its own) is closed, not reused', async () => {
    // The app's queues are rows only (pg-boss's partition option is off), so the template does not hold them; a
    // queue of its own table is a schema change like any other.
    await notReusedAfter((env) =>
      env.ctx.database.pglite!.query(`select pgboss.create_queue('pool-partitioned', '{"policy": "standard", "partition": true}'::jsonb)`),
    );
  });

  it('an instance a test closed is not reused', async () => {
    // The queue stopped first: it would log that its database is gone.
    await notReusedAfter(async (env) => {
      await env.ctx.queue.stop({ graceful: true, timeout: 5000 });
      await env.ctx.database.pglite!.close();
    });
  });

  it('an instance a test left in a transaction is closed, not reused', async () => {
    await notReusedAfter((env) => env.ctx.database.pglite!.exec('begin; select 1'));
  });
});
