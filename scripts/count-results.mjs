// Sum the JSON reports of vitest and Playwright in a folder into one closing line: "N passed, N failed".
//
//   node scripts/count-results.mjs DIR [REPORT.json ...]
//
// The reports named after DIR must all be there (default: pglite.json, postgres.json, e2e.json): a pass
// whose report is missing did not run to the end, and counts as a failure. Each report prints its own line;
// the closing line counts distinct tests, because the PostgreSQL pass runs the same server tests as the
// PGlite pass: a test counts as passed once if it passed in every pass that ran it, and as failed if it
// failed in any. A test file that failed outside its tests (it did not load, a beforeAll threw) counts as a
// failure of its own, since the tests it held show up only as skipped or not at all.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const LABELS = { 'pglite.json': 'PGlite', 'postgres.json': 'PostgreSQL', 'e2e.json': 'E2E' };
const DEFAULT_REPORTS = Object.keys(LABELS);

const [dir, ...named] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node scripts/count-results.mjs DIR [REPORT.json ...]');
  process.exit(2);
}
const reports = named.length ? named : DEFAULT_REPORTS;

/** Outcome of each test in one report: key -> 'passed' | 'failed' | 'skipped'; plus failures outside tests. */
function readVitest(r, root) {
  const tests = new Map();
  const fileFailures = [];
  for (const file of r.testResults ?? []) {
    const rel = path.relative(root, file.name);
    let failedTests = 0;
    for (const a of file.assertionResults ?? []) {
      const status = a.status === 'passed' ? 'passed' : a.status === 'failed' ? 'failed' : 'skipped';
      if (status === 'failed') failedTests++;
      tests.set(`${rel} > ${a.fullName ?? [...(a.ancestorTitles ?? []), a.title].join(' ')}`, status);
    }
    // A file can fail with no failing test in it: an import error, a throwing hook. Its message says why.
    if (file.status === 'failed' && failedTests === 0) fileFailures.push(`${rel}: ${firstLine(file.message) || 'failed outside its tests'}`);
  }
  // A suite counted as failed that no file entry explains (vitest lists them all today; kept as a guard).
  // numFailedTestSuites counts describe blocks too, so it is compared only when no test failed (a failed
  // test already fails the pass; comparing then reported each failing describe as a phantom file failure).
  const listed = (r.testResults ?? []).filter((f) => f.status === 'failed').length;
  if (!(r.numFailedTests > 0)) for (let i = listed; i < (r.numFailedTestSuites ?? 0); i++) fileFailures.push('a test file failed outside its tests');
  return { tests, fileFailures };
}

function readPlaywright(r) {
  const tests = new Map();
  const fileFailures = [];
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        // 'flaky' passed only on a retry: it counts as a failure, as before.
        const status = t.status === 'expected' ? 'passed' : t.status === 'skipped' ? 'skipped' : 'failed';
        const key = `${spec.file} > ${[...titles, spec.title].join(' ')}${t.projectName ? ` [${t.projectName}]` : ''}`;
        tests.set(key, status);
      }
    }
    for (const child of suite.suites ?? []) walk(child, suite.title && !suite.file ? [...titles, suite.title] : child.file ? [] : titles);
  };
  for (const s of r.suites ?? []) walk(s, []);
  // Errors outside any test: global setup, a spec file that does not load, the web server not starting.
  for (const e of r.errors ?? []) fileFailures.push(firstLine(e.message) || 'an error outside the tests');
  return { tests, fileFailures };
}

function firstLine(s) {
  return String(s ?? '').split('\n').find((l) => l.trim()) ?? '';
}

const root = process.cwd();
const passes = [];
let missing = 0;
for (const name of reports) {
  const label = LABELS[name] ?? name.replace(/\.json$/, '');
  const file = path.join(dir, name);
  if (!existsSync(file)) {
    console.log(`${label}: report ${name} is missing (the pass did not finish): counted as 1 failed`);
    missing++;
    continue;
  }
  let r;
  try {
    r = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    console.log(`${label}: report ${name} is not valid JSON (${e.message}): counted as 1 failed`);
    missing++;
    continue;
  }
  const kind = 'testResults' in r || 'numPassedTests' in r ? 'vitest' : 'suites' in r || 'stats' in r ? 'playwright' : null;
  if (!kind) {
    console.log(`${label}: ${name} is neither a vitest nor a Playwright report: counted as 1 failed`);
    missing++;
    continue;
  }
  const pass = kind === 'vitest' ? readVitest(r, root) : readPlaywright(r);
  const n = (s) => [...pass.tests.values()].filter((v) => v === s).length;
  const failed = n('failed') + pass.fileFailures.length;
  const extra = n('skipped') ? `, ${n('skipped')} skipped` : '';
  console.log(`${label}: ${n('passed')} passed, ${failed} failed${extra}`);
  for (const f of pass.fileFailures) console.log(`  failed outside a test: ${f}`);
  passes.push({ label, ...pass });
}

// Distinct tests across passes.
const outcome = new Map();
for (const p of passes) {
  for (const [key, status] of p.tests) {
    const prev = outcome.get(key);
    if (prev === 'failed' || status === 'failed') outcome.set(key, 'failed');
    else if (prev === 'skipped' || status === 'skipped') outcome.set(key, 'skipped');
    else outcome.set(key, 'passed');
  }
}
const count = (s) => [...outcome.values()].filter((v) => v === s).length;
const passed = count('passed');
const failed = count('failed') + passes.reduce((s, p) => s + p.fileFailures.length, 0) + missing;
const skipped = count('skipped');
console.log(`(distinct tests over ${passes.map((p) => p.label).join(', ') || 'no report'}${skipped ? `; ${skipped} skipped in some pass` : ''})`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
