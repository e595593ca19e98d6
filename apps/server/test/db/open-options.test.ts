// The PGlite options a caller passes reach PGlite, also for an in-memory database: the tests' migrated
// template (`loadDataDir`) was silently ignored once, and every test file ran initdb and every migration.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { openDatabase, rowsOf } from '../../src/db/client.ts';
import { loadConfig } from '../../src/config.ts';
import { openConfiguredDatabase } from '../../src/db/open.ts';
import pino from 'pino';
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
      statisticsTarget: 20,
      pglite: thread === 'main' ? { loadDataDir: await callersDump() } : undefined,
    });
    try {
      expect(rowsOf<{ shared_buffers: string }>(await database.db.execute(sql`show shared_buffers`))).toEqual([{ shared_buffers: '24MB' }]);
      // And the statistics target (decision 172).
      expect(rowsOf<{ default_statistics_target: string }>(await database.db.execute(sql`show default_statistics_target`))).toEqual([
        { default_statistics_target: '20' },
      ]);
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

// The server's own open (db/open.ts, which main.ts starts before the application loads, decision 176) passes the
// configured settings through: a setting added to the configuration and to openDatabase but not to it would be lost.
it("the server's configured open applies the configured buffers and statistics target", async () => {
  const config = loadConfig({ DATA_DIR: 'memory://', PGLITE_SHARED_BUFFERS_MB: '24', PGLITE_STATISTICS_TARGET: '30' } as NodeJS.ProcessEnv);
  const database = await openConfiguredDatabase(config, pino({ level: 'silent' }), { loadDataDir: await callersDump() });
  try {
    const show = async (name: string) =>
      Object.values(rowsOf<Record<string, string>>(await database.db.execute(sql.raw(`show ${name}`)))[0]!)[0];
    expect([await show('shared_buffers'), await show('default_statistics_target')]).toEqual(['24MB', '30']);
  } finally {
    await database.close();
  }
}, 60_000);

it('the server asks for 16 MB of shared buffers unless told otherwise (decision 159; 32 in decision 144)', () => {
  expect(loadConfig({ DATA_DIR: 'memory://' } as NodeJS.ProcessEnv).PGLITE_SHARED_BUFFERS_MB).toBe(16);
  expect(loadConfig({ DATA_DIR: 'memory://', PGLITE_SHARED_BUFFERS_MB: '96' } as NodeJS.ProcessEnv).PGLITE_SHARED_BUFFERS_MB).toBe(96);
});

it('the server asks for a statistics target of 25 unless told otherwise (decision 172)', () => {
  expect(loadConfig({ DATA_DIR: 'memory://' } as NodeJS.ProcessEnv).PGLITE_STATISTICS_TARGET).toBe(25);
  expect(loadConfig({ DATA_DIR: 'memory://', PGLITE_STATISTICS_TARGET: '100' } as NodeJS.ProcessEnv).PGLITE_STATISTICS_TARGET).toBe(100);
  expect(() => loadConfig({ DATA_DIR: 'memory://', PGLITE_STATISTICS_TARGET: '0' } as NodeJS.ProcessEnv)).toThrow();
});

/** MB resident of the mappings as large as PGlite's WebAssembly memory (/proc/self/smaps; Linux only). */
function wasmResidentMb(wasmBytes: number): number {
  let kb = 0;
  let inWasm = false;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (head) {
      inWasm = parseInt(head[2]!, 16) - parseInt(head[1]!, 16) === wasmBytes;
      continue;
    }
    const rss = inWasm && /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) kb += Number(rss[1]);
  }
  return kb / 1024;
}

// Decision 172: the embedded vacuum loop's ANALYZE reads a sample of 300 rows per unit of the statistics target into
// PGlite's WebAssembly memory, which is never given back: at PostgreSQL's 100, 30,000 rows of a checkpoints-like table
// left about 10 MB more resident for the life of the process (the soak's "growth" in its first minutes). At the
// server's 25, about 2.
it.runIf(process.platform === 'linux')("an ANALYZE of a large table leaves little of PGlite's WebAssembly memory resident", async () => {
  const database = await openDatabase({
    dataDir: 'memory://',
    pgliteThread: 'main',
    statisticsTarget: loadConfig({ DATA_DIR: 'memory://' } as NodeJS.ProcessEnv).PGLITE_STATISTICS_TARGET,
    pglite: { loadDataDir: await callersDump(), ...(await pgliteBinaries()) },
  });
  try {
    const pglite = database.pglite as unknown as { exec(q: string): Promise<unknown>; mod: { HEAPU8: Uint8Array } };
    await pglite.exec(`create table analyze_probe (id bigserial primary key, tracking_id uuid not null, status text not null,
        location text, message text not null, time timestamptz not null, fingerprint text not null);
        insert into analyze_probe (tracking_id, status, location, message, time, fingerprint)
        select md5((g / 5)::text)::uuid, 'InTransit', 'LOUISVILLE, KY, US', 'Departed from Facility ' || g,
          now() - g * interval '1 minute', md5(g::text) from generate_series(1, 50000) g`);
    const before = wasmResidentMb(pglite.mod.HEAPU8.buffer.byteLength);
    await pglite.exec('analyze analyze_probe');
    const after = wasmResidentMb(pglite.mod.HEAPU8.buffer.byteLength);
    expect(before).toBeGreaterThan(0);
    expect(after - before).toBeLessThan(5);
  } finally {
    await database.close();
  }
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
