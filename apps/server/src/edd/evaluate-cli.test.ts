// Spawns `edd:evaluate` as a user would: one JSON line on success, one line on stderr and exit code 2 for a
// malformed file.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
const cli = path.join(root, 'apps', 'server', 'src', 'edd', 'evaluate-cli.ts');
const dir = mkdtempSync(path.join(os.tmpdir(), 'edd-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEADER = 'shipped_at,delivered_at,carrier,service,origin_postal,destination_postal,carrier_estimate';

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

function run(...args: string[]) {
  const r = spawnSync(tsx, [cli, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function expectRefusal(r: ReturnType<typeof run>, words: RegExp) {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(words);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

// Weekdays of March 2026, two business days each, columns in another order than usual.
const rows = ['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12'];
const deliveredOn: Record<string, string> = {
  '2026-03-02': '2026-03-04',
  '2026-03-03': '2026-03-05',
  '2026-03-04': '2026-03-06',
  '2026-03-05': '2026-03-09',
  '2026-03-09': '2026-03-11',
  '2026-03-10': '2026-03-12',
  '2026-03-11': '2026-03-13',
  '2026-03-12': '2026-03-16',
};
const good = [
  'carrier_estimate,carrier,service,shipped_at,delivered_at,origin_postal,destination_postal',
  ...rows.map((d, i) => `${i % 2 ? '' : deliveredOn[d]},ups,ground,${d}T10:00:00Z,${deliveredOn[d]} 16:00:00,10001,90001`),
].join('\n');

describe('edd:evaluate', () => {
  it('prints one JSON line with our figures and the baselines', () => {
    const r = run(file('good.csv', `${good}\n`));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    const out = JSON.parse(r.stdout);
    const figures = ['n', 'exactDay', 'withinWindow', 'meanWindowDays', 'maeDays', 'lateFlagPrecision', 'lateFlagRecall'];
    for (const key of figures) expect(out).toHaveProperty(key);
    for (const b of ['carrierEstimate', 'globalMedian', 'laneWeekdayMedian'])
      for (const key of figures) expect(out.baselines[b]).toHaveProperty(key);
    // Rows 1 and 3 have no history yet but an estimate: the carrier's date; row 2 has neither, so no prediction.
    // Two business days every time: exact, across the weekend too, where the calendar-day medians are not.
    expect(out).toMatchObject({
      rows: 8,
      n: 7,
      exactDay: 1,
      withinWindow: 1,
      meanWindowDays: 1,
      maeDays: 0,
      lateFlagPrecision: null,
      lateFlagRecall: null,
    });
    expect(out.baselines.carrierEstimate).toMatchObject({ n: 4, exactDay: 1, meanWindowDays: 1 });
    expect(out.baselines.globalMedian.n).toBe(5);
    expect(out.baselines.laneWeekdayMedian.exactDay).toBeLessThan(1);
  });

  it('runs from the project root as npm run edd:evaluate', () => {
    const r = spawnSync('npm', ['run', '--silent', 'edd:evaluate', '--', file('npm.csv', good)], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).rows).toBe(8);
  });

  it('refuses a missing file', () => {
    expectRefusal(run(path.join(dir, 'nope.csv')), /nope\.csv: cannot read the file \(ENOENT\)/);
  });

  it('refuses a file without a column', () => {
    expectRefusal(
      run(file('no-column.csv', 'shipped_at,delivered_at,carrier,service,origin_postal,destination_postal\n')),
      /missing column carrier_estimate/,
    );
    expectRefusal(run(file('empty.csv', '')), /empty \(no header\)/);
  });

  it('refuses a bad date with its line', () => {
    const text = `${HEADER}\n2026-03-02T10:00:00Z,2026-03-04T10:00:00Z,ups,ground,10001,90001,\n2026-03-03T10:00:00Z,03/05/2026,ups,ground,10001,90001,\n`;
    expectRefusal(run(file('bad-date.csv', text)), /line 3: delivered_at is not an ISO 8601 date or date-time: "03\/05\/2026"/);
    expectRefusal(
      run(file('bad-estimate.csv', `${HEADER}\n2026-03-02T10:00:00Z,2026-03-04T10:00:00Z,ups,ground,10001,90001,soon\n`)),
      /line 2: carrier_estimate/,
    );
  });

  it('refuses a delivery before its shipment', () => {
    const text = `${HEADER}\n2026-03-04T10:00:00Z,2026-03-02T10:00:00Z,ups,ground,10001,90001,\n`;
    expectRefusal(run(file('backwards.csv', text)), /line 2: delivered_at 2026-03-02T10:00:00Z is before shipped_at 2026-03-04T10:00:00Z/);
  });

  it('refuses rows out of shipped_at order and a broken CSV', () => {
    const text = `${HEADER}\n2026-03-04T10:00:00Z,2026-03-06T10:00:00Z,ups,ground,10001,90001,\n2026-03-02T10:00:00Z,2026-03-04T10:00:00Z,ups,ground,10001,90001,\n`;
    expectRefusal(run(file('order.csv', text)), /line 3: rows are not in shipped_at order/);
    expectRefusal(run(file('ragged.csv', `${HEADER}\n2026-03-04T10:00:00Z,2026-03-06T10:00:00Z,ups\n`)), /not a valid CSV/);
  });
});
