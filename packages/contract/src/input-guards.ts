/**
 * Rules every request input obeys before any schema sees it (body, path parameters, query string):
 * - no NUL character (U+0000) in any string or key: PostgreSQL cannot store it in text, and no field of
 *   this API has a use for it;
 * - JSON nested at most MAX_INPUT_DEPTH levels: no request here needs more than a few, and walking deep
 *   structures recursively would overflow the stack.
 * The walk is iterative, so a hostile body cannot overflow the stack here either.
 */
export const MAX_INPUT_DEPTH = 32;

export const INPUT_MESSAGES = {
  nul: 'Text must not contain the NUL character (\\u0000)',
  depth: `The request is nested too deeply (at most ${MAX_INPUT_DEPTH} levels)`,
} as const;

export interface InputProblem {
  problem: keyof typeof INPUT_MESSAGES;
  /** Where, as a dotted path ('' for the value itself). */
  path: string;
  message: string;
}

export function findInputProblem(value: unknown, maxDepth = MAX_INPUT_DEPTH): InputProblem | null {
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: '', depth: 0 }];
  while (stack.length) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { problem: 'nul', path, message: INPUT_MESSAGES.nul };
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    if (depth >= maxDepth) return { problem: 'depth', path, message: INPUT_MESSAGES.depth };
    for (const [k, child] of Object.entries(v)) {
      const childPath = path ? `${path}.${k}` : k;
      if (k.includes('\u0000')) return { problem: 'nul', path: childPath, message: INPUT_MESSAGES.nul };
      stack.push({ v: child, path: childPath, depth: depth + 1 });
    }
  }
  return null;
}
