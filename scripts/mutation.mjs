// Mutation testing where a mistake costs most (issue 27): StrykerJS with its Vitest runner over billing,
// the notification fan-out and delivery, idempotency and the refresh engine's apply.
//
//   npm run mutation                    every module, one at a time (hours on a 2-core machine)
//   npm run mutation -- idempotency     one module (or several, by name); engine-2: only that part of a module
//   npm run mutation -- --merge-only    rewrite bench/results/mutation.json from the reports already there
//   npm run mutation -- delivery-1 --retest-timeouts   only test again, alone, the timeouts of the part's last report
//
// Each module mutates only the functions that carry its money, notification or idempotency logic (Stryker's
// `file.ts:from-to` line ranges) and runs only the test files that exercise them (MUTATION_TESTS, read by
// vitest.mutation.config.ts); with perTest coverage Stryker then runs, per mutant, only the tests that reach it.
// A module may be split in parts, each its own Stryker run with its own tests (pure functions against their unit
// tests only). Reports go to reports/mutation/<module>[-<part>]/ (mutation.json at the end, one event file per tested mutant as it
// goes, incremental.json so an unchanged mutant is not tested again). The scores are merged into
// bench/results/mutation.json part by part: a part with no report on disk (not run this time, and reports/ is not
// committed) keeps its entry and survivors from the results file, and a module's counts and score are those of its
// parts together. A part whose run did not finish is written from its event files with "complete": false.
// The tests run on PGlite, or on PostgreSQL with TEST_DATABASE_URL set (the same tests, each file on a database of
// its own, where PGlite loads a 43 MB dump per file): each part's entry names its `database`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
      // enqueueDeliveries: the delivery jobs queueNotifications wrote itself before decision 164, one statement per channel.
      mutate: ['apps/server/src/modules/notifications/fanout.ts#gateCustomerMessages,queueNotifications,enqueueDeliveries,fanOutFound'],
      tests: [
        'test/notifications/customer-limits.test.ts',
        'test/notifications/customer-alerts.test.ts',
        'test/notifications/email.test.ts',
        // fanOutFound's SMS and webhook payloads and the estimate's own words: without these its branches were
        // NoCoverage (8 mutants on 27 Nov).
        'test/notifications/sms.test.ts',
        'test/notifications/webhook.test.ts',
        'test/notifications/webhook-batch.test.ts',
        'test/notifications/estimate.test.ts',
        // The jobs enqueueDeliveries writes: one per notification under its queue's policy (decision 164).
        'test/notifications/enqueue-many.test.ts',
        // The "notifications queued" log line: its fields and each notification's id, channel and status.
        'test/notifications/queued-log.test.ts',
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
        'test/notifications/delivery-edges.test.ts',
        'test/notifications/lease-length.test.ts',
      ],
    },
    {
      mutate: [
        'apps/server/src/modules/notifications/delivery.ts#nextWebhookDelayMs,deliverWebhook,postAttempt,settleWebhook,deliverWebhooks',
      ],
      tests: [
        'src/modules/notifications/webhook-delay.test.ts',
        'test/notifications/webhook.test.ts',
        'test/notifications/webhook-batch.test.ts',
        'test/notifications/webhook-edges.test.ts',
      ],
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
    why:
      'Unreachable: a tracking event has its tracking or its shipment, exactly one (the check tracking_events_subject_ck), ' +
      'its tracking_id references trackings on delete cascade, and the fan-out reads it in the transaction that wrote ' +
      'the event; an event with a shipment returned the line before, so found.tracking is never null here.',
    mutants: ['apps/server/src/modules/notifications/fanout.ts:323:7 false'],
  },
  {
    why:
      'Equivalent: without this return a non-trigger status plans no recipient (planRecipients reads the triggers, which ' +
      'name trigger statuses only) and recordStatusChange never writes an event from a status to itself, so the ' +
      '"nothing planned" return on line 326 ends the fan-out with nothing written.',
    mutants: [
      'apps/server/src/modules/notifications/fanout.ts:324:7 false',
      'apps/server/src/modules/notifications/fanout.ts:324:7 !isTrigger(event.toStatus) && event.fromStatus === event.toStatus',
      'apps/server/src/modules/notifications/fanout.ts:324:37 false',
    ],
  },
  {
    why:
      'Equivalent but for a log line: with nothing planned the rest inserts no notification and enqueues no job ' +
      '(insertNotifications and enqueueMany write nothing for none) and logs "notifications queued" with an empty list.',
    mutants: ['apps/server/src/modules/notifications/fanout.ts:326:7 false'],
  },
  {
    why: LATER(
      "customer-limits.test.ts: a verified company's customer mail for a parcel marked delivered carries its theme colour and logo",
    ),
    mutants: ['apps/server/src/modules/notifications/fanout.ts:340:17 {}'],
  },
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
    mutants: ['apps/server/src/modules/notifications/fanout.ts:178:7 false'],
  },
  {
    why: LATER("customer-limits.test.ts: an account older than CUSTOMER_NOTIFY_NEW_DAYS has the account's daily cap"),
    mutants: ['apps/server/src/modules/notifications/fanout.ts:180:17 true'],
  },
  {
    why: 'Equivalent but for the one millisecond at which an account is exactly CUSTOMER_NOTIFY_NEW_DAYS old.',
    mutants: [
      'apps/server/src/modules/notifications/fanout.ts:180:17 ctx.now().getTime() - user.createdAt.getTime() <= c.CUSTOMER_NOTIFY_NEW_DAYS * 86_400_000',
    ],
  },
  {
    why: LATER('customer-limits.test.ts: the daily cap counts the last 24 hours (messages aged by 2 and by 25 hours)'),
    mutants: ['apps/server/src/modules/notifications/fanout.ts:182:76 24 / 60'],
  },
  {
    why:
      'Equivalent: with no daily cap the count is never compared (the check is dailyCap > 0 && today >= dailyCap); ' +
      "and without the profile's verified flag the gate reads the same flag from the database under its share lock.",
    mutants: [
      'apps/server/src/modules/notifications/fanout.ts:182:15 true',
      'apps/server/src/modules/notifications/fanout.ts:182:15 dailyCap >= 0',
      'apps/server/src/modules/notifications/fanout.ts:186:41 accountReadHere && user.emailVerified && undefined',
      'apps/server/src/modules/notifications/fanout.ts:186:42 false',
    ],
  },
  {
    why:
      'Equivalent: with the repeat limit off (CUSTOMER_NOTIFY_REPEAT_MINUTES 0) the count it guards looks at the last 0 ' +
      "minutes (created_at > now()), where no earlier message is (created_at defaults to its own transaction's now()); " +
      'the check only saves that query.',
    mutants: [
      'apps/server/src/modules/notifications/fanout.ts:190:7 true',
      'apps/server/src/modules/notifications/fanout.ts:190:7 c.CUSTOMER_NOTIFY_REPEAT_MINUTES >= 0',
    ],
  },
  {
    why:
      'Killed by a test added after this run (customer-limits.test.ts: "ten status flips by an unverified company" now ' +
      "reads the limited ones' exact reason, by email and by SMS); the `true` mutant was applied by hand and fails it, the " +
      'others change the same words and are not checked by hand; the next run of the part counts them.',
    mutants: [
      'apps/server/src/modules/notifications/fanout.ts:201:11 ``',
      'apps/server/src/modules/notifications/fanout.ts:201:65 true',
      'apps/server/src/modules/notifications/fanout.ts:201:65 false',
      "apps/server/src/modules/notifications/fanout.ts:201:65 r.channel !== 'sms'",
      'apps/server/src/modules/notifications/fanout.ts:201:79 ""',
      'apps/server/src/modules/notifications/fanout.ts:201:87 ""',
      'apps/server/src/modules/notifications/fanout.ts:201:95 ""',
    ],
  },
  {
    why: LATER(
      'customer-limits.test.ts: "one status change with more messages to customers than the cap has left" (5 of 6 used, ' +
        'then mail and SMS: the second is limited; today-- let both go)',
    ),
    mutants: ['apps/server/src/modules/notifications/fanout.ts:205:5 today--'],
  },
  {
    why:
      'Killed by a test added after this run (customer-limits.test.ts: "a daily cap of 0 lifts the cap"): `true` was applied ' +
      'by hand and fails it; `dailyCap >= 0` is the same for a cap that is never negative (config: nonnegative). The next ' +
      'run of the part counts them.',
    mutants: [
      'apps/server/src/modules/notifications/fanout.ts:198:22 true',
      'apps/server/src/modules/notifications/fanout.ts:198:22 dailyCap >= 0',
    ],
  },
  {
    why: LATER(
      'customer-limits.test.ts: "a parcel marked delivered by a verified company mails its customer at once" (the account ' +
        'handed to the fan-out: &&= never reads the flag and holds the mail)',
    ),
    mutants: ['apps/server/src/modules/notifications/fanout.ts:187:33 isVerified &&= await repo.emailVerifiedForShare(tx, user.id)'],
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
  {
    why: LATER(
      'test/notifications/delivery-edges.test.ts: the lines an operator follows to each outcome. A waiting attempt says so ' +
        "once, with the notification and the live lease's rest; each mail and SMS outcome (sent, retrying, failed, " +
        'skipped_balance) has one line with its words, level, ids, channel and error; all 17',
    ),
    mutants: [
      'apps/server/src/modules/notifications/delivery.ts:51:21 true',
      'apps/server/src/modules/notifications/delivery.ts:51:39 false',
      'apps/server/src/modules/notifications/delivery.ts:56:9 true',
      'apps/server/src/modules/notifications/delivery.ts:56:9 false',
      'apps/server/src/modules/notifications/delivery.ts:56:9 waited',
      'apps/server/src/modules/notifications/delivery.ts:56:31 {}',
      'apps/server/src/modules/notifications/delivery.ts:56:77 ""',
      'apps/server/src/modules/notifications/delivery.ts:128:34 ""',
      'apps/server/src/modules/notifications/delivery.ts:128:45 ""',
      'apps/server/src/modules/notifications/delivery.ts:128:57 {}',
      'apps/server/src/modules/notifications/delivery.ts:166:26 ""',
      'apps/server/src/modules/notifications/delivery.ts:177:28 ""',
      'apps/server/src/modules/notifications/delivery.ts:177:40 {}',
      'apps/server/src/modules/notifications/delivery.ts:184:26 ""',
      'apps/server/src/modules/notifications/delivery.ts:184:36 {}',
      'apps/server/src/modules/notifications/delivery.ts:188:24 ""',
      'apps/server/src/modules/notifications/delivery.ts:133:24 ""',
    ],
  },
  {
    why: LATER(
      'test/notifications/delivery-edges.test.ts: "a second attempt gives up, sending nothing, when the live lease outlasts its wait" ' +
        'now has the live attempt settle 2 s after the waiter gave up at once; the mutant, which gives up only after (lease + 6 s) / 2, returns instead',
    ),
    mutants: ['apps/server/src/modules/notifications/delivery.ts:55:9 Date.now() - lease.waitMs'],
  },
  {
    why:
      'Timing only: > or >= at the give-up time differ only at its exact millisecond; the poll interval (the live ' +
      "lease's rest + 20 ms, at most 500 ms) only sets how soon a waiter looks again, not what it then finds.",
    mutants: [
      'apps/server/src/modules/notifications/delivery.ts:55:9 Date.now() + lease.waitMs >= giveUpAt',
      'apps/server/src/modules/notifications/delivery.ts:57:26 lease.waitMs - 20',
    ],
  },
  {
    why:
      'Equivalent: an SMTP error without a numeric responseCode fails `code >= 500` anyway (undefined compares ' +
      'false), and SMTP reply codes are three digits from 2xx to 5xx, so `code < 600` never meets a 600 or more.',
    mutants: [
      'apps/server/src/modules/notifications/delivery.ts:103:10 true',
      'apps/server/src/modules/notifications/delivery.ts:103:53 true',
      'apps/server/src/modules/notifications/delivery.ts:103:53 code <= 600',
    ],
  },
  {
    why: LATER(
      "test/notifications/delivery-edges.test.ts: mail and SMS run by hand, without the queue's retry count, are the last try (a temporary refusal is final)",
    ),
    mutants: ['apps/server/src/modules/notifications/delivery.ts:114:18 {}', 'apps/server/src/modules/notifications/delivery.ts:144:90 {}'],
  },
  {
    why: LATER(
      "test/notifications/lease-length.test.ts: untuned, mail holds its notification for the mailer's longest send + 30 s (80 s) and " +
        "SMS for the provider's timeout + 30 s (45 s), with the webhook timeout tuned to 200 s: '' gives both the webhook's 230 s",
    ),
    mutants: ['apps/server/src/modules/notifications/delivery.ts:118:31 ""', 'apps/server/src/modules/notifications/delivery.ts:147:31 ""'],
  },
  {
    why: LATER(
      'test/notifications/delivery-edges.test.ts: "SMS whose charge fails for another reason than the balance": a trigger makes the ' +
        'ledger refuse the booking; the job throws (no skipped_balance, no alert, the lease given back) and the retry sends',
    ),
    mutants: ['apps/server/src/modules/notifications/delivery.ts:155:11 false'],
  },
  {
    why:
      "Equivalent: deliverWebhook's own guards before the lease only save its queries. A job at another attempt than " +
      "the notification's is found done by takeLease (the attempt is part of its condition), and a notification's " +
      'account cannot be missing: the notification goes with its status event, its tracking or shipment and its ' +
      'account (cascade). webhook-edges.test.ts: "a job ... at another attempt posts nothing" holds either way.',
    mutants: [
      'apps/server/src/modules/notifications/delivery.ts:210:38 false',
      'apps/server/src/modules/notifications/delivery.ts:212:7 false',
    ],
  },
  {
    why: "Equivalent: the channel only sets the lease's length, and any channel but 'email' and 'sms' ('' as well) gets the webhook timeout's.",
    mutants: ['apps/server/src/modules/notifications/delivery.ts:213:31 ""', 'apps/server/src/modules/notifications/delivery.ts:338:27 ""'],
  },
  {
    why:
      'Logging: with `if (outcome)` true, an attempt that another worker settled first (the settle returns null) also ' +
      'logs a line with outcome null; what is written is the same (that worker logged its own outcome).',
    mutants: ['apps/server/src/modules/notifications/delivery.ts:315:7 true'],
  },
  {
    why:
      "Equivalent but for a log line's job id: takeWebhookLeases claims a notification only at its current attempt, so " +
      'without the attempt check a stale job of the same notification, when it comes first in the batch, carries the ' +
      "claim instead of the current job: the same notification is posted once, at the claim's attempt, and the current " +
      "job goes the one-at-a-time way and finds it settled. Only the jobId in the attempt's log context differs.",
    mutants: ['apps/server/src/modules/notifications/delivery.ts:347:14 true'],
  },
  {
    why: LATER(
      'test/notifications/webhook-batch.test.ts: "a notification whose lease a dead worker left is posted by the ' +
        'batch\'s job once the lease runs out"',
    ),
    mutants: [
      'apps/server/src/modules/notifications/delivery.ts:348:10 ;',
      'apps/server/src/modules/notifications/delivery.ts:407:44 () => undefined',
    ],
  },
  {
    why:
      "Logging: a batch's post, its delivered line and its one-at-a-time way without the job id in their log context; " +
      'nothing else reads it.',
    mutants: [
      'apps/server/src/modules/notifications/delivery.ts:350:71 {}',
      'apps/server/src/modules/notifications/delivery.ts:357:52 {}',
      'apps/server/src/modules/notifications/delivery.ts:386:28 {}',
    ],
  },
  {
    why:
      "Logging: with `settled.has` true, a batch's 2xx answer that another worker settled first also logs a delivered " +
      'line; what is written is the same (the joint settle left that row alone).',
    mutants: ['apps/server/src/modules/notifications/delivery.ts:385:15 true'],
  },
  {
    why:
      'Equivalent: with no 2xx answer in the batch, settleDeliveredWebhooks is called with no rows and returns an empty set ' +
      'before any statement, and every answer is then settled on its own, as without the call.',
    mutants: [
      'apps/server/src/modules/notifications/delivery.ts:369:9 true',
      'apps/server/src/modules/notifications/delivery.ts:369:9 ok.length >= 0',
    ],
  },
  {
    why: LATER(
      'test/notifications/webhook-edges.test.ts: each webhook outcome (delivered one at a time or in a batch, retrying, ' +
        'disabled, given up, an address refused at send) has one line with its words, level, ids, attempt, answer and ' +
        "error, and a batch whose joint settle fails says so; the refused address's line and the outcome words",
    ),
    mutants: [
      'apps/server/src/modules/notifications/delivery.ts:257:24 ""',
      'apps/server/src/modules/notifications/delivery.ts:257:34 {}',
      'apps/server/src/modules/notifications/delivery.ts:280:11 ""',
      'apps/server/src/modules/notifications/delivery.ts:293:14 ""',
      'apps/server/src/modules/notifications/delivery.ts:307:14 ""',
    ],
  },
  {
    why: 'Timing only: > or >= at the end of the retry window differ only when the next try falls on its exact millisecond.',
    mutants: ['apps/server/src/modules/notifications/delivery.ts:297:9 at.getTime() - n.createdAt.getTime() >= t.webhookMaxAgeMs'],
  },
  {
    why:
      "Killed by a test added after this run (test/notifications/queued-log.test.ts, now in the part's files): the " +
      '"status change: notifications queued" line\'s event, tracking or shipment, statuses and each notification by id, ' +
      "channel and (held, limited) status. `true`, `false`, { status } -> {}, a notification's object -> {}, the message " +
      '"" and { trackingId } -> {} were applied by hand and fail it; the others change the same fields and are not ' +
      'checked by hand. The next run of notifications-2 counts them.',
    mutants: [
      'apps/server/src/modules/notifications/fanout.ts:235:5 {}',
      'apps/server/src/modules/notifications/fanout.ts:240:35 () => undefined',
      'apps/server/src/modules/notifications/fanout.ts:240:43 {}',
      'apps/server/src/modules/notifications/fanout.ts:240:79 true',
      'apps/server/src/modules/notifications/fanout.ts:240:79 false',
      "apps/server/src/modules/notifications/fanout.ts:240:79 n.status === 'pending'",
      'apps/server/src/modules/notifications/fanout.ts:240:92 ""',
      'apps/server/src/modules/notifications/fanout.ts:240:104 {}',
      'apps/server/src/modules/notifications/fanout.ts:242:5 ""',
      'apps/server/src/modules/notifications/fanout.ts:368:56 {}',
    ],
  },
  {
    why: LATER(
      'test/notifications/queued-log.test.ts: "a shipment\'s change by an unverified company": its held messages have no delivery job ' +
        '(`true` applied by hand fails it)',
    ),
    mutants: [
      'apps/server/src/modules/notifications/fanout.ts:232:5 inserted',
      'apps/server/src/modules/notifications/fanout.ts:232:28 true',
    ],
  },
  {
    why:
      "Equivalent: with accountReadHere false the gate reads the account's verified flag from the database under its " +
      'share lock instead of taking it from the row this transaction read: the same answer, one statement more. Every ' +
      'caller that hands over a row it did not read passes false itself (fanOutStatusEvent, decision 148).',
    mutants: [
      'apps/server/src/modules/notifications/fanout.ts:225:21 false',
      'apps/server/src/modules/notifications/fanout.ts:317:21 false',
    ],
  },
];

