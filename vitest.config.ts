import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// An unexpected console.error or console.warn fails the test; every project loads it.
const setupFiles = [fileURLToPath(new URL('./vitest.setup.ts', import.meta.url))];

// One runner for the whole repo; each workspace is a project so `vitest run --project server` works.
export default defineConfig({
  test: {
    // CI asks for a JSON report too, to count every test in its closing line.
    reporters: process.env.VITEST_JSON ? ['default', 'json'] : ['default'],
    outputFile: process.env.VITEST_JSON ? { json: process.env.VITEST_JSON } : undefined,
    projects: [
      {
        test: {
          name: 'contract',
          setupFiles,
          root: 'packages/contract',
          include: ['src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'server',
          setupFiles,
          root: 'apps/server',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          // Migrates one database for the whole run; each test file starts from a copy of it.
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'scripts',
          setupFiles,
          root: 'scripts',
          include: ['**/*.test.mjs'],
        },
      },
      {
        test: {
          name: 'web',
          setupFiles,
          root: 'apps/web',
          include: ['src/**/*.test.{ts,tsx}'],
        },
      },
    ],
  },
});
