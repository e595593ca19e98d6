// Backups of the embedded database (PGlite in DATA_DIR). A running server gives one on its admin port (GET /backup:
// a gzipped tar of the data directory taken between two statements, crash-consistent like a kill -9, decision 112);
// a stopped one is read from its folder. A restore writes a backup into an empty DATA_DIR. PostgreSQL deployments
// use pg_dump and pg_restore (docs/operations.md).
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/** The folder PGlite keeps its files in under DATA_DIR (as openDatabase lays it out). */
export const pgliteDirOf = (dataDir: string) => path.join(dataDir, 'pglite');

/** A gzipped tar of a live PGlite's data directory, taken while no statement runs. */
export async function dumpEmbedded(pglite: PGlite): Promise<Buffer> {
  const file = await pglite.dumpDataDir('gzip');
  return Buffer.from(await file.arrayBuffer());
}

/** Back up the data directory of a server that is not running. */
export async function backupDataDir(dataDir: string, outFile: string): Promise<number> {
  const dir = pgliteDirOf(dataDir);
  if (!existsSync(dir)) throw new Error(`No embedded database in ${dataDir} (expected ${dir}).`);
  const pglite = await PGlite.create(dir);
  try {
    const bytes = await dumpEmbedded(pglite);
    await writeFile(outFile, bytes);
    return bytes.length;
  } finally {
    await pglite.close();
  }
}

/** Write a backup into DATA_DIR, which must not hold a database yet; checks that it opens. */
export async function restoreDataDir(backupFile: string, dataDir: string): Promise<void> {
  const dir = pgliteDirOf(dataDir);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} already holds a database: restore into an empty DATA_DIR.`);
  const bytes = await readFile(backupFile);
  const pglite = await PGlite.create(dir, { loadDataDir: new Blob([bytes]) });
  try {
    await pglite.query('select 1');
  } finally {
    await pglite.close();
  }
}
