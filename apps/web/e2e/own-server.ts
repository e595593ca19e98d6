import { expect } from '@playwright/test';
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// A spec's own server, for what the run's shared server must not see: a kill -9 (restart-offline) or a rebuilt web
// app (service-worker). The E2E runs specs in two workers at once (playwright.config.ts), so a spec that kills the
// shared server or rewrites the files it serves would break the spec running beside it.

const here = path.dirname(fileURLToPath(import.meta.url));
const serverDir = path.resolve(here, '../../server');
/** The built web app the run's server serves. */
export const webDist = path.resolve(here, '../dist');

/**
 * A free loopback port, chosen when a spec file loads, so every page of the file can use it as its base URL.
 * (Without NODE_OPTIONS: the runner's loader must not write into the answer.)
 */
export function freePort(): string {
  return /(\d+)\s*$/.exec(
    execSync(`node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"`, {
      env: { PATH: process.env.PATH },
    }).toString(),
  )![1]!;
}

/** A real server process (`node src/main.ts`) on its own port and data directory, killed with SIGKILL and started again on it. */
export class OwnServer {
  child: ChildProcess | null = null;
  stderr = '';
  // Made at the first start, not when the file loads (the runner loads it too, and would leave one behind).
  dataDir = '';

  readonly port: string;
  readonly tag: string;
  readonly dist: string;

  /** `tag` names the data directory; `dist` is the web app it serves (the run's build unless told). */
  constructor(port: string, tag: string, dist = webDist) {
    this.port = port;
    this.tag = tag;
    this.dist = dist;
  }

  get base() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start() {
    this.dataDir ||= mkdtempSync(path.join(tmpdir(), `shiptrail-e2e-${this.tag}-`));
    this.child = spawn(process.execPath, ['src/main.ts'], {
      cwd: serverDir,
      env: {
        PATH: process.env.PATH,
        HOST: '127.0.0.1',
        PORT: this.port,
        DATA_DIR: this.dataDir,
        WEB_DIST: this.dist,
        PUBLIC_URL: this.base,
        LOG_LEVEL: 'warn',
        CARRIER_SANDBOX_PACE: '0.05',
        SIGNUPS_PER_HOUR: '100000',
        MAP_TILE_URL: 'http://127.0.0.1:9/{z}/{x}/{y}.png',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child.stderr!.on('data', (c: Buffer) => (this.stderr = (this.stderr + c.toString()).slice(-8000)));
    const child = this.child;
    await expect
      .poll(
        async () => {
          if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}: ${this.stderr}`);
          return (await fetch(`${this.base}/healthz`).catch(() => null))?.ok ?? false;
        },
        { timeout: 180_000, intervals: [250] },
      )
      .toBe(true);
  }

  /** kill -9, and wait until the process is gone. */
  async kill9() {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }
}
