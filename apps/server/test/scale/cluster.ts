// Real OS processes for the scale and fault tests: src/main.ts started with --role as the compose file starts
// it, each with an admin port to probe, killed with real signals.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, startSmtp, template } from '../helpers.ts';
import { freePort } from '../loopback.ts';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export { freePort };
export { withClient } from '../pg-client.ts';

export interface ServerProcess {
  role: 'api' | 'worker' | 'all';
  url: string;
  /** Its admin port (/readyz, /metrics, /backup). */
  adminUrl: string;
  child: ChildProcess;
  /** kill -9, and wait until the process is gone. */
  kill9(): Promise<void>;
  /** Start it again with the same ports and settings; resolves once it is ready. */
  restart(): Promise<void>;
  stderr(): string;
  /** Everything it wrote to stdout (its log lines), across restarts; empty unless started with `logs: true`. */
  stdout(): string;
}

/**
 * A new embedded DATA_DIR starts from the run's migrated template (test/global-setup.ts), as each test file's
 * database does: the first start on an empty directory spends most of its time in PGlite's initdb and the
 * migrations (23 s against 10 s for a later start, at load 13), which is not what these tests are about.
 * `open-options.test.ts`, `npm start` and the E2E server start on truly empty directories.
 */
function seedEmbeddedDataDir(env: Record<string, string>): void {
  const dir = env.DATA_DIR;
  const dump = template('pgliteTemplate');
  if (!dir || dir === 'memory://' || env.DATABASE_URL || !dump) return;
  const pgdata = path.join(dir, 'pglite');
  if (existsSync(path.join(pgdata, 'PG_VERSION'))) return;
  mkdirSync(pgdata, { recursive: true });
  // PGlite's dump names its members from the root ('/base/...'); tar's note that it strips the '/' is captured.
  execFileSync('tar', ['-xf', dump, '-C', pgdata], { stdio: 'pipe' });
}

/** The processes a test started; `stopAll` kills what is left. */
export class Cluster {
  readonly processes: ServerProcess[] = [];

  async start(role: 'api' | 'worker' | 'all', env: Record<string, string>, opts: { logs?: boolean } = {}): Promise<ServerProcess> {
    seedEmbeddedDataDir(env);
    let [port, adminPort] = [0, 0];
    let stderr = '';
    const stdout: string[] = [];
    const spawnIt = () => {
      const child = spawn(process.execPath, ['src/main.ts', '--role', role], {
        cwd: serverDir,
        env: {
          PATH: process.env.PATH,
          HOST: '127.0.0.1',
          PORT: String(port),
          ADMIN_PORT: String(adminPort),
          LOG_LEVEL: 'warn',
          LOG_FORMAT: 'json',
          WEB_DIST: path.join(serverDir, 'no-web'),
          ...env,
        },
        stdio: ['ignore', opts.logs ? 'pipe' : 'ignore', 'pipe'],
      });
      child.stdout?.on('data', (c: Buffer) => stdout.push(c.toString()));
      child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-8000)));
      return child;
    };
    const ready = async (child: ChildProcess) =>
      eventually(
        async () => {
          if (child.exitCode !== null) throw new Error(`${role} exited ${child.exitCode}: ${stderr}`);
          return (await fetch(`http://127.0.0.1:${adminPort}/readyz`).catch(() => null))?.ok ? true : null;
        },
        180_000,
        // Every 50 ms: a restart is ready a fraction of a second sooner than a 250 ms poll saw it, 20 times a run.
        50,
      );
    // A free port can be taken by someone else between freePort() and the child's listen (an outbound connection
    // gets an ephemeral port from the same range): the first start tries again on new ports when that happens.
    let child: ChildProcess;
    for (let attempt = 1; ; attempt++) {
      [port, adminPort] = [await freePort(), await freePort()];
      child = spawnIt();
      try {
        await ready(child);
        break;
      } catch (err) {
        if (attempt >= 3 || !/EADDRINUSE/.test((err as Error).message)) throw err;
        stderr = '';
      }
    }
    const p: ServerProcess = {
      role,
      url: `http://127.0.0.1:${port}`,
      adminUrl: `http://127.0.0.1:${adminPort}`,
      child,
      async kill9() {
        if (p.child.exitCode !== null || p.child.signalCode !== null) return;
        const gone = new Promise((r) => p.child.once('exit', r));
        p.child.kill('SIGKILL');
        await gone;
      },
      async restart() {
        p.child = spawnIt();
        await ready(p.child);
      },
      stderr: () => stderr,
      stdout: () => stdout.join(''),
    };
    this.processes.push(p);
    return p;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.kill9()));
  }
}

export async function api(url: string, method: string, p: string, token?: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url + p, {
    method,
    headers: {
      'sm-http-status': 'real',
      ...(token ? { 'sm-api-token': token } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as { code: number; message: string; payload: any } };
}

/**
 * Signs `email` up on a running server (password "password123"; `more` adds fields, a company's `userType` and name):
 * its API key and session token. A sign-up that is not 201 throws with the server's answer.
 */
export async function signUpAt(url: string, email: string, more: Record<string, unknown> = {}) {
  const r = await api(url, 'POST', '/v1/user/general/signup', undefined, {
    email,
    password: 'password123',
    repassword: 'password123',
    terms: true,
    ...more,
  });
  if (r.status !== 201) throw new Error(`sign-up of ${email}: ${r.status} ${JSON.stringify(r.body)}`);
  return { key: r.body.payload.profile.token as string, session: r.body.payload.sessionToken as string };
}

/** A real SMTP server on loopback that can refuse mail for a while (421, as a server that is down would). */
export async function startSwitchableSmtp() {
  let down = false;
  const unavailable = () => Object.assign(new Error('Service not available, try again later'), { responseCode: 421 });
  const smtp = await startSmtp({
    onConnect(_s, cb) {
      cb(down ? unavailable() : undefined);
    },
    onMailFrom(_a, _s, cb) {
      cb(down ? unavailable() : undefined);
    },
  });
  return {
    ...smtp,
    setDown(v: boolean) {
      down = v;
    },
  };
}
