// Decision 145: the embedded database has no autovacuum (PGlite runs PostgreSQL in single-user mode), so the worker
// role vacuums it, one table a round: never-vacuumed tables first, then those whose transaction ids are old, then
// the least recently vacuumed, each again after a day.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client.ts';
import {
  FREEZE_AGE,
  VACUUM_EVERY_HOURS,
  mostUrgent,
  startEmbeddedVacuum,
  tablesToVacuum,
  vacuumOneTable,
} from '../../src/db/maintenance.ts';
import { startWorkers } from '../../src/jobs/registry.ts';
import { createTestEnv, eventually, onPostgres, type TestEnv } from '../helpers.ts';

const HOUR = 3_600_000;

describe('which table is vacuumed next', () => {
  const now = new Date('2030-01-02T00:00:00Z');
  const t = (table: string, hoursAgo: number | null, xidAge = 1000) => ({
    schema: 'public',
    table,
    lastVacuum: hoursAgo === null ? null : new Date(now.getTime() - hoursAgo * HOUR),
    xidAge,
  });

  it('never vacuumed first, then old transaction ids, then the oldest vacuum; a table vacuumed within the day waits', () => {
    const order = mostUrgent(
      [
        t('fresh', 1),
        t('day-old', VACUUM_EVERY_HOURS),
        t('week-old', 7 * 24),
        t('never', null),
        t('old-ids', 2, FREEZE_AGE),
        t('almost-a-day', VACUUM_EVERY_HOURS - 0.01),
      ],
      now,
    ).map((x) => x.table);
    expect(order).toEqual(['never', 'old-ids', 'week-old', 'day-old']);
  });
});

describe.runIf(!onPostgres)('the embedded database is vacuumed', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('a round vacuums one table; once every table is done nothing is due until a day later', async () => {
    const { db } = env.ctx;
    const now = new Date();
    const due = await tablesToVacuum(db, now);
    // The application's tables and the job queue's (its partitions) are all there (a new database has vacuumed none).
    expect(due.map((d) => `${d.schema}.${d.table}`)).toEqual(
      expect.arrayContaining(['public.trackings', 'public.users', 'pgboss.job_common']),
    );
    const first = await vacuumOneTable(db, now);
    expect(first).toEqual(due[0]);
    expect((await tablesToVacuum(db, now)).length).toBe(due.length - 1);

    while (await vacuumOneTable(db, now));
    expect(await tablesToVacuum(db, now)).toEqual([]);
    expect(await vacuumOneTable(db, now)).toBeNull();
    const tomorrow = new Date(Date.now() + (VACUUM_EVERY_HOURS + 1) * HOUR);
    expect((await tablesToVacuum(db, tomorrow)).length).toBe(due.length);
  });

  it('the loop reaches a table written after start-up: its pages are all-visible (an index-only scan needs no table visit)', async () => {
    const { db } = env.ctx;
    await db.execute(sql`create table upkeep_probe (id int primary key, n int)`);
    await db.execute(sql`insert into upkeep_probe select g, 0 from generate_series(1, 20000) g`);
    const visible = async () =>
      rowsOf<{ pages: number; visible: number }>(
        await db.execute(sql`select relpages as pages, relallvisible as visible from pg_class where relname = 'upkeep_probe'`),
      )[0]!;
    expect((await visible()).visible).toBe(0);
    const loop = startEmbeddedVacuum(db, env.ctx.log, { tickMs: 20 });
    try {
      await eventually(async () => ((await tablesToVacuum(db, new Date())).length === 0 ? true : null), 60_000, 50);
      const before = await visible();
      expect(before.pages).toBeGreaterThan(0);
      expect(before.visible).toBe(before.pages);
    } finally {
      await loop.stop();
    }
  });
});

it('the worker role starts the loop on the embedded database only (PostgreSQL has autovacuum)', async () => {
  const env = await createTestEnv();
  try {
    await startWorkers(env.ctx);
    expect(!!env.ctx.resources.embeddedVacuum).toBe(!onPostgres);
  } finally {
    await env.close();
  }
});
