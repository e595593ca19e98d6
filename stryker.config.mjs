// Mutation testing of the code where a mistake costs most (issue 27): `npm run mutation [module ...]`.
// scripts/mutation.mjs runs one module at a time (its `mutate` ranges, its tests in MUTATION_TESTS, its reports
// under MUTATION_REPORT_DIR) and writes bench/results/mutation.json.
const reportDir = process.env.MUTATION_REPORT_DIR ?? 'reports/mutation';
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  coverageAnalysis: 'perTest',
  inPlace: false,
  concurrency: 1,
  // A mutant's tests may take timeoutFactor x their own time (in the dry run) + timeoutMS before it counts as a
  // timeout (detected). On the shared 2-core machine the load can triple between the dry run and a mutant (load 30
  // at 12:30 on 27 Nov: nearly every mutant of notifications-2 "timed out", equivalent ones too), so the factor is 4,
  // not Stryker's 1.5: a slow test is not a detected mutant. A mutant that truly hangs costs that much longer.
  // timeoutMS is 60 s (20 s before decision 161), so a mutant whose tests took 2 s in the dry run may take 68 s. A mutant
  // that still times out is tested again alone with factor 8 (scripts/mutation.mjs), and bench/results/mutation.json
  // gives the score with timeouts as kills and without (scoreKilledOnly).
  timeoutFactor: 4,
  timeoutMS: 60_000,
  // The dry run of a part's test files took over Stryker's 5 minutes at load 35 (27 Nov, notifications-2).
  dryRunTimeoutMinutes: 30,
  // event-recorder writes one file per tested mutant, so a run stopped half-way still gives a partial score.
  reporters: ['clear-text', 'json', 'progress-append-only', 'event-recorder'],
  jsonReporter: { fileName: `${reportDir}/mutation.json` },
  eventReporter: { baseDir: `${reportDir}/events` },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  // Results are kept per mutant and reused while neither the code nor its tests change:
  // <reportDir>/incremental.json, written at the end of a run.
  incremental: true,
  incrementalFile: `${reportDir}/incremental.json`,
  ignorePatterns: ['bench', 'test-results', 'apps/web/dist', 'reports', '.stryker-tmp'],
};
