// Several processes started together against one PostgreSQL server each apply the migrations at start-up;
// only one may do the work and none may fail.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { onPostgres } from '../helpers.ts';

async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

describe('migrations with several processes', () => {
  it.runIf(onPostgres)('four starts at once on an empty database all succeed and apply each migration once', async () => {
    const name = `st_mig_${randomBytes(6).toString('hex')}`;
    await withAdmin((c) => c.query(`create database ${name}`));
    const u = new URL(process.env.TEST_DATABASE_URL!);
    u.pathname = `/${name}`;
    try {
      const opened = await Promise.allSettled(
        Array.from({ length: 4 }, () => openDatabase({ databaseUrl: u.toString(), dataDir: 'memory://', poolSize: 2 })),
      );
      const failures = opened.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
      for (const r of opened) if (r.status === 'fulfilled') await r.value.close();
      expect(failures).toEqual([]);
      const rows = await withAdmin(async () => {
        const c = new pg.Client({ connectionString: u.toString() });
        await c.connect();
        try {
          return (await c.query<{ hash: string; n: string }>('select hash, count(*) as n from drizzle.__drizzle_migrations group by hash'))
            .rows;
        } finally {
          await c.end();
        }
      });
      expect(rows.length).toBeGreaterThan(4);
      expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
    } finally {
      await withAdmin((c) => c.query(`drop database if exists ${name} with (force)`));
    }
  });
});
