// A private PostgreSQL server for a bench run: initdb into a temp dir, pg_ctl on a random port, socket in
// the same dir. Skipped (with the reason) when the server binaries are not installed.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface PrivatePostgres {
  url: string;
  version: string;
  stop(): void;
}

function findBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(path.join(root, v, 'bin', 'initdb'))) return path.join(root, v, 'bin');
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startPostgres(): Promise<PrivatePostgres | { skipped: string }> {
  const bin = findBin();
  if (!bin) return { skipped: 'no initdb under /usr/lib/postgresql/*/bin (apt-get install -y postgresql)' };
  const dir = mkdtempSync(path.join(tmpdir(), 'shiptrail-bench-pg-'));
  const asRoot = process.getuid?.() === 0;
  // initdb refuses to run as root: run the server as the postgres system user then.
  const run = (cmd: string, args: string[]) => {
    if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args], { stdio: 'pipe' });
    else execFileSync(path.join(bin, cmd), args, { stdio: 'pipe' });
  };
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  const port = await freePort();
  run('initdb', ['-D', data, '-U', 'bench', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  run('pg_ctl', [
    '-D',
    data,
    '-l',
    path.join(dir, 'log'),
    '-w',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB`,
    'start',
  ]);
  const version = path.basename(path.dirname(bin));
  return {
    url: `postgres://bench@127.0.0.1:${port}/postgres`,
    version: `PostgreSQL ${version}`,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } catch {
        /* already gone */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let databases = 0;
/**
 * A new database on the bench's server (`label` names it), so each app starts from nothing, or from a copy of the
 * database `template` (which nobody may be connected to): its URL.
 */
export async function freshDatabase(adminUrl: string, label: string, template?: string): Promise<string> {
  const name = `bench_${label}_${process.pid}_${databases++}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  } finally {
    await client.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
