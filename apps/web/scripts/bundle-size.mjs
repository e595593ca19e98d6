// Initial JavaScript (gzip) of the landing page and the dashboard: the entry plus each route's lazy chunk
// and everything they import statically, from Vite's manifest. Run after `vite build`.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const dist = new URL('../dist/', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'));

function closure(keys) {
  const seen = new Set();
  const walk = (k) => {
    if (seen.has(k)) return;
    seen.add(k);
    for (const i of manifest[k]?.imports ?? []) walk(i);
  };
  keys.forEach(walk);
  return seen;
}
const gz = (file) => gzipSync(readFileSync(join(dist, file))).length;
const entry = Object.keys(manifest).find((k) => manifest[k].isEntry);
const find = (part) => Object.keys(manifest).find((k) => k.includes(part));

function report(name, lazyParts) {
  const keys = closure([entry, ...lazyParts.map(find).filter(Boolean)]);
  let total = 0;
  for (const k of keys) total += gz(manifest[k].file);
  console.log(`${name}: ${(total / 1024).toFixed(1)} KB gzip JS in ${keys.size} files`);
  return total;
}

const landing = report('landing', ['landing-route']);
report('dashboard', ['account-layout', 'dashboard-route']);
report('trackings', ['account-layout', 'trackings-route']);
if (process.argv.includes('--check') && landing > 200 * 1024) {
  console.error('landing initial JS is over the 200 KB budget');
  process.exit(1);
}
