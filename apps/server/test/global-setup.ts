// Once per `vitest run`: migrate one database and keep it as a template, so each test file's fresh
// database is a copy (well under a second) instead of initdb plus every migration (several seconds).
// PGlite: a dump of the migrated data directory in a temporary file, loaded by createTestEnv.
// PostgreSQL (TEST_DATABASE_URL): a migrated database that `create database ... template` copies.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/client.ts';
import { createQueue } from '../src/jobs/queue.ts';

declare module 'vitest' {
  interface ProvidedContext {
    /** File holding the migrated PGlite dump, or '' when the tests run on PostgreSQL. */
    pgliteTemplate: string;
    /** Name of the migrated template database on the TEST_DATABASE_URL server, or ''. */
    pgTemplate: string;
  }
}

/** Migrations plus pg-boss's own schema: everything a fresh start would create. */
async function migrate(opts: { databaseUrl?: string }) {
  const database = await openDatabase({ dataDir: 'memory://', ...opts, poolSize: 2 });
  const queue = await createQueue(database);
  await queue.stop({ graceful: true, timeout: 5000 });
  return database;
}

async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

type Template = { pgliteTemplate: string; pgTemplate: string; drop(): Promise<void> };

/** Makes the run's one template: a migrated database on the TEST_DATABASE_URL server, or a PGlite dump in a file. */
async function makeTemplate(): Promise<Template> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const name = `st_template_${randomBytes(6).toString('hex')}`;
    await admin(url, (c) => c.query(`create database ${name}`));
    const u = new URL(url);
    u.pathname = `/${name}`;
    const database = await migrate({ databaseUrl: u.toString() });
    await database.close();
    return {
      pgliteTemplate: '',
      pgTemplate: name,
      drop: async () => {
        await admin(url, (c) => c.query(`drop database if exists ${name}`));
      },
    };
  }
  const database = await migrate({});
  const dump = await database.pglite!.dumpDataDir('none');
  await database.close();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'shiptrail-template-'));
  const file = path.join(dir, 'pglite.tar');
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  return {
    pgliteTemplate: file,
    pgTemplate: '',
    drop: async () => {
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// Vitest runs a project's globalSetup once per project in the run, one after another, in its main process: the
// server, server-timed and server-slow projects each made and migrated a template of their own before the first test
// (three times 4-5 s of CPU, decision 183). They share one: made by the first, dropped by the last teardown. Each
// test file still copies it into a fresh database of its own.
const shared = globalThis as typeof globalThis & { shiptrailTemplate?: { made: Promise<Template>; users: number } };

export default async function setup(project: TestProject) {
  shared.shiptrailTemplate ??= { made: makeTemplate(), users: 0 };
  const mine = shared.shiptrailTemplate;
  mine.users++;
  const template = await mine.made;
  project.provide('pgliteTemplate', template.pgliteTemplate);
  project.provide('pgTemplate', template.pgTemplate);
  return async () => {
    if (--mine.users > 0) return;
    if (shared.shiptrailTemplate === mine) delete shared.shiptrailTemplate;
    await template.drop();
  };
}