const RESULTS = 'bench/results/mutation.json';
/** In a part's report directory: the mutants that timed out in its full run and were then tested again alone. */
const RETESTED = 'timeouts-retested.json';
/** In a part's report directory: the database its tests ran on in its last run (written when the run starts). */
const RUN_INFO = 'run.json';

/**
 * The database a run's tests use: PostgreSQL when TEST_DATABASE_URL is set (each test file copies a template into a
 * database of its own, about 1 s, where PGlite loads a 43 MB dump in 4-6 s), else PGlite. A mutant a test kills
 * on one is killed by the same test on the other: the tests and their assertions are the same.
 */
const databaseOf = (env = process.env) => (env.TEST_DATABASE_URL ? 'postgresql' : 'pglite');
const DETECTED = ['Killed', 'Timeout'];
const UNDETECTED = ['Survived', 'NoCoverage'];

const pct = (n, d) => (d ? Math.round((n / d) * 10_000) / 100 : null);

/**
 * Counts and scores of a list of mutant results: `score` is detected / (detected + undetected), as Stryker computes
 * it (a timeout counts as detected); `scoreKilledOnly` counts only mutants a test failed on (a timeout as undetected),
 * the score a loaded machine cannot inflate (decision 161).
 */
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
  return { score: pct(detected, valid), scoreKilledOnly: pct(counts.killed, valid), tested: valid, ...counts };
}

