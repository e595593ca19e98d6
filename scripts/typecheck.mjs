// Type-check every project at once rather than one after another: each `tsc -p` spends most of its time
// on its own, so on a machine with several cores the whole check takes about as long as the slowest one.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const projects = ['packages/contract', 'packages/routing', 'apps/server', 'apps/web', 'bench'];
const tsc = path.resolve('node_modules', 'typescript', 'bin', 'tsc');
const limit = Math.max(1, Math.min(projects.length, os.availableParallelism()));
const cache = path.resolve('node_modules', '.cache', 'tsc');

function check(project) {
  return new Promise((resolve) => {
    // Incremental: tsc keeps what it learned about each file (its build info, under node_modules/.cache) and
    // checks again only what an edit can change; a file's content, not its time, decides (decision 169).
    const info = path.join(cache, `${project.replaceAll('/', '-')}.tsbuildinfo`);
    const child = spawn(process.execPath, [tsc, '-p', project, '--incremental', '--tsBuildInfoFile', info], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ project, code, out }));
  });
}

const queue = [...projects];
const results = [];
await Promise.all(
  Array.from({ length: limit }, async () => {
    for (let p = queue.shift(); p; p = queue.shift()) {
      const r = await check(p);
      // Print each project's errors whole, as soon as it finishes.
      if (r.out) process.stdout.write(r.out);
      console.log(`tsc -p ${r.project}: ${r.code === 0 ? 'ok' : 'failed'}`);
      results.push(r);
    }
  }),
);
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
