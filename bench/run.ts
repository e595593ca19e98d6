// `npm run bench`: runs every bench/*.bench.ts and writes bench/results/latest.json and README.md.
// A bench module exports `default async function (): Promise<BenchResult[]>` (bench/lib/types.ts); modules
// that export named `bench*` functions returning { name, ...numbers } are accepted too.
// `npm run bench -- trackings` runs only the modules whose file name contains "trackings".
// BENCH_OUT_DIR=/some/dir writes latest.json, README.md and shares.svg there instead (a run for a decision's figures
// that must not replace the committed results).
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchResult } from './lib/types.ts';
import { shareChart } from './lib/chart.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);

function normalize(file: string, r: unknown): BenchResult[] {
  const list = Array.isArray(r) ? r : [r];
  return list.map((item) => {
    const o = (item ?? {}) as Record<string, unknown>;
    if (o.metrics && typeof o.metrics === 'object') return o as unknown as BenchResult;
    const metrics: Record<string, number | string> = {};
    for (const [k, v] of Object.entries(o))
      if (k !== 'name' && k !== 'note' && (typeof v === 'number' || typeof v === 'string')) metrics[k] = v;
    return { name: String(o.name ?? file), metrics, ...(o.note ? { note: String(o.note) } : {}) };
  });
}

const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const report: Array<{ file: string; seconds: number; results: BenchResult[]; error?: string; when?: string }> = [];
const started = Date.now();
for (const file of files) {
  const t0 = performance.now();
  console.error(`[bench] ${file}`);
  try {
    const mod = (await import(pathToFileURL(path.join(here, file)).href)) as Record<string, unknown>;
    const fns =
      typeof mod.default === 'function'
        ? [mod.default]
        : Object.entries(mod)
            .filter(([k, v]) => typeof v === 'function' && /^bench/.test(k))
            .map(([, v]) => v);
    const results: BenchResult[] = [];
    for (const fn of fns) results.push(...normalize(file, await (fn as () => Promise<unknown>)()));
    report.push({ file, seconds: Math.round((performance.now() - t0) / 1000), results });
  } catch (err) {
    console.error(`[bench] ${file} failed`, err);
    report.push({ file, seconds: Math.round((performance.now() - t0) / 1000), results: [], error: String((err as Error)?.stack ?? err) });
  }
}

// A filtered run (`npm run bench -- web`) replaces only the benches it ran; the others keep their last results.
type FileReport = (typeof report)[number];
const outDir = process.env.BENCH_OUT_DIR ? path.resolve(process.env.BENCH_OUT_DIR) : path.join(here, 'results');
const outFile = path.join(outDir, 'latest.json');
if (only.length && existsSync(outFile)) {
  const previous = JSON.parse(readFileSync(outFile, 'utf8')) as { when: string; benches: FileReport[] };
  const ran = new Set(report.map((r) => r.file));
  for (const b of previous.benches) if (!ran.has(b.file)) report.push({ ...b, when: b.when ?? previous.when });
  report.sort((a, b) => a.file.localeCompare(b.file));
}
for (const r of report) r.when ??= new Date(started).toISOString();

const machine = {
  node: process.version,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? '',
  memoryGb: Math.round(os.totalmem() / 2 ** 30),
  platform: `${os.platform()} ${os.release()}`,
};
mkdirSync(outDir, { recursive: true });
writeFileSync(
  path.join(outDir, 'latest.json'),
  JSON.stringify(
    { when: new Date(started).toISOString(), totalSeconds: Math.round((Date.now() - started) / 1000), machine, benches: report },
    null,
    2,
  ) + '\n',
);

const esc = (s: unknown) => String(s).replace(/\|/g, '\\|');
const md: string[] = [
  '# Benchmark results',
  '',
  `Run ${new Date(started).toISOString()} with \`npm run bench\` on Node ${machine.node}, ${machine.cpus} CPU (${machine.cpuModel}), ${machine.memoryGb} GB. Total ${Math.round((Date.now() - started) / 1000)} s.`,
  'Figures from one run on one machine: compare ratios (to the baseline measured in the same run), not absolutes. Raw data: latest.json.',
  '',
];
const chart = shareChart(report);
if (chart) {
  writeFileSync(path.join(outDir, 'shares.svg'), chart);
  md.push('![Each hot path as a share of its baseline in the same run](shares.svg)', '');
}
for (const r of report) {
  md.push(`## ${r.file} (${r.seconds} s, run ${r.when})`, '');
  if (r.error) md.push('Failed:', '', '```', r.error.split('\n').slice(0, 6).join('\n'), '```', '');
  const groups = new Map<string, BenchResult[]>();
  for (const x of r.results) groups.set(x.name, [...(groups.get(x.name) ?? []), x]);
  for (const [name, items] of groups) {
    md.push(`### ${name}`, '');
    const cols = [...new Set(items.flatMap((i) => Object.keys(i.metrics)))];
    if (cols.length) {
      md.push(`| setup | ${cols.map(esc).join(' | ')} |`, `|---|${cols.map(() => '---:').join('|')}|`);
      for (const i of items) md.push(`| ${esc(i.setup ?? '')} | ${cols.map((c) => esc(i.metrics[c] ?? '')).join(' | ')} |`);
      md.push('');
    }
    for (const i of items) if (i.note) md.push(`- ${i.setup ? `${i.setup}: ` : ''}${i.note}`);
    md.push('');
  }
}
writeFileSync(path.join(outDir, 'README.md'), md.join('\n'));
console.error(
  `[bench] wrote ${path.relative(process.cwd(), outDir) || '.'}/latest.json and README.md in ${Math.round((Date.now() - started) / 1000)} s`,
);
