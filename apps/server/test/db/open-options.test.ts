// The PGlite options a caller passes reach PGlite, also for an in-memory database: the tests' migrated
// template (`loadDataDir`) was silently ignored once, and every test file ran initdb and every migration.
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { openDatabase, rowsOf } from '../../src/db/client.ts';

it('an in-memory database starts from the dump it is given', async () => {
  const source = await PGlite.create();
  await source.exec(`create table from_the_dump (note text); insert into from_the_dump values ('kept')`);
  const dump = await source.dumpDataDir('none');
  await source.close();

  const database = await openDatabase({ dataDir: 'memory://', pglite: { loadDataDir: dump } });
  try {
    const rows = rowsOf<{ note: string }>(await database.db.execute(sql`select note from from_the_dump`));
    expect(rows).toEqual([{ note: 'kept' }]);
    // The migrations ran on top of it as on any database.
    const users = rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from users`));
    expect(users).toEqual([{ n: 0 }]);
  } finally {
    await database.close();
  }
}, 60_000);
