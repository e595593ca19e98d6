// scripts/mutation.mjs names what it mutates by function, found in the source when a run starts (issue 27: the
// line ranges written by hand had moved by up to 40 lines a day later, so a run would have mutated other code).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MODULES, dropTimeouts, resolveMutate, summarise } from './mutation.mjs';

const source = [
  "import x from 'y';", //                                   1
  '/** A doc comment, left out. */', //                      2
  'export async function first(a: number) {', //             3
  '  return a + 1;', //                                      4
  '}', //                                                    5
  'const second = (b: string) =>', //                        6
  '  b.trim();', //                                          7
  'function third() {}', //                                  8
].join('\n');

describe('resolveMutate', () => {
  it('gives the lines of each named top-level function or const, in the order named', () => {
    expect(resolveMutate('src/f.ts#third,first,second', () => source)).toEqual(['src/f.ts:8-8', 'src/f.ts:3-5', 'src/f.ts:6-7']);
  });
  it("passes Stryker's own file and range entries through", () => {
    expect(resolveMutate('src/f.ts:3-5', () => source)).toEqual(['src/f.ts:3-5']);
    expect(resolveMutate('src/f.ts', () => source)).toEqual(['src/f.ts']);
  });
  it('refuses a name the file does not declare at the top level', () => {
    expect(() => resolveMutate('src/f.ts#fourth', () => source)).toThrow('src/f.ts declares no top-level function or const fourth');
  });
  it("finds every function every module names in today's source", () => {
    const entries = Object.values(MODULES).flatMap((parts) => parts.flatMap((p) => p.mutate));
    for (const e of entries) expect(resolveMutate(e).length, e).toBeGreaterThan(0);
  });
});

