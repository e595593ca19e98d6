import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSolomon } from './solomon.ts';
import { solomonText } from './test-helpers.ts';
import { verifySolomon } from './verify.ts';

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'routing-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rows = [
  [0, 35, 35, 0, 0, 230, 0],
  [1, 41, 49, 10, 0, 204, 10],
  [2, 35, 17, 7, 0, 202, 10],
  [3, 55, 45, 13, 0, 197, 10],
  [4, 55, 20, 19, 149, 159, 10],
  [5, 15, 30, 26, 0, 199, 10],
  [6, 25, 30, 3, 99, 109, 10],
  [7, 20, 50, 5, 0, 198, 10],
  [8, 10, 43, 9, 95, 105, 10],
];

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

function runCli(...args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 30_000 });
}

describe('routing:solve', () => {
  it('prints one JSON line with vehicles, distance, routes and seconds, and the routes are feasible', () => {
    const text = solomonText(4, 50, rows);
    const r = runCli('--format', 'solomon', write('ok.txt', text), '--seconds', '1', '--seed', '3');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['vehicles', 'distance', 'routes', 'seconds']);
    const routes = out.routes as number[][];
    const verdict = verifySolomon(parseSolomon(text), routes, out.distance as number);
    expect(verdict.errors).toEqual([]);
    expect(out.vehicles).toBe(verdict.vehicles);
    expect(typeof out.seconds).toBe('number');
    // The solver stops 0.4 s before the 1 s limit; the bound here is loose on purpose (a loaded machine).
    expect(out.seconds as number).toBeLessThan(3);
  });

  const bad: [string, string | null, RegExp][] = [
    ['a missing file', null, /cannot read .*missing\.txt: no such file/],
    ['a bad header', solomonText(4, 50, rows).replace('VEHICLE', 'VEHICLES'), /bad header: no VEHICLE section/],
    ['a non-numeric field', solomonText(4, 50, rows).replace('     149', '     1x9'), /line \d+: READY TIME is not a number: "1x9"/],
    [
      'a wrong column count',
      solomonText(4, 50, rows).replace(/\n( +6 .*)\n/, (_, row: string) => `\n${row} 7\n`),
      /line \d+: expected 7 columns .*found 8/,
    ],
    ['no depot', solomonText(4, 50, rows.slice(1)), /no depot/],
    ['an empty file', '', /the file is empty/],
  ];
  for (const [what, text, message] of bad) {
    it(`exits 2 with one line on stderr for ${what}`, () => {
      const file = text === null ? path.join(dir, 'missing.txt') : write(`${what.replace(/\W+/g, '-')}.txt`, text);
      const r = runCli('--format', 'solomon', file, '--seconds', '1');
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^routing:solve: /);
      expect(lines[0]).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it('exits 2 for a bad command line', () => {
    for (const args of [[], ['--format', 'tsplib', 'x'], ['--format', 'solomon'], ['--format', 'solomon', 'x', '--seconds', 'soon']]) {
      const r = runCli(...args);
      expect(r.status).toBe(2);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });
});
