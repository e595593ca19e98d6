// `npm start` runs this before the server: build the web app only when its sources changed since the last build.
// The inputs are hashed into a stamp kept in apps/web/dist; a missing dist, a missing stamp or a different hash
// rebuilds. Run with Node 24 (type stripping): `node scripts/build-web.ts [--force]`.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the built web app depends on, relative to the repo root (folders are walked; missing entries skipped). */
export const WEB_INPUTS = [
  'apps/web/src',
  'apps/web/public',
  'apps/web/index.html',
  'apps/web/vite.config.ts',
  'apps/web/postcss.config.cjs',
  'apps/web/tsconfig.json',
  'apps/web/package.json',
  'packages/contract/src',
  'packages/contract/package.json',
  'package-lock.json',
];
export const STAMP_FILE = 'apps/web/dist/.build-stamp';

function filesUnder(root: string, rel: string): string[] {
  const abs = path.join(root, rel);
  if (!existsSync(abs)) return [];
  if (!statSync(abs).isDirectory()) return [rel];
  return readdirSync(abs, { withFileTypes: true })
    .filter((e) => e.name !== 'node_modules' && e.name !== '.DS_Store')
    .flatMap((e) => filesUnder(root, path.posix.join(rel, e.name)));
}

/** One hash over every input file's path and content, in a stable order. */
export function webSourcesHash(root: string): string {
  const h = createHash('sha256');
  for (const rel of WEB_INPUTS.flatMap((i) => filesUnder(root, i)).sort()) {
    h.update(rel)
      .update('\0')
      .update(readFileSync(path.join(root, rel)))
      .update('\0');
  }
  return h.digest('hex');
}

/** Why the web app must be built, or null when dist is up to date. */
export function buildReason(root: string): string | null {
  if (!existsSync(path.join(root, 'apps/web/dist/index.html'))) return 'no build yet';
  const stampPath = path.join(root, STAMP_FILE);
  if (!existsSync(stampPath)) return 'the build has no stamp';
  return readFileSync(stampPath, 'utf8').trim() === webSourcesHash(root) ? null : 'the web sources changed';
}

/** Record that dist was built from the current sources. */
export function writeStamp(root: string, hash = webSourcesHash(root)): void {
  writeFileSync(path.join(root, STAMP_FILE), hash + '\n');
}

function main(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const reason = process.argv.includes('--force') ? 'asked to' : buildReason(root);
  if (!reason) {
    console.log('web app: up to date, not rebuilt (node scripts/build-web.ts --force to rebuild)');
    return;
  }
  // Hashed before the build, so an edit made while it runs triggers the next one.
  const hash = webSourcesHash(root);
  console.log(`web app: building (${reason})`);
  const r = spawnSync('npm', ['run', 'build', '--workspace', 'apps/web'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  writeStamp(root, hash);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
