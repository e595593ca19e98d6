// vitest.setup.ts refuses a file in which two tests have one full name (the review's D1: two it.each rows of
// hostile-input.test.ts rendered one title, and a count by name showed the first one failing as "0 failed").
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const examples = path.join(here, 'fixtures', 'count-results', 'examples');
const repo = path.resolve(here, '..');

function vitest(example) {
  const env = {
    ...process.env,
    PATH: `${path.join(repo, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`,
    EXAMPLE: example,
    WITH_SETUP: '1',
    FORCE_COLOR: '0',
  };
  delete env.VITEST_JSON;
  const r = spawnSync(
    path.join(repo, 'node_modules', '.bin', 'vitest'),
    ['run', '--config', 'vitest.config.mjs', '--reporter', 'default'],
    { cwd: examples, env, encoding: 'utf8' },
  );
  // eslint-disable-next-line no-control-regex
  return { code: r.status, out: `${r.stdout}${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '') };
}

// Each test starts a Vitest run: seconds on a busy machine, so a generous timeout.
describe('the duplicate-name check', { timeout: 120_000 }, () => {
  it('refuses a file whose it.each rows render one title, naming it', () => {
    const r = vitest('duplicate-names.example.mjs');
    expect(r.code).toBe(1);
    expect(r.out).toContain('two tests in this file have the same name; rename one: "profile > POST: 400 with a clear message"');
    // Refused before any test ran.
    expect(r.out).toMatch(/Tests\s+3 skipped/);
  });

  it('lets a file of distinct names run', () => {
    const r = vitest('passing.example.mjs');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Tests\s+2 passed/);
  });
});
