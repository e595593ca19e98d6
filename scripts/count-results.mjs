// Sum the JSON reports of vitest and Playwright in a folder into one closing line: "N passed, N failed".
//
//   node scripts/count-results.mjs DIR [REPORT.json ...]
//
// The reports named after DIR must all be there (default: pglite.json, postgres.json, e2e.json): a pass
// whose report is missing did not run to the end, and counts as a failure. Each report prints its own line;
// the closing line counts distinct tests, because the PostgreSQL pass runs the same server tests as the
// PGlite pass: a test counts as passed once if it passed in every pass that ran it, and as failed if it
// failed in any.
//
// A test is its file, its full name and its position among the tests of that name in the file, so two tests
// that render one title count as two (the check in vitest.setup.ts refuses such a file anyway). Failures
// outside the tests count too, one each: a file that failed with no failing test in it (it did not load, a
// beforeAll threw), an error thrown outside any test (the `unhandledErrors` that scripts/vitest-json-reporter.mjs
// adds to Vitest's report, Playwright's `errors`), a pass that ran no test at all, and a runner that exited
// non-zero (CI writes its code to <report>.exit) while its report shows no failure.
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

/** Keys tests by file, full name and position: the 2nd test of a name in a file is "file > name [#2]". */
function keyer() {
  const seen = new Map();
  const duplicates = [];
  return {
    duplicates,
    key(file, name) {
      const base = `${file} > ${name}`;
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      if (n === 1) return base;
      duplicates.push(`${base} [#${n}]`);
      return `${base} [#${n}]`;
    },
  };
}

/** Outcome of each test in one report: key -> 'passed' | 'failed' | 'skipped'; plus failures outside tests. */
function readVitest(r, root) {
  const tests = new Map();
  const fileFailures = [];
  const keys = keyer();
  for (const file of r.testResults ?? []) {
    const rel = path.relative(root, file.name);
    let failedTests = 0;
    for (const a of file.assertionResults ?? []) {
      const status = a.status === 'passed' ? 'passed' : a.status === 'failed' ? 'failed' : 'skipped';
      if (status === 'failed') failedTests++;
      tests.set(keys.key(rel, a.fullName ?? [...(a.ancestorTitles ?? []), a.title].join(' ')), status);
    }
    // A file can fail with no failing test in it: an import error, a throwing hook. Its message says why.
    if (file.status === 'failed' && failedTests === 0)
      fileFailures.push(`${rel}: ${firstLine(file.message) || 'failed outside its tests'}`);
  }
  // A suite counted as failed that no file entry explains (vitest lists them all today; kept as a guard).
  // numFailedTestSuites counts describe blocks too, so it is compared only when no test failed (a failed
  // test already fails the pass; comparing then reported each failing describe as a phantom file failure).
  const listed = (r.testResults ?? []).filter((f) => f.status === 'failed').length;
  if (!(r.numFailedTests > 0))
    for (let i = listed; i < (r.numFailedTestSuites ?? 0); i++) fileFailures.push('a test file failed outside its tests');
  // Errors thrown outside any test: Vitest prints them as "Unhandled Errors" and fails the run, but its own
  // JSON leaves them out (success: true); our reporter adds them.
  for (const e of r.unhandledErrors ?? [])
    fileFailures.push(`an error outside the tests: ${firstLine(e.message) || firstLine(e.stack) || e.name || 'unknown'}`);
  return { tests, fileFailures, duplicates: keys.duplicates };
}

function readPlaywright(r) {
  const tests = new Map();
  const fileFailures = [];
  const keys = keyer();
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        // 'flaky' passed only on a retry: it counts as a failure, as before.
        const status = t.status === 'expected' ? 'passed' : t.status === 'skipped' ? 'skipped' : 'failed';
        tests.set(keys.key(spec.file, `${[...titles, spec.title].join(' ')}${t.projectName ? ` [${t.projectName}]` : ''}`), status);
      }
    }
    for (const child of suite.suites ?? []) walk(child, suite.title && !suite.file ? [...titles, suite.title] : child.file ? [] : titles);
  };
  for (const s of r.suites ?? []) walk(s, []);
  // Errors outside any test: global setup, a spec file that does not load, the web server not starting.
  for (const e of r.errors ?? []) fileFailures.push(firstLine(e.message) || 'an error outside the tests');
  return { tests, fileFailures, duplicates: keys.duplicates };
}

/** The exit code CI wrote beside a report (pglite.json -> pglite.exit), or null when there is none. */
function exitCode(file) {
  const f = file.replace(/\.json$/, '') + '.exit';
  if (!existsSync(f)) return null;
  const code = Number.parseInt(readFileSync(f, 'utf8').trim(), 10);
  return Number.isNaN(code) ? null : code;
}

function firstLine(s) {
  return (
    String(s ?? '')
      .split('\n')
      .find((l) => l.trim()) ?? ''
  );
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
  // A pass that ran nothing proves nothing: no test file found, a filter that matched none, an empty report.
  if (pass.tests.size === 0 && pass.fileFailures.length === 0) pass.fileFailures.push('the pass ran no tests');
  const code = exitCode(file);
  if (code !== null && code !== 0 && n('failed') + pass.fileFailures.length === 0) {
    pass.fileFailures.push(`the runner exited with code ${code} but its report shows no failure (see its output)`);
  }
  const failed = n('failed') + pass.fileFailures.length;
  const extra = n('skipped') ? `, ${n('skipped')} skipped` : '';
  console.log(`${label}: ${n('passed')} passed, ${failed} failed${extra}`);
  // The names, so the tail of a CI log says which test failed without the rest of the log.
  for (const [key, status] of pass.tests) if (status === 'failed') console.log(`  failed: ${key}`);
  for (const f of pass.fileFailures) console.log(`  failed outside a test: ${f}`);
  for (const d of pass.duplicates) console.log(`  a second test of the same name in its file, counted apart: ${d}`);
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
console.log(
  `(distinct tests over ${passes.map((p) => p.label).join(', ') || 'no report'}${skipped ? `; ${skipped} skipped in some pass` : ''})`,
);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