/** The name of a module's part: the module's own name if it has one part, else <module>-<n>. */
const partId = (name, parts, i) => (parts.length > 1 ? `${name}-${i + 1}` : name);

/** Where a part of a module keeps its reports: reports/mutation/<module>[-<part>]. */
const dirOf = (name, i) => path.join('reports/mutation', partId(name, MODULES[name], i));

/**
 * The mutants of a part's run from its reports on disk: a finished run (JSON report), a stopped one (event files);
 * undefined if it has none. `date`: when the report (or the last event) was written.
 */
function partMutants(dir) {
  const report = path.join(dir, 'mutation.json');
  const retestFile = path.join(dir, RETESTED);
  const retested = existsSync(retestFile) ? JSON.parse(readFileSync(retestFile, 'utf8')) : undefined;
  const infoFile = path.join(dir, RUN_INFO);
  const database = existsSync(infoFile) ? JSON.parse(readFileSync(infoFile, 'utf8')).database : undefined;
  if (existsSync(report)) {
    const r = JSON.parse(readFileSync(report, 'utf8'));
    const mutants = Object.entries(r.files).flatMap(([file, f]) => f.mutants.map((m) => ({ ...m, file })));
    return { mutants, complete: true, date: statSync(report).mtime.toISOString(), retested, database };
  }
  const events = path.join(dir, 'events');
  if (!existsSync(events)) return undefined;
  const files = readdirSync(events)
    .filter((f) => f.endsWith('-onMutantTested.json'))
    .map((f) => path.join(events, f));
  if (!files.length) return undefined;
  const mutants = files
    .map((f) => JSON.parse(readFileSync(f, 'utf8')))
    .map((m) => ({ ...m, file: m.fileName ? path.relative(process.cwd(), m.fileName) : undefined }));
  const last = Math.max(...files.map((f) => statSync(f).mtimeMs));
  return { mutants, complete: false, date: new Date(last).toISOString(), database };
}

