// Initial JavaScript (gzip) of the landing page and the dashboard: the entry plus each route's lazy chunk
// and everything they import statically, from Vite's manifest. Run after `vite build`.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const defaultDist = new URL('../dist/', import.meta.url).pathname;

/** Gzip bytes of the initial JS of landing, dashboard and trackings, from the manifest in `dist`. */
export function bundleSizes(dist = defaultDist) {
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

  function size(lazyParts) {
    const keys = closure([entry, ...lazyParts.map(find).filter(Boolean)]);
    let bytes = 0;
    for (const k of keys) bytes += gz(manifest[k].file);
    return { bytes, files: keys.size };
  }

  return {
    landing: size(['landing-route']),
    dashboard: size(['account-layout', 'dashboard-route']),
    trackings: size(['account-layout', 'trackings-route']),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = bundleSizes();
  for (const [name, s] of Object.entries(sizes)) console.log(`${name}: ${(s.bytes / 1024).toFixed(1)} KB gzip JS in ${s.files} files`);
  if (process.argv.includes('--check') && sizes.landing.bytes > 200 * 1024) {
    console.error('landing initial JS is over the 200 KB budget');
    process.exit(1);
  }
}
