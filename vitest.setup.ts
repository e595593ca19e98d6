// Loaded before every test file of every project: a console.error or console.warn that a test did not
// expect fails it, so a swallowed error that only got logged does not pass unseen. A test that expects one
// says so with allowConsole(/pattern/) (for that test only).
import { format } from 'node:util';
import { afterAll, afterEach } from 'vitest';

// The state lives on globalThis and console is wrapped once per process: a worker that runs several files
// without isolation evaluates this file again for each one, and a second wrapper would report each line twice.
const state = ((globalThis as Record<symbol, unknown>)[Symbol.for('shiptrail.console')] ??= {
  allowed: [] as RegExp[],
  unexpected: [] as string[],
  wrapped: false,
}) as { allowed: RegExp[]; unexpected: string[]; wrapped: boolean };
const { allowed, unexpected } = state;

/** Let console.error/warn lines matching `pattern` through, until the end of the current test. */
export function allowConsole(pattern: RegExp): void {
  allowed.push(pattern);
}

if (!state.wrapped) {
  state.wrapped = true;
  for (const level of ['error', 'warn'] as const) {
    const original = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      const text = format(...args);
      if (!allowed.some((p) => p.test(text))) unexpected.push(`console.${level}: ${text}`);
      original(...args);
    };
  }
}

function check(when: string) {
  const lines = unexpected.splice(0);
  if (lines.length) throw new Error(`unexpected console output ${when}:\n${lines.join('\n')}`);
}

afterEach(() => {
  allowed.length = 0;
  check('during this test');
});
// Output from hooks and from work still running after the last test.
afterAll(() => check('in this file outside its tests'));
