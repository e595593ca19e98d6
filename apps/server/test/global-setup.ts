// Once per `vitest run`: migrate one database and keep it as a template, so each test file's fresh
// database is a copy (well under a second) instead of initdb plus every migration (several seconds).
// PGlite: a dump of the migrated data directory in a file, loaded by createTestEnv; kept between runs in
// node_modules/.cache/test-template under a hash of everything that makes it (decision 183).
// PostgreSQL (TEST_DATABASE_URL): a migrated database that `create database ... template` copies.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
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
  // Imported here: a run that finds the template in the cache never loads the database code in this process.
  const [{ openDatabase }, { createQueue }] = await Promise.all([import('../src/db/client.ts'), import('../src/jobs/queue.ts')]);
  const database = await openDatabase({ dataDir: 'memory://', ...opts, poolSize: 2 });
  const queue = await createQueue(database);
  await queue.stop({ graceful: true, timeout: 5000 });
  return database;
}

type Template = { pgliteTemplate: string; pgTemplate: string; drop(): Promise<void> };

/** Makes the run's one template: a migrated database on the TEST_DATABASE_URL server, or a PGlite dump in a file. */
async function makeTemplate(): Promise<Template> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const name = `st_template_${randomBytes(6).toString('hex')}`;
    await withClient(url, (c) => c.query(`create database ${name}`));
    const u = new URL(url);
    u.pathname = `/${name}`;
    const database = await migrate({ databaseUrl: u.toString() });
    await database.close();
    return {
      pgliteTemplate: '',
      pgTemplate: name,
      drop: async () => {
        await withClient(url, (c) => c.query(`drop database if exists ${name}`));
      },
    };
  }
  return { pgliteTemplate: await pgliteTemplateFile(), pgTemplate: '', drop: async () => {} };
}

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const cacheDir = path.join(repo, 'node_modules', '.cache', 'test-template');

/**
 * The cache key of the migrated template under `root`: a hash of every file that decides what it holds (the
 * migrations, the database and queue code that apply them, pg-boss making its own schema), of this set-up, of the
 * lockfile (PGlite's, Drizzle's and pg-boss's versions) and of Node's version.
 */
export async function templateKey(root: string, setupFile = fileURLToPath(import.meta.url)): Promise<string> {
  const dirs = ['apps/server/drizzle', 'apps/server/src/db', 'apps/server/src/jobs'];
  const listed = await Promise.all(
    dirs.map(async (d) =>
      (await readdir(path.join(root, d), { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile())
        .map((e) => path.join(e.parentPath, e.name)),
    ),
  );
  const hash = createHash('sha256').update(process.version);
  for (const file of [...listed.flat().sort(), path.join(root, 'package-lock.json')])
    hash
      .update(path.relative(root, file))
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  hash.update(await readFile(setupFile));
  return hash.digest('hex').slice(0, 32);
}

/**
 * The migrated PGlite template: the cached dump made from the same inputs, or a new one (initdb, every migration and
 * pg-boss's schema: 4-5 s of CPU before the first test could start). A changed migration, database file or lockfile
 * is another hash, so another dump; each test file still loads its own fresh database from it.
 */
async function pgliteTemplateFile(): Promise<string> {
  const key = await templateKey(repo);
  const file = path.join(cacheDir, `${key}.tar`);
  if (
    await stat(file).then(
      (s) => s.size > 0,
      () => false,
    )
  )
    return file;
  const database = await migrate({});
  const dump = await database.pglite!.dumpDataDir('none');
  await database.close();
  await mkdir(cacheDir, { recursive: true });
  // Written under a name of its own, then renamed: a run beside this one reads a whole dump or none.
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
  await rename(partial, file);
  await forgetOldTemplates(file);
  return file;
}

/** Dumps of other inputs a day old or more: no run still reading them (a run beside this one may use a recent one). */
async function forgetOldTemplates(keep: string): Promise<void> {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of await readdir(cacheDir)) {
    const f = path.join(cacheDir, name);
    if (f !== keep && (await stat(f)).mtimeMs < dayAgo) await rm(f, { force: true });
  }
}

// Vitest runs a project's globalSetup once per project in the run, one after another, in its main process: the
// server, server-timed and server-slow projects each made and migrated a template of their own before the first test
// (three times 4-5 s of CPU, decision 183). They share one: found or made by the first, and on PostgreSQL dropped by
// the last teardown. Each test file still copies it into a fresh database of its own.
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
