// scripts/mutation.mjs names what it mutates by function, found in the source when a run starts (issue 27: the
// line ranges written by hand had moved by up to 40 lines a day later, so a run would have mutated other code).
import { describe, expect, it } from 'vitest';
import { MODULES, resolveMutate } from './mutation.mjs';

const source = [
  "import x from 'y';", //                                   1
  '/** A doc comment, left out. */', //                      2
  'export async function first(a: number) {', //             3
  '  return a + 1;', //                                      4
  '}', //                                                    5
  'const second = (b: string) =>', //                        6
  '  b.trim();', //                                          7
  'function third() {}', //                                  8
].join('\n');

describe('resolveMutate', () => {
  it('gives the lines of each named top-level function or const, in the order named', () => {
    expect(resolveMutate('src/f.ts#third,first,second', () => source)).toEqual(['src/f.ts:8-8', 'src/f.ts:3-5', 'src/f.ts:6-7']);
  });
  it("passes Stryker's own file and range entries through", () => {
    expect(resolveMutate('src/f.ts:3-5', () => source)).toEqual(['src/f.ts:3-5']);
    expect(resolveMutate('src/f.ts', () => source)).toEqual(['src/f.ts']);
  });
  it('refuses a name the file does not declare at the top level', () => {
    expect(() => resolveMutate('src/f.ts#fourth', () => source)).toThrow('src/f.ts declares no top-level function or const fourth');
  });
  it("finds every function every module names in today's source", () => {
    const entries = Object.values(MODULES).flatMap((parts) => parts.flatMap((p) => p.mutate));
    for (const e of entries) expect(resolveMutate(e).length, e).toBeGreaterThan(0);
  });
});