/** The reason written beside a survivor (`file:line:column replacement`), from EXPLAINED. */
const explained = (key) => EXPLAINED.find((e) => e.mutants.includes(key))?.why;

/**
 * Whether a survivor (`file:line:column`) lies in a part's `mutate` entry as an older results file wrote it (a file,
 * or Stryker's `file:from-to`): survivors written before they named their part are given to their part by this.
 */
function inEntry(at, entry) {
  const [, file, line] = /^(.*):(\d+):\d+$/.exec(at) ?? [];
  const [, rFile, from, to] = /^(.*):(\d+)-(\d+)$/.exec(entry) ?? [];
  if (rFile) return rFile === file && Number(line) >= Number(from) && Number(line) <= Number(to);
  return entry === file;
}

const COUNTS = ['killed', 'survived', 'timeout', 'noCoverage', 'compileErrors', 'runtimeErrors', 'ignored'];

/**
 * A module's entry in the results, merged part by part. A part with mutants on disk (`found[i]`, from this run or a
 * report left by an earlier one) is written from them; a part without keeps its entry and its survivors from `prev`
 * (the module as the results file had it), or is written "not run". The module's counts, score and completeness
 * are those of its parts together. Undefined when no part has ever run.
 * `ran[i]`: the seconds of a part run now; `explain(key)`: the reason for a survivor, if one is written.
 */
