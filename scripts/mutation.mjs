// Mutation testing where a mistake costs most (issue 27): StrykerJS with its Vitest runner over billing,
// the notification fan-out and delivery, idempotency and the refresh engine's apply.
//
//   npm run mutation                    every module, one at a time (hours on a 2-core machine)
//   npm run mutation -- idempotency     one module (or several, by name); engine-2: only that part of a module
//   npm run mutation -- --merge-only    rewrite bench/results/mutation.json from the reports already there
//
// Each module mutates only the functions that carry its money, notification or idempotency logic (Stryker's
// `file.ts:from-to` line ranges) and runs only the test files that exercise them (MUTATION_TESTS, read by
// vitest.mutation.config.ts); with perTest coverage Stryker then runs, per mutant, only the tests that reach it.
// A module may be split in parts, each its own Stryker run with its own tests (pure functions against their unit
// tests only). Reports go to reports/mutation/<module>[-<part>]/ (mutation.json at the end, one event file per tested mutant as it
// goes, incremental.json so an unchanged mutant is not tested again). The scores are merged into
// bench/results/mutation.json, keeping the modules not run this time. A module whose run did not finish is
// written from its event files with "complete": false.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

/**
 * Each module: one or more parts, each a Stryker run of its `mutate` functions against its `tests` (under
 * apps/server). A `mutate` entry is `file.ts#name,name` (top-level functions or consts, found in the source when
 * the run starts, so edits above them do not move the range) or Stryker's own `file.ts:from-to`.
 */
export const MODULES = {
  idempotency: [
    {
      mutate: ['apps/server/src/lib/idempotency.ts'],
      tests: ['src/lib/idempotency.test.ts', 'test/db/idempotent-reply.test.ts'],
    },
  ],
  // A charge (its guards and outcomes), the settle that credits a sale, the failure it records, the sweep that
  // settles a top-up whose answer was lost, and the automatic recharge with its failures and backoff.
  billing: [
    {
      mutate: [
        'apps/server/src/modules/billing/billing.service.ts#charge',
        'apps/server/src/modules/billing/payments.ts#settle,fail,reconcileTopups,runRecharge',
      ],
      tests: ['src/modules/billing/billing.service.test.ts', 'test/billing/money-paths.test.ts'],
    },
  ],
  // Who is told of a status change (planRecipients), the gate on messages to customers (limits, held until the
  // account is verified), and the fan-out that writes the notifications and queues their jobs.
  // Two parts: planRecipients is pure, so its mutants run only its unit tests (seconds each, where the database
  // tests that also reach it cost half a minute per mutant).
  notifications: [
    { mutate: ['apps/server/src/modules/notifications/fanout.ts#planRecipients'], tests: ['src/modules/notifications/fanout.test.ts'] },
    {
      mutate: ['apps/server/src/modules/notifications/fanout.ts#gateCustomerMessages,queueNotifications,fanOutFound'],
      tests: [
        'test/notifications/customer-limits.test.ts',
        'test/notifications/customer-alerts.test.ts',
        'test/notifications/email.test.ts',
      ],
    },
  ],
  // Delivery of each notification: mail and SMS under their lease (a permanent refusal, a retry, a lost worker), and
  // webhooks with their backoff, one at a time and in batches. Database and loopback-server tests: slow per mutant.
  delivery: [
    {
      mutate: ['apps/server/src/modules/notifications/delivery.ts#holdAttempt,underLease,isPermanentMailError,deliverEmail,deliverSms'],
      tests: [
        'test/notifications/email.test.ts',
        'test/notifications/sms.test.ts',
        'test/notifications/lease.test.ts',
        'test/notifications/faults.test.ts',
      ],
    },
    {
      mutate: [
        'apps/server/src/modules/notifications/delivery.ts#nextWebhookDelayMs,deliverWebhook,postAttempt,settleWebhook,deliverWebhooks',
      ],
      tests: ['test/notifications/webhook.test.ts', 'test/notifications/webhook-batch.test.ts'],
    },
  ],
  // The refresh engine's apply of a carrier reading: what a result does to a tracking (planApply, pure: the guards,
  // the older picture, a pushed event, the status it moves to, what is written and the change recorded) against its
  // unit tests, and the transaction that writes it (applyResult) against the engine's database tests.
  engine: [
    {
      mutate: ['apps/server/src/modules/trackings/refresh.ts#planApply'],
      tests: ['src/modules/trackings/plan-apply.test.ts'],
    },
    {
      mutate: ['apps/server/src/modules/trackings/refresh.ts#applyResult'],
      tests: ['test/trackings/engine.test.ts', 'test/notifications/folding.test.ts'],
    },
  ],
};

