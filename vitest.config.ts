import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import os from 'node:os';

// An unexpected console.error or console.warn fails the test; every project loads it.
const setupFiles = [fileURLToPath(new URL('./vitest.setup.ts', import.meta.url))];

// Server files mostly wait on real time (queue polls, loopback servers, quiet windows), so several of them
// share two cores well: they run WORKERS at a time. Files that bound a latency against the machine's idle
// figure (`*.timed.test.ts`) and the real-process set (`*.slow.test.ts`) run afterwards, one at a time, with
// the cores to themselves (`sequence.groupOrder`); a second file beside a latency bound made it fail on
// PostgreSQL in CI (decision 025). Three at a time measured as fast as four on 2 cores.
const WORKERS = Math.max(3, os.availableParallelism() + 1);

// The light projects (contract, routing, scripts, web) run in the parallel group beside the server files. Without a
// maxWorkers of their own, Vitest gives them its default (cores - 1, so 1 on 2 cores) and puts every one of their 49
// files in a sequential group after the slow set, one process at a time on one core: about 30 s at the end of a quiet
// run (decision 183). A project of the parallel group must have the same maxWorkers as the server's, or Vitest refuses.
const parallel = { maxWorkers: WORKERS };

const server = {
  setupFiles,
  root: 'apps/server',
  // Migrates one database for the whole run; each test file starts from a copy of it.
  globalSetup: ['test/global-setup.ts'],
  // Timeouts catch a hang; they bound nothing a test claims (decision 170). A user's `npm test` may run on a laptop
  // that is doing other things: at load 30 on 2 cores a file's set-up (a database from the template, an app) took
  // over 60 s and whole files failed before any test ran.
  testTimeout: 120_000,
  hookTimeout: 300_000,
  pool: 'forks' as const,
  // Each file in a fresh worker process (Vitest's default); the parallel group below shares processes.
};

/** A server project of `*.<kind>.test.ts` files that runs after the lower groups, `maxWorkers` files at a time. */
const afterTheRest = (name: string, kind: string, groupOrder: number, maxWorkers = 1) => ({
  test: {
    name,
    ...server,
    maxWorkers,
    sequence: { groupOrder },
    include: [`src/**/*.${kind}.test.ts`, `test/**/*.${kind}.test.ts`],
  },
});

// One runner for the whole repo; each workspace is a project so `vitest run --project server` works.
export default defineConfig({
  test: {
    // CI asks for a JSON report too, to count every test in its closing line: Vitest's own, plus the errors
    // thrown outside any test, which it leaves out (scripts/vitest-json-reporter.mjs).
    reporters: process.env.VITEST_JSON
      ? [
          'default',
          [fileURLToPath(new URL('./scripts/vitest-json-reporter.mjs', import.meta.url)), { outputFile: process.env.VITEST_JSON }],
        ]
      : ['default'],
    projects: [
      {
        test: {
          name: 'contract',
          ...parallel,
          setupFiles,
          root: 'packages/contract',
          include: ['src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'routing',
          ...parallel,
          setupFiles,
          root: 'packages/routing',
          // The CLI tests start Node processes and the solver tests run for fractions of a second: generous on
          // a loaded machine, never a latency bound.
          testTimeout: 60_000,
          include: ['src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'server',
          ...server,
          ...parallel,
          // A worker process runs file after file, keeping its loaded modules and compiled PGlite; each file
          // still gets a fresh database and app from createTestEnv (decision 025, last revision).
          isolate: false,
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, '**/*.slow.test.ts', '**/*.timed.test.ts', '**/*.shared.test.ts'],
        },
      },
      // Latency bounds (an import must not stall a GET, the image pool, PGlite's fairness, the timing of unknown and known
      // sessions, the geocoder's timeouts): after the parallel group, one file at a time. Fuzzing's bounds are CPU per
      // request and its own run's median, so it runs in the parallel group (decision 188).
      afterTheRest('server-timed', 'timed', 1),
      // The slow set: tests that spend most of a minute on real processes and real time (kill -9 and a restart, a
      // cluster of api and worker processes). `npm test` runs them last; `npm run test:quick` leaves them out and
      // `npm run test:slow` runs only them. On the embedded database two at a time: none bounds a latency against the
      // idle machine (their bounds are a minute and more), and one of them, a server process started and killed over
      // and over, kept one core of two busy while the other waited (decision 183). On PostgreSQL (CI's second pass)
      // one at a time: the database server needs the cores too, and that pass adds the clusters of api and worker
      // processes.
      afterTheRest('server-slow', 'slow', 2, process.env.TEST_DATABASE_URL ? 1 : 2),
      {
        test: {
          name: 'scripts',
          ...parallel,
          setupFiles,
          root: 'scripts',
          include: ['**/*.test.mjs'],
        },
      },
      {
        test: {
          name: 'web',
          ...parallel,
          setupFiles,
          root: 'apps/web',
          include: ['src/**/*.test.{ts,tsx}'],
        },
      },
      // Third-party recordings of the carriers' APIs, kept outside the repository (../shared/carriers/samples): only
      // when CARRIER_SAMPLES_DIR names them (`npm run check:carrier-samples`; CI runs it). A fresh clone has none.
      ...(process.env.CARRIER_SAMPLES_DIR
        ? [{ test: { name: 'carrier-samples', ...server, maxWorkers: 1, include: ['test/**/*.shared.test.ts'] } }]
        : []),
    ],
  },
});
