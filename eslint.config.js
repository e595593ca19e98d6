import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import boundaries from 'eslint-plugin-boundaries';
import { importX } from 'eslint-plugin-import-x';
import { tableOwnerRule } from './scripts/eslint/table-owners.mjs';

// The architecture's import rules (docs/ARCHITECTURE.md, "Boundaries"): lint fails on any new crossing.
const boundariesConfig = {
  files: ['apps/*/src/**/*.{ts,tsx}', 'packages/*/src/**/*.ts'],
  plugins: { boundaries },
  settings: {
    'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js'] } },
    // Order matters: the first matching descriptor classifies a file.
    'boundaries/elements': [
      { type: 'contract', pattern: 'packages/contract/src' },
      { type: 'web-app', pattern: 'apps/web/src/app' },
      { type: 'web-feature', pattern: 'apps/web/src/features/*', capture: ['feature'] },
      { type: 'web-shared', pattern: 'apps/web/src/*', capture: ['folder'] },
      { type: 'server-module', pattern: 'apps/server/src/modules/*', capture: ['module'] },
      { type: 'server-infra', pattern: 'apps/server/src/{lib,db}' },
      // The rest of apps/server/src: the composition root (main, app, bootstrap, the job registry), plus
      // config.ts, context.ts, jobs/queue.ts and jobs/define.ts, which every module may use.
      { type: 'server-root', pattern: 'apps/server/src' },
    ],
  },
  rules: {
    'boundaries/dependencies': [
      2,
      {
        default: 'allow',
        policies: [
          // The contract is the bottom layer: it imports nothing of the apps.
          {
            from: { element: { type: 'contract' } },
            disallow: {
              to: {
                element: { types: { anyOf: ['web-app', 'web-feature', 'web-shared', 'server-module', 'server-infra', 'server-root'] } },
              },
            },
          },
          // A web feature uses shared code and its own files only; pages that compose features live in app/.
          {
            from: { element: { type: 'web-feature' } },
            disallow: { to: { element: { type: 'web-feature', captured: { feature: '!{{ from.captured.feature }}' } } } },
            message:
              'A feature may not import another feature ({{ to.captured.feature }}): move shared code to lib/ or components/, or compose the features in app/.',
          },
          { from: { element: { type: 'web-feature' } }, disallow: { to: { element: { type: 'web-app' } } } },
          { from: { element: { type: 'web-shared' } }, disallow: { to: { element: { types: { anyOf: ['web-feature', 'web-app'] } } } } },
          // A server module reaches another module only through its service (or its HTTP plugin); types may be shared.
          {
            from: { element: { type: 'server-module' } },
            disallow: {
              dependency: { kind: 'value' },
              to: {
                element: {
                  type: 'server-module',
                  captured: { module: '!{{ from.captured.module }}' },
                  fileInternalPath: '!*.{service,plugin}.ts',
                },
              },
            },
            message:
              'Modules talk through services: import {{ to.captured.module }}/{{ to.captured.module }}.service.ts instead of {{ to.fileInternalPath }}.',
          },
          // Modules and infrastructure never import the composition root (it imports them).
          {
            from: { element: { types: { anyOf: ['server-module', 'server-infra'] } } },
            disallow: {
              to: { element: { type: 'server-root', fileInternalPath: '!{config.ts,context.ts,jobs/queue.ts,jobs/define.ts}' } },
            },
          },
          {
            from: { element: { type: 'server-infra' } },
            disallow: { dependency: { kind: 'value' }, to: { element: { type: 'server-module' } } },
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'apps/server/drizzle/**', 'bench/results/**', 'data/**', '.stryker-tmp/**', 'reports/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // TypeScript checks names; the rule only misfires on browser and Node globals in scripts.
      'no-undef': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  boundariesConfig,
  // No import circles (decision 117): a file may not reach itself again through value imports. Type-only imports
  // vanish at run time and are left out.
  {
    files: ['apps/server/src/**/*.ts', 'apps/web/src/**/*.{ts,tsx}', 'packages/*/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.tsx', '.js'] })],
      // The files an import leads to are read with the TypeScript parser too, or the graph stops at them.
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/extensions': ['.ts', '.tsx', '.js'],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true, allowUnsafeDynamicCyclicDependency: false }] },
  },
  // Each table has one owner (scripts/eslint/table-owners.mjs): another module's file may not name it.
  {
    files: ['apps/server/src/**/*.ts'],
    plugins: { shiptrail: { rules: { 'table-owner': tableOwnerRule } } },
    rules: { 'shiptrail/table-owner': 'error' },
  },
);
