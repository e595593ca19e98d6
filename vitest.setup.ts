// Loaded before every test file of every project: a console.error or console.warn that a test did not
// expect fails it, so a swallowed error that only got logged does not pass unseen. A test that expects one
// says so with allowConsole(/pattern/) (for that test only).
import { format } from 'node:util';
import { afterAll, afterEach, beforeAll } from 'vitest';

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

// Two tests of one full name in one file are refused before the file runs: a report, a re-run by name (-t) and
// a reader cannot tell them apart, and a counter keyed by name once showed one failing as "0 failed" (issue 27).
// An it.each whose rows render one title needs what differs in the title (%j of the row, say).
type Node = { type: string; name: string; tasks?: Node[] };
// The hook's first argument is Vitest's fixture context, which it insists on seeing destructured.
// eslint-disable-next-line no-empty-pattern
beforeAll(({}, file) => {
  const seen = new Set<string>();
  const twice = new Set<string>();
  const walk = (tasks: readonly Node[], prefix: string[]) => {
    for (const t of tasks) {
      const name = [...prefix, t.name];
      if (t.type === 'suite') walk(t.tasks ?? [], name);
      else {
        const full = name.join(' > ');
        if (seen.has(full)) twice.add(full);
        seen.add(full);
      }
    }
  };
  walk((file as unknown as Node).tasks ?? [], []);
  if (twice.size) throw new Error(`two tests in this file have the same name; rename one: ${[...twice].map((n) => `"${n}"`).join(', ')}`);
});