export function mergeModule(name, parts, found, prev = {}, { ran = {}, machine, explain = () => undefined } = {}) {
  const prevParts = new Map((prev.parts ?? []).map((p) => [p.part, p]));
  const entries = [];
  const survivors = [];
  const timeouts = [];
  parts.forEach((part, i) => {
    const id = partId(name, parts, i);
    const f = found[i];
    const old = prevParts.get(id);
    if (f) {
      entries.push({
        part: id,
        mutate: part.mutate,
        tests: part.tests,
        run: f.complete ? 'complete' : 'stopped',
        ...summarise(f.mutants),
        date: f.date,
        seconds: ran[i] ?? (old?.date === f.date ? old?.seconds : undefined),
        ...(f.retested ? { timeoutsRetested: f.retested.mutants.length, retestedAt: f.retested.date } : {}),
        ...(f.database ? { database: f.database } : {}),
      });
      timeouts.push(...timeoutsOf(id, f));
      for (const x of f.mutants.filter((m) => UNDETECTED.includes(m.status))) {
        const at = `${x.file}:${x.location.start.line}:${x.location.start.column}`;
        survivors.push({
          part: id,
          status: x.status,
          at,
          mutator: x.mutatorName,
          replacement: x.replacement,
          why: explain(`${at} ${x.replacement}`) ?? null,
        });
      }
    } else if (old && old.run !== 'not run') {
      entries.push({
        ...old,
        scoreKilledOnly: old.scoreKilledOnly ?? killedOnly(old),
        date: old.date ?? prev.date,
        seconds: old.seconds ?? (parts.length === 1 ? prev.seconds : undefined),
      });
      timeouts.push(...(prev.timeouts ?? []).filter((t) => t.part === id));
      for (const s of prev.survivors ?? [])
        if (s.part ? s.part === id : old.mutate.some((e) => inEntry(s.at, e)))
          survivors.push({ part: id, ...s, why: explain(`${s.at} ${s.replacement}`) ?? s.why ?? null });
    } else entries.push({ part: id, mutate: part.mutate, tests: part.tests, run: 'not run' });
  });
  const measured = entries.filter((e) => e.run !== 'not run');
  if (!measured.length) return undefined;
  const counts = Object.fromEntries(COUNTS.map((k) => [k, measured.reduce((n, e) => n + (e[k] ?? 0), 0)]));
  const tested = counts.killed + counts.timeout + counts.survived + counts.noCoverage;
  const dates = measured
    .map((e) => e.date)
    .filter(Boolean)
    .sort();
  const seconds = measured.map((e) => e.seconds).filter((s) => s !== undefined);
  return {
    score: pct(counts.killed + counts.timeout, tested),
    scoreKilledOnly: pct(counts.killed, tested),
    tested,
    ...counts,
    complete: entries.every((e) => e.run === 'complete'),
    parts: entries,
    command: `npm run mutation -- ${name}`,
    date: dates.at(-1) ?? prev.date,
    seconds: seconds.length ? seconds.reduce((a, b) => a + b, 0) : prev.seconds,
    // The machine of this run only if a part it ran left mutants (a run that failed in its dry run left none).
    machine: Object.keys(ran).some((i) => found[i]) ? machine : prev.machine,
    unexplained: survivors.filter((x) => !x.why).length,
    survivors: survivors.sort(byPlace),
    timeouts: timeouts.sort(byPlace),
  };
}

