// Backups of the embedded default (db/backup.ts): taken from a running server while adds go on, through the real
// command (`npm run db:backup` with the admin URL), restored into an empty data directory with `npm run db:restore`,
// and started there: every add acknowledged before the backup began is in it, and the balance equals the ledger. A
// backup of a stopped server's folder restores too, and a restore refuses a folder that already holds a database.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { api, Cluster, signUpAt } from '../scale/cluster.ts';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const npm = (...args: string[]) => run('npm', ['run', '--silent', ...args], { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'warn' } });
const cluster = new Cluster();
const dirs: string[] = [];
const tempDir = (name: string) => {
  const d = mkdtempSync(path.join(tmpdir(), `shiptrail-${name}-`));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  await cluster.stopAll();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const common = { SESSION_SECRET: 'backup-test-secret-backup-test-secret-01', CARRIER_SANDBOX_PACE: '0.05' };

// The embedded default is what this file runs; the PostgreSQL pass (TEST_DATABASE_URL) has nothing to add to it.
describe.skipIf(!!process.env.TEST_DATABASE_URL)('backups of the embedded default', () => {
  it('a backup taken under load restores into an empty DATA_DIR with every add acknowledged before it', async () => {
    const dataDir = tempDir('backup-src');
    const server = await cluster.start('all', { ...common, DATA_DIR: dataDir });
    const { key } = await signUpAt(server.url, 'backup@example.com');

    const acked: string[] = [];
    let stop = false;
    let n = 0;
    const load = (async () => {
      while (!stop) {
        const tid = `BACKUP${n++}`;
        const r = await api(server.url, 'POST', '/v1/trackings/add', key, { tid, courier: 'ups' }).catch(() => null);
        if (r?.status === 201) acked.push(tid);
      }
    })();
    while (acked.length < 30) await new Promise((r) => setTimeout(r, 20));
    const before = [...acked];
    const file = path.join(tempDir('backup-file'), 'shiptrail.tar.gz');
    await npm('db:backup', '--', server.adminUrl, file);
    const after = acked.length;
    stop = true;
    await load;
    await server.kill9();
    // The adds went on while the backup was taken.
    expect(after).toBeGreaterThan(before.length);

    const restoredDir = tempDir('backup-dst');
    await npm('db:restore', '--', file, restoredDir);
    const restored = await cluster.start('all', { ...common, DATA_DIR: restoredDir });
    const list = await api(restored.url, 'GET', '/v1/trackings/get?numRecords=1000', key);
    expect(list.status).toBe(200);
    const tids = new Set((list.body.payload as Array<{ tid: string }>).map((t) => t.tid));
    expect(
      before.filter((t) => !tids.has(t)),
      'adds acknowledged before the backup, missing from it',
    ).toEqual([]);
    // Nothing half there: the balance is the sign-up credit less one charge per tracking in the backup.
    const info = await api(restored.url, 'GET', '/v1/user/info', key);
    expect(Math.round(Number(info.body.payload.profile.balance) * 100)).toBe(1000 - 5 * tids.size);
    await restored.kill9();
  }, 600_000);

  it("a stopped server's folder backs up and restores; a restore refuses a DATA_DIR that holds a database", async () => {
    const dataDir = tempDir('backup-offline');
    const server = await cluster.start('all', { ...common, DATA_DIR: dataDir });
    const { key } = await signUpAt(server.url, 'offline@example.com');
    expect((await api(server.url, 'POST', '/v1/trackings/add', key, { tid: 'OFFLINE1', courier: 'ups' })).status).toBe(201);
    await server.kill9();
    const file = path.join(tempDir('backup-file'), 'offline.tar.gz');
    await npm('db:backup', '--', dataDir, file);
    const refused = await npm('db:restore', '--', file, dataDir).then(
      () => null,
      (err: { stderr: string }) => err.stderr,
    );
    expect(refused).toContain('already holds a database');
    const restoredDir = tempDir('backup-offline-dst');
    await npm('db:restore', '--', file, restoredDir);
    const restored = await cluster.start('all', { ...common, DATA_DIR: restoredDir });
    const list = await api(restored.url, 'GET', '/v1/trackings/get?numRecords=10', key);
    expect((list.body.payload as Array<{ tid: string }>).map((t) => t.tid)).toEqual(['OFFLINE1']);
    await restored.kill9();
  }, 600_000);
});
