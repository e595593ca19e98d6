// A migration's backfill, tested on a database that has rows from before it: migrate a fresh database up to a
// tag, write the rows, apply the rest, read the result. On PGlite, or on the PostgreSQL server of
// TEST_DATABASE_URL (a database of its own, dropped afterwards).
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { expect } from 'vitest';
import { rowsOf } from '../../src/db/client.ts';

const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../drizzle');

/** A copy of the migrations folder whose journal ends at `lastTag`. */
function migrationsUpTo(lastTag: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shiptrail-migrations-'));
  cpSync(migrationsFolder, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
  const last = journal.entries.findIndex((e) => e.tag === lastTag);
  expect(last).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, last + 1);
  writeFileSync(journalFile, JSON.stringify(journal));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A test across the migrations replays every migration on a fresh database (about 10 s on a quiet 2-core machine,
 * three times that on a busy one): a bound for a hang, not a measured duration.
 */
export const ACROSS_MIGRATION_TIMEOUT_MS = 120_000;

/** Migrate up to `lastTag`, run `before`, apply the rest of the migrations, and return the rows `read` reads. */
export async function acrossMigration<T = Record<string, unknown>>(lastTag: string, before: SQL, read: SQL): Promise<T[]> {
  const old = migrationsUpTo(lastTag);
  try {
    if (!process.env.TEST_DATABASE_URL) {
      const pglite = new PGlite();
      try {
        const db = drizzlePglite(pglite);
        await migratePglite(db, { migrationsFolder: old.dir });
        await db.execute(before);
        await migratePglite(db, { migrationsFolder });
        return rowsOf<T>(await db.execute(read));
      } finally {
        await pglite.close();
      }
    }
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const name = `st_mig_${randomBytes(6).toString('hex')}`;
    await admin.query(`create database ${name}`);
    const u = new URL(process.env.TEST_DATABASE_URL);
    u.pathname = `/${name}`;
    // One client, not a pool: a pool's end() resolves before its sockets close, and the forced drop below then
    // reaches a connection still closing, whose error the pool re-emits with nobody listening (a crash outside the
    // tests, which failed a CI run). A client's end() waits for the server to hang up.
    const client = new pg.Client({ connectionString: u.toString() });
    try {
      await client.connect();
      const db = drizzlePg(client);
      await migratePg(db, { migrationsFolder: old.dir });
      await db.execute(before);
      await migratePg(db, { migrationsFolder });
      return rowsOf<T>(await db.execute(read));
    } finally {
      await client.end().catch(() => {});
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  } finally {
    old.cleanup();
  }
}
