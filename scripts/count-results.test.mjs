// The closing line of CI: distinct tests once, and every failure counted, including those outside a test.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');

function run(fixture) {
  try {
    const out = execFileSync(process.execPath, [path.join(here, 'count-results.mjs'), path.join(here, 'fixtures', 'count-results', fixture)], { cwd: repo, encoding: 'utf8' });
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
    expect(r.lines.at(-1)).toBe('4 passed, 1 failed');
  });

  it('counts a missing report as a failure', () => {
    const r = run('missing');
    expect(r.code).toBe(1);
    expect(r.lines.some((l) => /PostgreSQL: report postgres\.json is missing/.test(l))).toBe(true);
    expect(r.lines.at(-1)).toBe('5 passed, 1 failed');
  });
});
