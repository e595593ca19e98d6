import { defineConfig } from 'vitest/config';

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
          root: 'packages/contract',
          include: ['src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'server',
          root: 'apps/server',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'web',
          root: 'apps/web',
          include: ['src/**/*.test.{ts,tsx}'],
        },
      },
    ],
  },
});