/**
 * Why a surviving mutant is left, by reason: `file:line:column replacement` (as in the report's survivors) of each.
 * A survivor not listed here is written with "why": null, i.e. still to kill with a test or to explain.
 */
const LATER = (test) =>
  `Killed by a test added after this run (${test}), checked by applying the mutant by hand; the next run of the module counts it.`;
const EXPLAINED = [
  {
    why: 'Logging: the text and fields of a log line (the recharge left for the stale sweep), not behaviour.',
    mutants: ['apps/server/src/modules/billing/payments.ts:567:18 {}', 'apps/server/src/modules/billing/payments.ts:567:39 ""'],
  },
  {
    why:
      "Equivalent: effectiveEndpoint gives a profile default only for 'email' and 'phone'; any other kind, '' as " +
      "well as 'webhook', has none.",
    mutants: ['apps/server/src/modules/notifications/fanout.ts:64:35 ""'],
  },
  {
    why: 'Equivalent: without customer messages the gate has nothing to hold or limit; the early return only saves the count query.',
    mutants: ['apps/server/src/modules/notifications/fanout.ts:166:7 false'],
  },
  {
    why: LATER("customer-limits.test.ts: an account older than CUSTOMER_NOTIFY_NEW_DAYS has the account's daily cap"),
    mutants: ['apps/server/src/modules/notifications/fanout.ts:168:17 true'],
  },
  {
    why: 'Equivalent but for the one millisecond at which an account is exactly CUSTOMER_NOTIFY_NEW_DAYS old.',
    mutants: [
      'apps/server/src/modules/notifications/fanout.ts:168:17 ctx.now().getTime() - user.createdAt.getTime() <= c.CUSTOMER_NOTIFY_NEW_DAYS * 86_400_000',
    ],
  },
  {
    why: LATER('customer-limits.test.ts: the daily cap counts the last 24 hours (messages aged by 2 and by 25 hours)'),
    mutants: ['apps/server/src/modules/notifications/fanout.ts:170:76 24 / 60'],
  },
  {
    why:
      'Equivalent: with no daily cap the count is never compared (the check is dailyCap > 0 && today >= dailyCap); ' +
      "and without the profile's verified flag the gate reads the same flag from the database under its share lock.",
    mutants: [
      'apps/server/src/modules/notifications/fanout.ts:170:15 true',
      'apps/server/src/modules/notifications/fanout.ts:170:15 dailyCap >= 0',
      'apps/server/src/modules/notifications/fanout.ts:173:41 user.emailVerified && undefined',
    ],
  },
  {
    why: 'Equivalent: planRecipients reads the settings channels, never the webhook secret given to settingsView.',
    mutants: ['apps/server/src/modules/notifications/fanout.ts:52:59 "Stryker was here!"'],
  },
  {
    why:
      'Equivalent: the keys of one object are distinct strings, so a <= b is a < b; and V8 sorts (TimSort, binary ' +
      'insertion) looking only at whether the comparator is negative, so returning 0 or 1 for a > b orders the same.',
    mutants: [
      'apps/server/src/lib/idempotency.ts:35:28 a <= b',
      'apps/server/src/lib/idempotency.ts:35:41 true',
      'apps/server/src/lib/idempotency.ts:35:41 false',
      'apps/server/src/lib/idempotency.ts:35:41 a >= b',
      'apps/server/src/lib/idempotency.ts:35:41 a <= b',
    ],
  },
  {
    why: LATER('test/db/idempotent-reply.test.ts: "answers a finished key from its stored reply without opening a transaction"'),
    mutants: ['apps/server/src/lib/idempotency.ts:78:7 false'],
  },
  {
    why: LATER(
      'test/db/idempotent-reply.test.ts: "answers the reply of a request that finished between the look at its key and the reservation"',
    ),
    mutants: ['apps/server/src/lib/idempotency.ts:89:11 false'],
  },
  {
    why: LATER(
      'test/billing/money-paths.test.ts: a charge returns true; the API top-up; the alert that stays; the declined top-up; the recent top-up; two sweeps racing; the recharge sweep',
    ),
    mutants: [
      'apps/server/src/modules/billing/billing.service.ts:73:10 false',
      'apps/server/src/modules/billing/payments.ts:212:51 ""',
      'apps/server/src/modules/billing/payments.ts:228:41 ""',
      'apps/server/src/modules/billing/payments.ts:308:37 ""',
      'apps/server/src/modules/billing/payments.ts:435:55 ctx.now().getTime() + TOPUP_RECONCILE_MS',
      'apps/server/src/modules/billing/payments.ts:440:9 false',
      'apps/server/src/modules/billing/payments.ts:602:74 {}',
      'apps/server/src/modules/billing/payments.ts:603:56 ctx.now().getTime() + RECHARGE_STALE_MS',
      'apps/server/src/modules/billing/payments.ts:605:28 true',
      'apps/server/src/modules/billing/payments.ts:605:28 false',
      'apps/server/src/modules/billing/payments.ts:605:55 n--',
      'apps/server/src/modules/billing/payments.ts:565:9 false',
      'apps/server/src/modules/billing/payments.ts:575:47 ""',
      'apps/server/src/modules/billing/payments.ts:590:13 ""',
    ],
  },
  {
    why:
      "Equivalent: 'unknown' in the statuses settle and fail move from is never used: every caller moves an unknown " +
      'payment to pending (a retry under its key) or processing (the sweep) before it settles or fails it.',
    mutants: ['apps/server/src/modules/billing/payments.ts:212:76 ""', 'apps/server/src/modules/billing/payments.ts:308:62 ""'],
  },
  {
    why:
      'Equivalent: fail() reads the status, transaction and message of the result, never its `ok`, and its `reason` ' +
      'only when it carries no transaction (here it always does: the sale found).',
    mutants: ['apps/server/src/modules/billing/payments.ts:451:41 true', 'apps/server/src/modules/billing/payments.ts:451:56 ""'],
  },
  {
    why:
      'Equivalent in practice: a recharge is recorded from its account row (billing_accounts), which goes only with ' +
      'the user and its payments (cascade), so a?.paymentMethodToken never meets a missing account.',
    mutants: ['apps/server/src/modules/billing/payments.ts:551:8 a.paymentMethodToken'],
  },
  {
    why: LATER(
      'src/modules/trackings/plan-apply.test.ts: the push backstop, the exact silence limit, the newest checkpoint, the same picture, pushed events',
    ),
    mutants: [
      'apps/server/src/modules/trackings/refresh.ts:236:46 now.getTime() - (lastData ?? t.createdAt).getTime() >= expireAfterMs()',
      'apps/server/src/modules/trackings/refresh.ts:240:35 false',
      'apps/server/src/modules/trackings/refresh.ts:240:52 true',
      'apps/server/src/modules/trackings/refresh.ts:240:52 carriersOf(ctx).push(t.courier as CourierSlug) === null',
      'apps/server/src/modules/trackings/refresh.ts:249:83 m && -Infinity',
      'apps/server/src/modules/trackings/refresh.ts:252:47 true',
      'apps/server/src/modules/trackings/refresh.ts:252:74 responseNewest <= storedNewest',
      'apps/server/src/modules/trackings/refresh.ts:262:9 true',
      'apps/server/src/modules/trackings/refresh.ts:262:62 responseNewest <= storedNewest',
      'apps/server/src/modules/trackings/refresh.ts:282:49 true',
    ],
  },
  {
    why:
      LATER('src/modules/trackings/plan-apply.test.ts: "what the user sees changing without a new scan"') +
      ' Of the two `true` mutants at 285:13, `added === 0` -> true is equivalent: new checkpoints set lastCarrierDataAt ' +
      'to now, which is never past the silence limit.',
    mutants: [
      'apps/server/src/modules/trackings/refresh.ts:285:13 true',
      'apps/server/src/modules/trackings/refresh.ts:285:13 added === 0 || status === t.status',
      'apps/server/src/modules/trackings/refresh.ts:285:28 true',
      'apps/server/src/modules/trackings/refresh.ts:308:11 false',
      'apps/server/src/modules/trackings/refresh.ts:309:11 false',
      'apps/server/src/modules/trackings/refresh.ts:310:11 false',
      'apps/server/src/modules/trackings/refresh.ts:311:11 false',
    ],
  },
  {
    why:
      'Equivalent: a locked row always carries its tracking (t is locked.t), so !locked || !t and !locked && !t agree; ' +
      'and a null compared with < is 0, under any stored or read timestamp, so dropping a `!== null` or `=== null` ' +
      'check before such a comparison changes nothing.',
    mutants: [
      'apps/server/src/modules/trackings/refresh.ts:234:7 !locked && !t',
      'apps/server/src/modules/trackings/refresh.ts:252:22 true',
      'apps/server/src/modules/trackings/refresh.ts:262:35 false',
    ],
  },
  {
    why:
      'Not reached by this part: the estimate written when it moved is planned by planEstimate (estimate.ts), whose ' +
      'cases are tested in test/trackings/estimate.test.ts and test/notifications/estimate.test.ts.',
    mutants: ['apps/server/src/modules/trackings/refresh.ts:321:17 {}'],
  },
];

