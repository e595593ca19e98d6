// Once per `vitest run`: migrate one database and keep it as a template, so each test file's fresh
// database is a copy (well under a second) instead of initdb plus every migration (several seconds).
// PGlite: a dump of the migrated data directory in a temporary file, loaded by createTestEnv.
// PostgreSQL (TEST_DATABASE_URL): a migrated database that `create database ... template` copies.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/client.ts';
import { createQueue } from '../src/jobs/queue.ts';
import { withClient } from './pg-client.ts';

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

export default async function setup(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const name = `st_template_${randomBytes(6).toString('hex')}`;
    await withClient(url, (c) => c.query(`create database ${name}`));
    const u = new URL(url);
    u.pathname = `/${name}`;
    const database = await migrate({ databaseUrl: u.toString() });
    await database.close();
    project.provide('pgTemplate', name);
    project.provide('pgliteTemplate', '');
    return async () => {
      await withClient(url, (c) => c.query(`drop database if exists ${name}`));
    };
  }
  const database = await migrate({});
  const dump = await database.pglite!.dumpDataDir('none');
  await database.close();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'shiptrail-template-'));
  const file = path.join(dir, 'pglite.tar');
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);
  project.provide('pgTemplate', '');
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