const byPlace = (a, b) => a.at.localeCompare(b.at, undefined, { numeric: true });
const killedOnly = (e) => pct(e.killed ?? 0, (e.killed ?? 0) + (e.timeout ?? 0) + (e.survived ?? 0) + (e.noCoverage ?? 0));
const placeOf = (x) => `${x.file}:${x.location.start.line}:${x.location.start.column}`;

/**
 * A part's timed-out mutants: each that timed out in its full run and was tested again alone (`retest`: its status
 * then), and each that timed out and was not (`retest`: null).
 */
function timeoutsOf(part, f) {
  const again = new Set(f.retested?.mutants ?? []);
  return f.mutants
    .filter((m) => again.has(`${placeOf(m)} ${m.replacement}`) || m.status === 'Timeout')
    .map((m) => ({
      part,
      at: placeOf(m),
      mutator: m.mutatorName,
      replacement: m.replacement,
      retest: again.has(`${placeOf(m)} ${m.replacement}`) ? m.status : null,
    }));
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

/** One Stryker run of a part into `dir`; its exit code. */
function stryker(part, dir, extra = []) {
  const ranges = part.mutate.flatMap((m) => resolveMutate(m));
  console.log(`   lines: ${ranges.join(' ')}`);
  const r = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', '--mutate', ranges.join(','), ...extra], {
    stdio: 'inherit',
    env: { ...process.env, MUTATION_TESTS: part.tests.join(','), MUTATION_REPORT_DIR: dir },
  });
  return r.status ?? 1;
}