const RESULTS = 'bench/results/mutation.json';
const DETECTED = ['Killed', 'Timeout'];
const UNDETECTED = ['Survived', 'NoCoverage'];

/** Counts and score (detected / (detected + undetected), as Stryker computes it) of a list of mutant results. */
export function summarise(mutants) {
  const by = (s) => mutants.filter((m) => m.status === s).length;
  const counts = {
    killed: by('Killed'),
    survived: by('Survived'),
    timeout: by('Timeout'),
    noCoverage: by('NoCoverage'),
    compileErrors: by('CompileError'),
    runtimeErrors: by('RuntimeError'),
    ignored: by('Ignored'),
  };
  const detected = mutants.filter((m) => DETECTED.includes(m.status)).length;
  const valid = detected + mutants.filter((m) => UNDETECTED.includes(m.status)).length;
  return { score: valid ? Math.round((detected / valid) * 10_000) / 100 : null, tested: valid, ...counts };
}

/** Where a part of a module keeps its reports: reports/mutation/<module>[-<part>]. */
const dirOf = (name, i) => path.join('reports/mutation', MODULES[name].length > 1 ? `${name}-${i + 1}` : name);

/** The mutants of a module's parts: finished runs (JSON report), stopped ones (event files); undefined if none ran. */
function mutantsOf(name) {
  const parts = MODULES[name].map((_, i) => partMutants(dirOf(name, i)));
  if (parts.every((p) => !p)) return undefined;
  return {
    mutants: parts.flatMap((p) => p?.mutants ?? []),
    complete: parts.every((p) => p?.complete),
    // Per part: finished, stopped half-way (its mutants so far count), or not run (none of its mutants count).
    parts: MODULES[name].map((part, i) => ({
      part: MODULES[name].length > 1 ? `${name}-${i + 1}` : name,
      mutate: part.mutate,
      tests: part.tests,
      run: !parts[i] ? 'not run' : parts[i].complete ? 'complete' : 'stopped',
      ...(parts[i] ? summarise(parts[i].mutants) : {}),
    })),
  };
}

