import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EMBEDDED_ENV, EMBEDDED_NODE_FLAGS, missingSettings } from '../../src/process-memory.ts';

// Decision 159: the embedded default starts with a small young generation and bounded malloc arenas, settings read
// only when a process starts; main.ts replaces a process started without them.
const here = path.dirname(fileURLToPath(import.meta.url));
const run = (env: Record<string, string>, args: string[] = []) => {
  const r = spawnSync(process.execPath, [path.join(here, 'print-settings.ts'), ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return { childPid: r.pid, ...(JSON.parse(r.stdout) as { pid: number; execArgv: string[]; argv: string[]; env: Record<string, string> }) };
};

describe('the embedded default process settings', () => {
  it('replaces a process started without them by one with them: same pid, same arguments', () => {
    const r = run({}, ['--role', 'all']);
    expect(r.pid).toBe(r.childPid);
    expect(r.execArgv).toEqual(expect.arrayContaining([...EMBEDDED_NODE_FLAGS]));
    expect(r.env).toEqual({ MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(r.argv).toEqual(['--role', 'all']);
  }, 120_000);

  it('leaves a server on PostgreSQL with Node and glibc defaults', () => {
    const r = run({ DATABASE_URL: 'postgres://localhost/x' });
    expect(r.execArgv).toEqual([]);
    expect(r.env).toEqual({});
  }, 120_000);

  it('keeps what the operator set, and asks for nothing once all is set', () => {
    expect(missingSettings({}, [])).toEqual({ flags: [...EMBEDDED_NODE_FLAGS], env: { ...EMBEDDED_ENV } });
    expect(missingSettings({ MALLOC_ARENA_MAX: '4', NODE_OPTIONS: '--max-semi-space-size=16' }, [])).toEqual({
      flags: [],
      env: { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' },
    });
    expect(missingSettings({ ...EMBEDDED_ENV }, ['--max_semi_space_size=8'])).toBeNull();
    expect(missingSettings({ SHIPTRAIL_PROCESS_SETTINGS: '1' }, [])).toBeNull();
  });

  it('are applied by main.ts before it loads the server', () => {
    const main = readFileSync(path.join(here, '../../src/main.ts'), 'utf8');
    expect(main.indexOf('applyProcessSettings();')).toBeGreaterThan(0);
    expect(main.indexOf('applyProcessSettings();')).toBeLessThan(main.indexOf('await import('));
  });
});