/** How much longer than in a full run a timed-out mutant's tests may run when it is tested again alone. */
export const RETEST_TIMEOUT_FACTOR = 8;

/**
 * Takes a finished run's timed-out mutants out of its incremental file (`incremental`, the report's schema), so that
 * the next run of the part reuses every other result and tests only them; the keys (`file:line:column replacement`)
 * of those taken out.
 */
export function dropTimeouts(incremental) {
  const dropped = [];
  for (const [file, f] of Object.entries(incremental.files))
    f.mutants = f.mutants.filter((m) => {
      if (m.status !== 'Timeout') return true;
      dropped.push(`${file}:${m.location.start.line}:${m.location.start.column} ${m.replacement}`);
      return false;
    });
  return dropped;
}

/**
 * Tests again, alone and with RETEST_TIMEOUT_FACTOR, the mutants that timed out in a part's finished run (decision
 * 161): a timeout on a loaded machine may be the machine's. Their keys go to RETESTED; if the retest does not finish,
 * the full run's report is put back and the timeouts stay as they were (not retested).
 */
function retestTimeouts(part, dir) {
  const report = path.join(dir, 'mutation.json');
  const incremental = path.join(dir, 'incremental.json');
  if (!existsSync(report) || !existsSync(incremental)) return 0;
  const full = readFileSync(report, 'utf8');
  const inc = JSON.parse(readFileSync(incremental, 'utf8'));
  const dropped = dropTimeouts(inc);
  if (!dropped.length) return 0;
  console.log(`   ${dropped.length} timed out: tested again alone (timeoutFactor ${RETEST_TIMEOUT_FACTOR})`);
  writeFileSync(incremental, JSON.stringify(inc));
  rmSync(report);
  const code = stryker(part, dir, ['--timeoutFactor', String(RETEST_TIMEOUT_FACTOR)]);
  if (existsSync(report)) {
    const before = existsSync(path.join(dir, RETESTED)) ? JSON.parse(readFileSync(path.join(dir, RETESTED), 'utf8')).mutants : [];
    const mutants = [...new Set([...before, ...dropped])];
    writeFileSync(path.join(dir, RETESTED), JSON.stringify({ date: new Date().toISOString(), mutants }, null, 2));
    return code;
  }
  writeFileSync(report, full);
  return code || 1;
}