function partMutants(dir) {
  const report = path.join(dir, 'mutation.json');
  if (existsSync(report)) {
    const r = JSON.parse(readFileSync(report, 'utf8'));
    const mutants = Object.entries(r.files).flatMap(([file, f]) => f.mutants.map((m) => ({ ...m, file })));
    return { mutants, complete: true };
  }
  const events = path.join(dir, 'events');
  if (!existsSync(events)) return undefined;
  const mutants = readdirSync(events)
    .filter((f) => f.endsWith('-onMutantTested.json'))
    .map((f) => JSON.parse(readFileSync(path.join(events, f), 'utf8')))
    .map((m) => ({ ...m, file: m.fileName ? path.relative(process.cwd(), m.fileName) : undefined }));
  return { mutants, complete: false };
}

/**
 * Stryker's `file:from-to` ranges of a `mutate` entry: `file.ts#a,b` is the lines of the top-level functions
 * (or consts) a and b, doc comments left out. Throws on a name the file does not declare.
 */
export function resolveMutate(entry, read = (f) => readFileSync(f, 'utf8')) {
  const hash = entry.indexOf('#');
  if (hash < 0) return [entry];
  const file = entry.slice(0, hash);
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const declared = new Map();
  for (const st of source.statements) {
    const names =
      ts.isFunctionDeclaration(st) && st.name
        ? [st.name.text]
        : ts.isVariableStatement(st)
          ? st.declarationList.declarations.map((d) => d.name.getText(source))
          : [];
    for (const n of names) declared.set(n, `${file}:${lineOf(st.getStart(source))}-${lineOf(st.getEnd())}`);
  }
  return entry
    .slice(hash + 1)
    .split(',')
    .map((n) => {
      const range = declared.get(n);
      if (!range) throw new Error(`${file} declares no top-level function or const ${n}`);
      return range;
    });
}

