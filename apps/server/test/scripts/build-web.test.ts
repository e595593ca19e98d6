// `npm start` rebuilds the web app only when what it is built from changed (scripts/build-web.ts). Checked on a
// scratch copy of the inputs' layout, so nothing here builds or touches the real dist.
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildReason, webSourcesHash, writeStamp } from '../../../../scripts/build-web.ts';

let root: string;
const put = (rel: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
};
/** What a build leaves behind: dist with its index and the stamp. */
const built = () => {
  put('apps/web/dist/index.html', '<!doctype html>');
  writeStamp(root);
};

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'shiptrail-webstamp-'));
  put('apps/web/src/main.tsx', 'export {};');
  put('apps/web/src/features/a.tsx', 'export const a = 1;');
  put('apps/web/index.html', '<div id="root"></div>');
  put('apps/web/public/favicon.svg', '<svg/>');
  put('apps/web/vite.config.ts', 'export default {};');
  put('packages/contract/src/index.ts', 'export const x = 1;');
  put('package-lock.json', '{"lockfileVersion":3}');
  put('apps/server/src/main.ts', '// server');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('web build stamp', () => {
  it('builds when there is no dist, or a dist without a stamp', () => {
    expect(buildReason(root)).toBe('no build yet');
    put('apps/web/dist/index.html', '<!doctype html>');
    expect(buildReason(root)).toBe('the build has no stamp');
  });

  it('skips the build when nothing it depends on changed, whatever else changed', () => {
    built();
    expect(buildReason(root)).toBeNull();
    put('apps/server/src/main.ts', '// server, edited');
    put('apps/web/dist/assets/x.js', 'built output');
    put('apps/web/src/node_modules/ignored.js', '');
    expect(buildReason(root)).toBeNull();
  });

  for (const [what, rel] of [
    ['a web source', 'apps/web/src/features/a.tsx'],
    ['index.html', 'apps/web/index.html'],
    ['a public file', 'apps/web/public/favicon.svg'],
    ['the vite config', 'apps/web/vite.config.ts'],
    ['the contract package', 'packages/contract/src/index.ts'],
    ['the lockfile', 'package-lock.json'],
  ] as const) {
    it(`rebuilds when ${what} changes`, () => {
      built();
      put(rel, 'changed');
      expect(buildReason(root)).toBe('the web sources changed');
    });
  }

  it('rebuilds when a web source is added, renamed or removed', () => {
    built();
    const before = webSourcesHash(root);
    put('apps/web/src/features/b.tsx', 'export const a = 1;');
    expect(webSourcesHash(root)).not.toBe(before);
    unlinkSync(path.join(root, 'apps/web/src/features/b.tsx'));
    expect(webSourcesHash(root)).toBe(before);
    unlinkSync(path.join(root, 'apps/web/src/features/a.tsx'));
    put('apps/web/src/features/renamed.tsx', 'export const a = 1;');
    expect(buildReason(root)).toBe('the web sources changed');
  });
});
