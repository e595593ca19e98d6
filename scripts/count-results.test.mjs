// The closing line of CI: distinct tests once, and every failure counted, including those outside a test.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');

function run(fixture, reports = []) {
  try {
    const out = execFileSync(
      process.execPath,
      [path.join(here, 'count-results.mjs'), path.join(here, 'fixtures', 'count-results', fixture), ...reports],
      { cwd: repo, encoding: 'utf8' },
    );
    return { code: 0, lines: out.trim().split('\n') };
  } catch (e) {
    return { code: e.status, lines: String(e.stdout).trim().split('\n') };
  }
}

describe('count-results.mjs', () => {
  it('counts the server tests of both database passes once, and prints each pass', () => {
    const r = run('green');
    expect(r.code).toBe(0);
    expect(r.lines).toContain('PGlite: 3 passed, 0 failed');
    expect(r.lines).toContain('PostgreSQL: 2 passed, 0 failed');
    expect(r.lines).toContain('E2E: 2 passed, 0 failed');
    // 3 + 2 + 2 tests ran, but the 2 PostgreSQL ones are the PGlite pass's server tests again.
    expect(r.lines.at(-1)).toBe('5 passed, 0 failed');
  });

  it('counts a failing beforeAll, a file that throws on load, a test failing in one pass and a flaky test as failures', () => {
    const r = run('hidden-failures');
    expect(r.code).toBe(1);
    expect(r.lines).toContain('PGlite: 3 passed, 2 failed, 2 skipped');
    expect(r.lines.some((l) => l.includes('hook.test.ts: Error: database is down'))).toBe(true);
    expect(r.lines.some((l) => l.includes('load.test.ts: Failed to load'))).toBe(true);
    expect(r.lines).toContain('PostgreSQL: 1 passed, 1 failed');
    expect(r.lines).toContain('E2E: 1 passed, 1 failed');
    // Passed everywhere: 'adds', 'pages', 'signs up'. Failed: 'lists' (on PostgreSQL only), the flaky E2E
    // test, the file whose hook threw and the file that did not load.
    expect(r.lines.at(-1)).toBe('3 passed, 4 failed');
  });

  it('counts a failing test inside a describe once, not again as a failure outside its tests', () => {
    const r = run('describe-failure');
    expect(r.code).toBe(1);
    expect(r.lines).toContain('PostgreSQL: 1 passed, 1 failed');
    expect(r.lines.some((l) => l.includes('outside'))).toBe(false);
    // The failing test is named under its pass, so the tail of a CI log says which one it was.
    expect(r.lines.filter((l) => l.startsWith('  failed: '))).toHaveLength(1);
    expect(r.lines.at(-1)).toBe('4 passed, 1 failed');
  });

  it('counts a missing report as a failure', () => {
    const r = run('missing');
    expect(r.code).toBe(1);
    expect(r.lines.some((l) => /PostgreSQL: report postgres\.json is missing/.test(l))).toBe(true);
    expect(r.lines.at(-1)).toBe('5 passed, 1 failed');
  });

  // The recorded-* folders hold real runner output of the tiny examples in fixtures/count-results/examples,
  // written by fixtures/count-results/record.mjs (Vitest with CI's reporter, Playwright's JSON reporter).
  describe('over recorded runner output', () => {
    it('counts two tests that render one title as two: the first failing is not hidden by the second passing', () => {
      const r = run('recorded-duplicate-names');
      expect(r.code).toBe(1);
      expect(r.lines).toContain('PGlite: 2 passed, 1 failed');
      expect(r.lines.some((l) => l.includes('counted apart') && l.endsWith('profile POST: 400 with a clear message [#2]'))).toBe(true);
      // 2 + 2 + 2 passed, and the first of the two rows failed (keyed by name alone: "5 passed, 0 failed").
      expect(r.lines.at(-1)).toBe('6 passed, 1 failed');
    });

    it("counts an error thrown outside any test, from the errors our reporter adds to Vitest's JSON", () => {
      const r = run('recorded-unhandled-error');
      expect(r.code).toBe(1);
      expect(r.lines).toContain('PGlite: 2 passed, 1 failed');
      expect(r.lines).toContain('  failed outside a test: an error outside the tests: thrown by a timer after its test');
      expect(r.lines.at(-1)).toBe('6 passed, 1 failed');
    });

    it("counts a runner that exited non-zero while its report shows no failure (Vitest's own JSON, success: true)", () => {
      const r = run('recorded-exit-code');
      expect(r.code).toBe(1);
      expect(r.lines).toContain('PGlite: 2 passed, 1 failed');
      expect(r.lines).toContain('  failed outside a test: the runner exited with code 1 but its report shows no failure (see its output)');
      expect(r.lines.at(-1)).toBe('6 passed, 1 failed');
    });

    it('counts a pass that ran no tests as a failure, beside green passes', () => {
      const r = run('recorded-empty-pass');
      expect(r.code).toBe(1);
      expect(r.lines).toContain('PGlite: 0 passed, 1 failed');
      expect(r.lines).toContain('  failed outside a test: the pass ran no tests');
      expect(r.lines.at(-1)).toBe('4 passed, 1 failed');
    });

    it('counts a Playwright spec that does not load, and a Playwright pass allowed to find no test', () => {
      const r = run('recorded-playwright', ['pglite.json', 'e2e.json', 'e2e-empty.json']);
      expect(r.code).toBe(1);
      expect(r.lines).toContain('E2E: 0 passed, 1 failed');
      expect(r.lines).toContain('  failed outside a test: Error: the spec does not load');
      expect(r.lines).toContain('e2e-empty: 0 passed, 1 failed');
      expect(r.lines.at(-1)).toBe('2 passed, 2 failed');
    });
  });
});