function run(name, only) {
  const started = Date.now();
  let exitCode = 0;
  MODULES[name].forEach((part, i) => {
    if (only !== undefined && only !== i) return;
    const dir = dirOf(name, i);
    mkdirSync(dir, { recursive: true });
    // The previous report would pass for this run's if this one stopped: only this run's files count.
    rmSync(path.join(dir, 'mutation.json'), { force: true });
    console.log(`\n== ${name} (${dir}): ${part.mutate.join(' ')}\n   tests: ${part.tests.join(' ')}`);
    const ranges = part.mutate.flatMap((m) => resolveMutate(m));
    console.log(`   lines: ${ranges.join(' ')}`);
    const r = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', '--mutate', ranges.join(',')], {
      stdio: 'inherit',
      env: { ...process.env, MUTATION_TESTS: part.tests.join(','), MUTATION_REPORT_DIR: dir },
    });
    exitCode ||= r.status ?? 1;
  });
  return { seconds: Math.round((Date.now() - started) / 1000), exitCode };
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model,
    memoryGB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    concurrency: 1,
  };
}

function merge(ranNow) {
  const out = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : { modules: {} };
  out.command = 'npm run mutation [-- module ...]';
  out.tool = 'StrykerJS 10.1.1, @stryker-mutator/vitest-runner 10.1.1, coverageAnalysis perTest, concurrency 1';
  out.threshold = 80;
  for (const name of Object.keys(MODULES)) {
    const found = mutantsOf(name);
    if (!found) continue;
    const prev = out.modules[name] ?? {};
    const timing = ranNow[name] ?? {};
    const survivors = found.mutants
      .filter((x) => UNDETECTED.includes(x.status))
      .map((x) => {
        const at = `${x.file}:${x.location.start.line}:${x.location.start.column}`;
        const why = EXPLAINED.find((e) => e.mutants.includes(`${at} ${x.replacement}`))?.why ?? null;
        return { status: x.status, at, mutator: x.mutatorName, replacement: x.replacement, why };
      })
      .sort((a, b) => a.at.localeCompare(b.at, undefined, { numeric: true }));
    out.modules[name] = {
      ...summarise(found.mutants),
      complete: found.complete,
      parts: found.parts,
      command: `npm run mutation -- ${name}`,
      date: ranNow[name] ? new Date().toISOString() : prev.date,
      seconds: timing.seconds ?? prev.seconds,
      machine: ranNow[name] ? machine() : prev.machine,
      unexplained: survivors.filter((x) => !x.why).length,
      survivors,
    };
  }
  out.modules = Object.fromEntries(
    Object.entries(out.modules).sort(([a], [b]) => Object.keys(MODULES).indexOf(a) - Object.keys(MODULES).indexOf(b)),
  );
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, JSON.stringify(out, null, 2) + '\n');
  for (const [name, m] of Object.entries(out.modules))
    console.log(
      `${name.padEnd(14)} ${String(m.score ?? '-').padStart(6)}%  killed ${m.killed} timeout ${m.timeout} survived ${m.survived} ` +
        `no coverage ${m.noCoverage}, ${m.unexplained} unexplained${m.complete ? '' : '  (incomplete)'}`,
    );
}

const args = process.argv.slice(2);
if (import.meta.url === `file://${process.argv[1]}`) {
  // A module by name (all its parts), or one part as <module>-<n>, in the order given.
  const targets = args
    .filter((a) => !a.startsWith('--'))
    .map((a) => {
      if (MODULES[a]) return { name: a, arg: a };
      const [, name, n] = /^(.*)-(\d+)$/.exec(a) ?? [];
      return MODULES[name]?.[Number(n) - 1] ? { name, part: Number(n) - 1, arg: a } : { arg: a };
    });
  const unknown = targets.filter((t) => !t.name).map((t) => t.arg);
  if (unknown.length) {
    console.error(`unknown module ${unknown.join(', ')}: one of ${Object.keys(MODULES).join(', ')} (or <module>-<part>)`);
    process.exit(2);
  }
  const ranNow = {};
  if (!args.includes('--merge-only'))
    for (const t of targets.length ? targets : Object.keys(MODULES).map((name) => ({ name }))) {
      const r = run(t.name, t.part);
      ranNow[t.name] = { seconds: (ranNow[t.name]?.seconds ?? 0) + r.seconds, exitCode: ranNow[t.name]?.exitCode || r.exitCode };
    }
  merge(ranNow);
}
