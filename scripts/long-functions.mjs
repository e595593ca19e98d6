// Functions over 80 lines in the server, web and package sources (tests aside), with ESLint's
// max-lines-per-function and nothing else (no type information: a quick pass over the files). Issue 28 holds them
// to an allow-list (long-functions.allow.json) that only shrinks: `node scripts/long-functions.mjs` lists them.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

export const MAX_LINES = 80;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Each function over MAX_LINES lines: its file (from the repo root), its name ('(anonymous)' for none), its length. */
export async function longFunctions() {
  const eslint = new ESLint({
    cwd: root,
    // One rule that reads one file at a time, so ESLint's cache is sound here (unlike `npm run lint`'s
    // import-x/no-cycle): a file whose content, ESLint or this configuration did not change is not parsed again.
    cache: true,
    cacheLocation: path.join(root, 'node_modules', '.cache', 'long-functions.eslintcache'),
    cacheStrategy: 'content',
    overrideConfigFile: true,
    overrideConfig: [
      // Tests are not held to the limit; they were parsed and then skipped.
      { ignores: ['**/*.test.*'] },
      {
        files: ['**/*.{ts,tsx}'],
        languageOptions: { parser: tseslint.parser, parserOptions: { ecmaFeatures: { jsx: true } } },
        rules: { 'max-lines-per-function': ['error', { max: MAX_LINES, skipBlankLines: false, skipComments: false }] },
      },
    ],
  });
  const results = await eslint.lintFiles(['apps/server/src/**/*.ts', 'apps/web/src/**/*.{ts,tsx}', 'packages/*/src/**/*.ts']);
  const out = [];
  for (const r of results) {
    const file = path.relative(root, r.filePath);
    if (/\.test\./.test(file)) continue;
    for (const m of r.messages) {
      if (m.ruleId !== 'max-lines-per-function') continue;
      const name = /'([^']+)'/.exec(m.message)?.[1] ?? '(anonymous)';
      const lines = Number(/\((\d+)\)/.exec(m.message)?.[1]);
      out.push({ file, name, line: m.line, lines });
    }
  }
  return out;
}

/** The allow-list's key of a long function: file and name (two anonymous ones of a file share a key, counted). */
export const keyOf = (f) => `${f.file} ${f.name}`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const list = await longFunctions();
  console.log(list.length);
  for (const f of list) console.log(`${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
}
