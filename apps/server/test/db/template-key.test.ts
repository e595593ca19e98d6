// The migrated template is kept between runs under a hash of what makes it (test/global-setup.ts, decision 183): a
// changed migration, database or queue file, or lockfile must give another key, so no run loads a stale template.
import { cp, mkdtemp, rm, writeFile, appendFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateKey } from '../global-setup.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

describe('the cached template key', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'shiptrail-template-key-'));
    for (const d of ['apps/server/drizzle', 'apps/server/src/db', 'apps/server/src/jobs'])
      await cp(path.join(repo, d), path.join(root, d), { recursive: true });
    await cp(path.join(repo, 'package-lock.json'), path.join(root, 'package-lock.json'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('is the same for the same files, and the copy matches the repository', async () => {
    expect(await templateKey(root)).toBe(await templateKey(repo));
    expect(await templateKey(root)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('changes with a migration edited, a migration added, the database or queue code, and the lockfile', async () => {
    const seen = new Set([await templateKey(root)]);
    const changed = async (edit: () => Promise<void>) => {
      await edit();
      const key = await templateKey(root);
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    };
    await changed(() => appendFile(path.join(root, 'apps/server/drizzle/0000_init.sql'), '\n-- edited\n'));
    await changed(() => writeFile(path.join(root, 'apps/server/drizzle/9999_new.sql'), 'create table t (id int);\n'));
    await changed(() => appendFile(path.join(root, 'apps/server/drizzle/meta/_journal.json'), ' '));
    await changed(() => appendFile(path.join(root, 'apps/server/src/db/client.ts'), '\n// edited\n'));
    await changed(() => appendFile(path.join(root, 'apps/server/src/jobs/queue.ts'), '\n// edited\n'));
    await changed(() => appendFile(path.join(root, 'package-lock.json'), ' '));
    const setup = path.join(root, 'global-setup.ts');
    await cp(fileURLToPath(new URL('../global-setup.ts', import.meta.url)), setup);
    const before = await templateKey(root, setup);
    await appendFile(setup, '\n// edited\n');
    expect(await templateKey(root, setup)).not.toBe(before);
  });
});
