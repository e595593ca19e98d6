import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The server tests that guard money, notifications, idempotency and the refresh engine, for StrykerJS
// (`npm run mutation`, stryker.config.mjs). One project, so the runner sees every test by file and name.
export default defineConfig({
  test: {
    setupFiles: [fileURLToPath(new URL('./vitest.setup.ts', import.meta.url))],
    root: 'apps/server',
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    include: (process.env.MUTATION_TESTS ?? 'test/billing/*.test.ts').split(','),
    exclude: ['**/*.slow.test.ts', '**/*.timed.test.ts', '**/*.shared.test.ts'],
  },
});
