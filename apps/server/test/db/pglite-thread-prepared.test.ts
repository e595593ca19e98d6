// The database thread prepares each statement with parameters once and then only binds and executes it (decision 148):
// the answers, types and errors are PGlite's own, in and out of transactions, and a table changed under a prepared
// statement costs one error, not a broken statement.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase, rowsOf, type Database } from '../../src/db/client.ts';
import { isUniqueViolation } from '../../src/db/errors.ts';
import { onPostgres } from '../helpers.ts';

describe.skipIf(onPostgres)('prepared statements in the database thread', () => {
  let dir: string;
  let database: Database;
  const prepared = async () => (await database.thread!.stats()).prepared;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'shiptrail-prepared-'));
    const template = inject('pgliteTemplate');
    const loadDataDir = template ? new Blob([await readFile(template)]) : undefined;
    database = await openDatabase({ dataDir: dir, pgliteThread: 'worker', pglite: loadDataDir ? { loadDataDir } : undefined });
    await database.db.execute(sql`create table prepared_probe (id int primary key, note text, at timestamptz, n numeric)`);
  }, 120_000);
  afterAll(async () => {
    await database?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('prepares a statement once and answers it with the same rows and types every time', async () => {
    const before = await prepared();
    const at = new Date('2026-03-01T09:00:00Z');
    for (const id of [1, 2, 3])
      await database.db.execute(sql`insert into prepared_probe (id, note, at, n) values (${id}, ${`note ${id}`}, ${at}, ${'1.5'})`);
    expect(await prepared()).toBe(before + 1);
    const read = (id: number) =>
      database.db.execute(sql`select id, note, at, n, ${id}::int + 1 as next from prepared_probe where id = ${id}`);
    // PGlite's own answer (a statement without parameters is not prepared) is the measure.
    const plain = rowsOf<Record<string, unknown>>(
      await database.db.execute(sql.raw(`select id, note, at, n, 1 + 1 as next from prepared_probe where id = 1`)),
    );
    expect(plain).toEqual([{ id: 1, note: 'note 1', at: '2026-03-01 09:00:00+00', n: '1.5', next: 2 }]);
    expect(rowsOf(await read(1))).toEqual(plain);
    expect(rowsOf(await read(3))).toEqual([{ ...plain[0], id: 3, note: 'note 3', next: 4 }]);
    expect(rowsOf(await read(9))).toEqual([]);
    expect(await prepared()).toBe(before + 2);
  });

  it('keeps PostgreSQL errors as they were, and a transaction with prepared statements commits or rolls back whole', async () => {
    const dup = await database.db
      .execute(sql`insert into prepared_probe (id, note) values (${1}, ${'again'})`)
      .catch((e: unknown) => e as { cause?: { code?: string } });
    expect(isUniqueViolation(dup, 'prepared_probe_pkey')).toBe(true);
    // The same statement, now prepared, fails the same way.
    const dup2 = await database.db.execute(sql`insert into prepared_probe (id, note) values (${2}, ${'again'})`).catch((e: unknown) => e);
    expect(isUniqueViolation(dup2, 'prepared_probe_pkey')).toBe(true);
    const bad = await database.db.execute(sql`select ${1}::int / ${0}::int`).catch((e: { cause?: { code?: string } }) => e.cause?.code);
    expect(bad).toBe('22012');

    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into prepared_probe (id, note) values (${10}, ${'in a transaction'})`);
      await tx.execute(sql`update prepared_probe set note = ${'changed'} where id = ${10}`);
    });
    await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into prepared_probe (id, note) values (${11}, ${'rolled back'})`);
        await tx.execute(sql`insert into prepared_probe (id, note) values (${1}, ${'a duplicate'})`);
      })
      .catch(() => {});
    const rows = rowsOf<{ id: number; note: string }>(
      await database.db.execute(sql`select id, note from prepared_probe where id >= ${10} order by id`),
    );
    expect(rows).toEqual([{ id: 10, note: 'changed' }]);
  });

  it('a table changed under a prepared statement: on its own the call is prepared again and answers; in a transaction it fails once', async () => {
    const star = () => database.db.execute(sql`select * from prepared_probe where id = ${1}`);
    expect(Object.keys(rowsOf(await star())[0]!)).toEqual(['id', 'note', 'at', 'n']);
    await database.db.execute(sql`alter table prepared_probe add column extra text default 'x'`);
    // On its own: PostgreSQL refuses the cached plan (0A000) and the statement is prepared again, in the same call.
    expect(Object.keys(rowsOf(await star())[0]!)).toEqual(['id', 'note', 'at', 'n', 'extra']);
    await database.db.execute(sql`alter table prepared_probe drop column extra`);
    // In a transaction the refusal ends the transaction: it fails, and the next call is prepared again.
    const inTx = await database.db
      .transaction(async (tx) => rowsOf(await tx.execute(sql`select * from prepared_probe where id = ${1}`)))
      .then(
        (r) => r,
        (e: { cause?: { code?: string } }) => e.cause?.code,
      );
    if (Array.isArray(inTx)) expect(Object.keys(inTx[0]!)).toEqual(['id', 'note', 'at', 'n']);
    else expect(inTx).toBe('0A000');
    expect(Object.keys(rowsOf(await star())[0]!)).toEqual(['id', 'note', 'at', 'n']);
  });
});
