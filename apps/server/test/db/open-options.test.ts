// The PGlite options a caller passes reach PGlite, also for an in-memory database: the tests' migrated
// template (`loadDataDir`) was silently ignored once, and every test file ran initdb and every migration.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { openDatabase, rowsOf } from '../../src/db/client.ts';
import { loadConfig } from '../../src/config.ts';
import { pgliteBinaries } from '../helpers.ts';

// One database made by initdb for the whole file (an initdb is seconds of CPU): its dump is the caller's dump of the
// tests below. The compiled WebAssembly is the tests' own, so it is not compiled again.
let sourceDump: Promise<File | Blob> | undefined;
function callersDump(): Promise<File | Blob> {
  sourceDump ??= (async () => {
    const source = await PGlite.create(await pgliteBinaries());
    await source.exec(`create table from_the_dump (note text); insert into from_the_dump values ('kept')`);
    const dump = await source.dumpDataDir('none');
    await source.close();
    return dump;
  })();
  return sourceDump;
}

it('an in-memory database starts from the dump it is given', async () => {
  const database = await openDatabase({ dataDir: 'memory://', pglite: { loadDataDir: await callersDump() } });
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

// Decision 144: PostgreSQL touches all of its shared buffers at start, so PGlite's default (128 MB) was resident
// from the first second. The configured size reaches PGlite in its own thread (a data directory) and in this one
// (memory://), on top of the options a caller passes (the template dump above).
it.each(['worker', 'main'] as const)(
  'the embedded database runs with the configured shared buffers (%s thread)',
  async (thread) => {
    const dir = thread === 'worker' ? mkdtempSync(path.join(tmpdir(), 'st-buffers-')) : 'memory://';
    const database = await openDatabase({
      dataDir: dir,
      pgliteThread: thread,
      sharedBuffersMb: 24,
      pglite: thread === 'main' ? { loadDataDir: await callersDump() } : undefined,
    });
    try {
      expect(rowsOf<{ shared_buffers: string }>(await database.db.execute(sql`show shared_buffers`))).toEqual([{ shared_buffers: '24MB' }]);
      // PGlite's own start parameters are kept (one of them: no parallel workers in WebAssembly).
      expect(rowsOf<{ max_worker_processes: string }>(await database.db.execute(sql`show max_worker_processes`))).toEqual([
        { max_worker_processes: '0' },
      ]);
    } finally {
      await database.close();
      if (dir !== 'memory://') rmSync(dir, { recursive: true, force: true });
    }
  },
  60_000,
);

it('the server asks for 16 MB of shared buffers unless told otherwise (decision 159; 32 in decision 144)', () => {
  expect(loadConfig({ DATA_DIR: 'memory://' } as NodeJS.ProcessEnv).PGLITE_SHARED_BUFFERS_MB).toBe(16);
  expect(loadConfig({ DATA_DIR: 'memory://', PGLITE_SHARED_BUFFERS_MB: '96' } as NodeJS.ProcessEnv).PGLITE_SHARED_BUFFERS_MB).toBe(96);
});

// Decision 144: PGlite's initdb, which makes a new data directory, left about 350 MB of WebAssembly memory in the
// database thread for the life of the process (856 MB resident on the first start, 419 MB on every later one). A
// new directory is opened once, closed and opened again: the first start holds what a later one holds.
it('the first start on a new data directory holds no more than a later start on it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'st-initdb-'));
  const external = async () => {
    const database = await openDatabase({ dataDir: dir, pgliteThread: 'worker', sharedBuffersMb: 16 });
    try {
      expect(rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from users`))).toEqual([{ n: 0 }]);
      return (await database.thread!.heapStatistics()).external_memory;
    } finally {
      await database.close();
    }
  };
  try {
    const first = await external();
    const later = await external();
    expect(first).toBeLessThanOrEqual(later * 1.25);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