/**
 * Runs a module's parts (or only part `only`), each followed by the retest of its timeouts (only that with
 * `retestOnly`, on the part's last report); the seconds each part took, by its index.
 */
function run(name, only, { retestOnly = false } = {}) {
  const seconds = {};
  let exitCode = 0;
  MODULES[name].forEach((part, i) => {
    if (only !== undefined && only !== i) return;
    const started = Date.now();
    const dir = dirOf(name, i);
    mkdirSync(dir, { recursive: true });
    console.log(`\n== ${name} (${dir}): ${part.mutate.join(' ')}\n   tests: ${part.tests.join(' ')}`);
    if (!retestOnly) {
      // The previous report would pass for this run's if this one stopped: only this run's files count.
      rmSync(path.join(dir, 'mutation.json'), { force: true });
      rmSync(path.join(dir, RETESTED), { force: true });
      writeFileSync(path.join(dir, RUN_INFO), JSON.stringify({ database: databaseOf(), started: new Date().toISOString() }, null, 2));
      exitCode ||= stryker(part, dir);
    }
    exitCode ||= retestTimeouts(part, dir);
    seconds[i] = Math.round((Date.now() - started) / 1000);
  });
  return { seconds, exitCode };
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

/** Rewrites bench/results/mutation.json: each module merged by part (mergeModule), the others kept as they were. */
function merge(ranNow) {
  const out = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : { modules: {} };
  out.command = 'npm run mutation [-- module ...]';
  out.tool = 'StrykerJS 10.1.1, @stryker-mutator/vitest-runner 10.1.1, coverageAnalysis perTest, concurrency 1';
  out.threshold = 80;
  for (const name of Object.keys(MODULES)) {
    const found = MODULES[name].map((_, i) => partMutants(dirOf(name, i)));
    const merged = mergeModule(name, MODULES[name], found, out.modules[name], {
      ran: ranNow[name]?.seconds,
      machine: ranNow[name] ? machine() : undefined,
      explain: explained,
    });
    if (merged) out.modules[name] = merged;
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
      const r = run(t.name, t.part, { retestOnly: args.includes('--retest-timeouts') });
      ranNow[t.name] = { seconds: { ...ranNow[t.name]?.seconds, ...r.seconds }, exitCode: ranNow[t.name]?.exitCode || r.exitCode };
    }
  merge(ranNow);
}