// Running one part of a module must not drop the others: reports/ is not committed, so a part run in an earlier
// session has only its entry in bench/results/mutation.json (issue 27: delivery-1's run would have erased
// notifications-2 and engine-1).
// Each case starts node on the script (which loads TypeScript): seconds on a loaded machine, not a failure.
describe('the merge into bench/results/mutation.json', { timeout: 120_000 }, () => {
  const script = fileURLToPath(new URL('./mutation.mjs', import.meta.url));
  const fanout = 'apps/server/src/modules/notifications/fanout.ts';
  const mutant = (id, line, column, status, replacement = 'true') => ({
    id: String(id),
    mutatorName: 'ConditionalExpression',
    replacement,
    location: { start: { line, column }, end: { line, column: column + 4 } },
    status,
  });
  // notifications as an earlier session wrote it: part 1 complete, part 2 stopped; survivors without their part.
  const earlier = {
    modules: {
      notifications: {
        score: 88.31,
        tested: 77,
        killed: 68,
        survived: 9,
        timeout: 0,
        noCoverage: 0,
        compileErrors: 0,
        runtimeErrors: 0,
        ignored: 0,
        complete: false,
        parts: [
          {
            part: 'notifications-1',
            mutate: [`${fanout}:51-82`],
            tests: ['a.test.ts'],
            run: 'complete',
            score: 96.23,
            tested: 53,
            killed: 51,
            survived: 2,
            timeout: 0,
            noCoverage: 0,
            compileErrors: 0,
            runtimeErrors: 0,
            ignored: 0,
          },
          {
            part: 'notifications-2',
            mutate: [`${fanout}:164-204`],
            tests: ['b.test.ts'],
            run: 'stopped',
            score: 70.83,
            tested: 24,
            killed: 17,
            survived: 7,
            timeout: 0,
            noCoverage: 0,
            compileErrors: 0,
            runtimeErrors: 0,
            ignored: 0,
          },
        ],
        date: '2026-11-26T23:23:49.283Z',
        seconds: 329,
        survivors: [
          { status: 'Survived', at: `${fanout}:52:59`, mutator: 'StringLiteral', replacement: '"Stryker was here!"', why: 'kept reason' },
          { status: 'Survived', at: `${fanout}:64:35`, mutator: 'StringLiteral', replacement: '""', why: null },
          { status: 'Survived', at: `${fanout}:170:15`, mutator: 'ConditionalExpression', replacement: 'true', why: 'old' },
        ],
      },
      idempotency: { score: 91.46, tested: 82, killed: 74, survived: 7, timeout: 1, parts: [], survivors: [] },
    },
  };
  let dir;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mutation-merge-'));
    mkdirSync(path.join(dir, 'bench/results'), { recursive: true });
    writeFileSync(path.join(dir, 'bench/results/mutation.json'), JSON.stringify(earlier));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const mergeOnly = () => {
    execFileSync(process.execPath, [script, '--merge-only'], { cwd: dir, stdio: 'pipe' });
    return JSON.parse(readFileSync(path.join(dir, 'bench/results/mutation.json'), 'utf8')).modules;
  };

  it('keeps a part with no report on disk and sums the module from its parts', () => {
    // notifications-2 ran to the end this time: 3 killed, 1 survived.
    const report = path.join(dir, 'reports/mutation/notifications-2');
    mkdirSync(report, { recursive: true });
    const mutants = [
      mutant(1, 166, 7, 'Killed'),
      mutant(2, 168, 17, 'Killed'),
      mutant(3, 182, 15, 'Survived'),
      mutant(4, 190, 3, 'Timeout'),
    ];
    writeFileSync(path.join(report, 'mutation.json'), JSON.stringify({ files: { [fanout]: { mutants } } }));
    const { notifications, idempotency } = mergeOnly();
    expect(notifications.parts.map((p) => [p.part, p.run, p.score, p.tested])).toEqual([
      ['notifications-1', 'complete', 96.23, 53],
      ['notifications-2', 'complete', 75, 4],
    ]);
    expect({ ...notifications, parts: undefined, survivors: undefined }).toMatchObject({
      tested: 57,
      killed: 53,
      timeout: 1,
      survived: 3,
      score: 94.74, // (53 + 1) / 57
      scoreKilledOnly: 92.98, // 53 / 57: the timeout as undetected
      complete: true,
    });
    // The timeout was not tested again alone (no retest file): it is listed so.
    expect(notifications.timeouts).toEqual([
      { part: 'notifications-2', at: `${fanout}:190:3`, mutator: 'ConditionalExpression', replacement: 'true', retest: null },
    ]);
    // Part 1's survivors stay with their reasons; part 2's are this run's, its reason from EXPLAINED.
    expect(notifications.survivors.map((s) => [s.part, s.at, s.why?.slice(0, 11) ?? null])).toEqual([
      ['notifications-1', `${fanout}:52:59`, 'Equivalent:'],
      ['notifications-1', `${fanout}:64:35`, 'Equivalent:'],
      ['notifications-2', `${fanout}:182:15`, 'Equivalent:'],
    ]);
    expect(idempotency.score).toBe(91.46);
  });

  it('writes a stopped part from its event files and keeps the other part', () => {
    const events = path.join(dir, 'reports/mutation/notifications-1/events');
    mkdirSync(events, { recursive: true });
    [mutant(1, 60, 3, 'Killed'), mutant(2, 61, 3, 'Survived', 'false')].forEach((m, i) =>
      writeFileSync(path.join(events, `${i}-onMutantTested.json`), JSON.stringify({ ...m, fileName: path.join(dir, fanout) })),
    );
    const { notifications } = mergeOnly();
    expect(notifications.parts.map((p) => [p.part, p.run, p.tested])).toEqual([
      ['notifications-1', 'stopped', 2],
      ['notifications-2', 'stopped', 24],
    ]);
    expect(notifications).toMatchObject({ tested: 26, killed: 18, survived: 8, score: 69.23, complete: false });
    expect(notifications.survivors.map((s) => [s.part, s.at])).toEqual([
      ['notifications-1', `${fanout}:61:3`],
      ['notifications-2', `${fanout}:170:15`],
    ]);
  });
  it('writes the database the part ran on, and keeps it when the part is not run', () => {
    const report = path.join(dir, 'reports/mutation/notifications-2');
    mkdirSync(report, { recursive: true });
    writeFileSync(path.join(report, 'mutation.json'), JSON.stringify({ files: { [fanout]: { mutants: [mutant(1, 166, 7, 'Killed')] } } }));
    writeFileSync(path.join(report, 'run.json'), JSON.stringify({ database: 'postgresql' }));
    const { notifications } = mergeOnly();
    expect(notifications.parts.map((p) => p.database)).toEqual([undefined, 'postgresql']);
    rmSync(path.join(dir, 'reports'), { recursive: true });
    expect(mergeOnly().notifications.parts[1].database).toBe('postgresql');
  });
  it('lists the timeouts tested again alone with their status then, and keeps them when the part is not run', () => {
    const report = path.join(dir, 'reports/mutation/notifications-2');
    mkdirSync(report, { recursive: true });
    // Both timed out in the full run; tested again alone, one was killed and one timed out again.
    const mutants = [mutant(1, 166, 7, 'Killed'), mutant(2, 190, 3, 'Killed'), mutant(3, 191, 3, 'Timeout')];
    writeFileSync(path.join(report, 'mutation.json'), JSON.stringify({ files: { [fanout]: { mutants } } }));
    const date = '2026-11-27T16:00:00.000Z';
    const again = [`${fanout}:190:3 true`, `${fanout}:191:3 true`];
    writeFileSync(path.join(report, 'timeouts-retested.json'), JSON.stringify({ date, mutants: again }));
    const { notifications } = mergeOnly();
    const part2 = notifications.parts[1];
    expect(part2).toMatchObject({ tested: 3, killed: 2, timeout: 1, score: 100, scoreKilledOnly: 66.67, timeoutsRetested: 2 });
    expect(notifications.timeouts.map((t) => [t.at, t.retest])).toEqual([
      [`${fanout}:190:3`, 'Killed'],
      [`${fanout}:191:3`, 'Timeout'],
    ]);
    // A later merge without the reports keeps the part, its timeouts and both scores.
    rmSync(path.join(dir, 'reports'), { recursive: true });
    const again2 = mergeOnly().notifications;
    expect(again2.timeouts).toEqual(notifications.timeouts);
    expect(again2.parts[1]).toMatchObject({ scoreKilledOnly: 66.67, timeoutsRetested: 2 });
    expect(again2.scoreKilledOnly).toBe(notifications.scoreKilledOnly);
  });

  it('gives the score without timeouts of a part kept from an older results file that did not have it', () => {
    const { notifications } = mergeOnly();
    // The earlier file had no scoreKilledOnly: part 1 is 51 killed of 53, the module 68 of 77.
    expect(notifications.parts[0]).toMatchObject({ score: 96.23, scoreKilledOnly: 96.23 });
    expect(notifications).toMatchObject({ score: 88.31, scoreKilledOnly: 88.31, timeouts: [] });
    expect(summarise([mutant(1, 1, 1, 'Killed'), mutant(2, 1, 2, 'Timeout')])).toMatchObject({ score: 100, scoreKilledOnly: 50 });
  });
});

describe('dropTimeouts', () => {
  it('takes the timed-out mutants out of an incremental report, so the next run tests only them', () => {
    const at = (line, status) => ({ id: String(line), replacement: 'false', location: { start: { line, column: 3 } }, status });
    const inc = {
      files: { 'a.ts': { mutants: [at(1, 'Killed'), at(2, 'Timeout'), at(3, 'Survived')] }, 'b.ts': { mutants: [at(9, 'Timeout')] } },
    };
    expect(dropTimeouts(inc)).toEqual(['a.ts:2:3 false', 'b.ts:9:3 false']);
    expect(Object.values(inc.files).flatMap((f) => f.mutants.map((m) => m.status))).toEqual(['Killed', 'Survived']);
  });
});
