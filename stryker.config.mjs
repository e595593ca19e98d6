// Mutation testing of the code where a mistake costs most (issue 27): `npm run mutation -- --mutate <files>`;
// scripts/mutation.mjs runs one module at a time and writes bench/results/mutation.json.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  coverageAnalysis: 'perTest',
  inPlace: false,
  concurrency: 1,
  timeoutMS: 60_000,
  reporters: ['clear-text', 'json', 'progress'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  // Results are kept per mutant and reused while neither the code nor its tests change (a run stopped half-way
  // resumes): reports/stryker-incremental.json.
  incremental: true,
  ignorePatterns: ['bench', 'test-results', 'apps/web/dist', 'reports', '.stryker-tmp'],
};
