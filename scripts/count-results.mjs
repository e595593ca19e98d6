// Sum the JSON reports of vitest and Playwright in a folder into one closing line: "N passed, N failed".
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
  const r = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
  if ('numPassedTests' in r) {
    // vitest
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    console.log(`${f}: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
  } else if (r.stats) {
    // Playwright
    const p = r.stats.expected ?? 0;
    const x = (r.stats.unexpected ?? 0) + (r.stats.flaky ?? 0);
    passed += p;
    failed += x;
    skipped += r.stats.skipped ?? 0;
    console.log(`${f}: ${p} passed, ${x} failed`);
  }
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
