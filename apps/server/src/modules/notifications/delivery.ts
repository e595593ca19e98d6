import { setTimeout as sleep } from 'node:timers/promises';
import { PRICING } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { newVersion } from '../../lib/ids.ts';
import { raiseAlert } from '../alerts/alerts.service.ts';
import { InsufficientBalanceError, charge, credit } from '../billing/billing.service.ts';
import { SmsError, smsGateway } from '../sms/sms.service.ts';
import * as repo from './notifications.repository.ts';
import { faults, tuning } from './tuning.ts';
import { webhookQueue, type NotifyJob } from './queues.ts';
import { enqueue } from '../../jobs/define.ts';
import { signatureHeader } from './signing.ts';
import { UnsafeWebhookUrlError, WebhookLookupUnavailableError, resolveWebhookTarget, targetOptions } from './ssrf.ts';
import { postWebhook, type PostResult } from './webhook-client.ts';
import { withLogContext } from '../../lib/log-context.ts';
import { SMS_TIMEOUT_MS } from '../sms/sms.service.ts';

const SETTLED = new Set<string>(repo.SETTLED_STATUSES);

/** Where the job stands in pg-boss's retries: the last try turns a temporary failure into 'failed'. */
export interface JobInfo {
  retryCount: number;
  retryLimit: number;
}

/**
 * A delivery attempt holds its notification for the longest the provider call can take plus this margin, so a
 * second run of the same delivery (pg-boss retries a job whose heartbeat went stale, say after a database
 * restart, while its worker is still sending) waits for the live attempt instead of sending again. A worker
 * killed mid-attempt leaves a lease that simply runs out.
 */
const LEASE_MARGIN_SECONDS = 30;
const leaseSeconds = (ctx: AppContext, channel: 'email' | 'sms' | 'webhook'): number =>
  tuning(ctx).leaseSeconds ??
  (channel === 'email' ? ctx.mailer.sendTimeoutMs : channel === 'sms' ? SMS_TIMEOUT_MS : tuning(ctx).webhookTimeoutMs) / 1000 +
    LEASE_MARGIN_SECONDS;

/**
 * Take the notification's lease for this attempt, waiting while another live attempt holds it: the lease's end time,
 * or null when there is nothing left to do (the other attempt settled it). Gives up after a lease's time and throws,
 * so the job is retried later.
 */
async function holdAttempt(
  ctx: AppContext,
  id: string,
  channel: 'email' | 'sms' | 'webhook',
  attempt: number | null,
): Promise<string | null> {
  const seconds = leaseSeconds(ctx, channel);
  const giveUpAt = Date.now() + (seconds + 5) * 1000;
  for (let waited = false; ; waited = true) {
    const lease = await repo.takeLease(ctx.db, id, seconds, attempt);
    if (lease.held) return lease.until;
    if (lease.done) return null;
    if (Date.now() + lease.waitMs > giveUpAt) throw new Error(`notification ${id} is held by another delivery attempt`);
    if (!waited) ctx.log.info({ notificationId: id, waitMs: lease.waitMs }, 'notification held by a live attempt: waiting');
    await sleep(Math.min(lease.waitMs + 20, 500));
  }
}

/**
 * Run one attempt under the lease. Settling the notification ends the lease (the repository clears it); an attempt
 * that throws gives it back, so the job's retry does not wait for it (a process that dies leaves it to run out).
 */
async function underLease(
  ctx: AppContext,
  id: string,
  channel: 'email' | 'sms' | 'webhook',
  attempt: number | null,
  run: () => Promise<void>,
): Promise<void> {
  const until = await holdAttempt(ctx, id, channel, attempt);
  if (!until) return;
  try {
    await run();
  } catch (err) {
    await repo.releaseLease(ctx.db, id, until).catch(() => undefined);
    throw err;
  }
}

const errText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);
const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * One line per delivery outcome, with the notification's id and its status event's id (the same ids the
 * "status change: notifications queued" line lists) and, from the log context, the job's id. No recipient,
 * body or secret: the notification id leads to those in the database.
 */
function logOutcome(
  ctx: AppContext,
  n: { id: string; eventId: string; channel: string },
  outcome: string,
  extra: Record<string, unknown> = {},
): void {
  const level = outcome === 'failed' || outcome === 'retrying' ? 'warn' : 'info';
  ctx.log[level]({ notificationId: n.id, eventId: n.eventId, channel: n.channel, outcome, ...extra }, `notification ${outcome}`);
}

/** SMTP 5xx is a final no (no such mailbox, refused); anything else (4xx, network) may pass later. */
function isPermanentMailError(err: unknown): boolean {
  const code = (err as { responseCode?: number }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/**
 * Email. Idempotent (ARCHITECTURE §3): acceptance by the SMTP server is recorded (accepted_at,
 * provider_id) before the job completes, and a run that finds it recorded sends nothing. A worker killed
 * between the server's acceptance and that record sends again on retry, under the same Message-ID.
 */
export async function deliverEmail(
  ctx: AppContext,
  notificationId: string,
  job: JobInfo = { retryCount: 0, retryLimit: 0 },
): Promise<void> {
  const n = await repo.findNotification(ctx.db, notificationId);
  if (!n || n.acceptedAt || SETTLED.has(n.status)) return;
  await underLease(ctx, n.id, 'email', null, async () => {
    const msg = n.payload as { subject: string; text: string; html: string };
    await repo.markSending(ctx.db, n.id);
    await faults(ctx).beforeSend?.(n.id);
    let info: { id: string };
    try {
      info = await ctx.mailer.send({ to: n.recipient, subject: msg.subject, text: msg.text, html: msg.html, messageId: n.id });
    } catch (err) {
      const final = isPermanentMailError(err) || job.retryCount >= job.retryLimit;
      await repo.updateNotification(ctx.db, n.id, { status: final ? 'failed' : 'retrying', lastError: errText(err), leaseUntil: null });
      logOutcome(ctx, n, final ? 'failed' : 'retrying', { error: errText(err) });
      if (final) return;
      throw err;
    }
    await repo.markAccepted(ctx.db, n.id, info.id, ctx.now());
    logOutcome(ctx, n, 'sent');
    await faults(ctx).afterAccept?.(n.id);
  });
}

/**
 * SMS. The $0.04 charge (keyed by the notification id, so it is booked once however often this runs)
 * commits in the same transaction that marks the SMS as being sent; with too little balance nothing is
 * sent, the notification is 'skipped_balance' and a payment alert says why. An SMS the provider
 * refuses for good is refunded.
 */
export async function deliverSms(ctx: AppContext, notificationId: string, job: JobInfo = { retryCount: 0, retryLimit: 0 }): Promise<void> {
  const n = await repo.findNotification(ctx.db, notificationId);
  if (!n || n.acceptedAt || SETTLED.has(n.status)) return;
  await underLease(ctx, n.id, 'sms', null, async () => {
    const { body } = n.payload as { body: string };
    try {
      await ctx.db.transaction(async (tx) => {
        await charge(tx, n.userId, PRICING.smsCents, 'sms', n.id, `SMS to ${n.recipient}`);
        await repo.markSending(tx, n.id);
      });
    } catch (err) {
      if (!(err instanceof InsufficientBalanceError)) throw err;
      await ctx.db.transaction(async (tx) => {
        await repo.updateNotification(tx, n.id, { status: 'skipped_balance', lastError: err.message, leaseUntil: null });
        await raiseAlert(tx, n.userId, {
          group: 'payment',
          name: 'smsNotSent',
          level: 'warning',
          message: `SMS notifications are not being sent: your balance is too low ($${(PRICING.smsCents / 100).toFixed(2)} per SMS). Add balance to receive them again.`,
          dedupeKey: `sms-balance:${day(ctx.now())}`,
        });
      });
      logOutcome(ctx, n, 'skipped_balance');
      return;
    }
    await faults(ctx).beforeSend?.(n.id);
    let info: { id: string };
    try {
      info = await smsGateway(ctx).send({ to: n.recipient, body });
    } catch (err) {
      const final = (err instanceof SmsError && err.permanent) || job.retryCount >= job.retryLimit;
      if (!final) {
        await repo.updateNotification(ctx.db, n.id, { status: 'retrying', lastError: errText(err), leaseUntil: null });
        logOutcome(ctx, n, 'retrying', { error: errText(err) });
        throw err;
      }
      await ctx.db.transaction(async (tx) => {
        await credit(tx, n.userId, PRICING.smsCents, 'refund', n.id, `SMS to ${n.recipient} not sent`);
        await repo.updateNotification(tx, n.id, { status: 'failed', lastError: errText(err), leaseUntil: null });
      });
      logOutcome(ctx, n, 'failed', { error: errText(err) });
      return;
    }
    await repo.markAccepted(ctx.db, n.id, info.id, ctx.now());
    logOutcome(ctx, n, 'sent');
    await faults(ctx).afterAccept?.(n.id);
  });
}

/** Exponential backoff with ±20 % jitter, capped; Retry-After wins when the receiver sent one. */
export function nextWebhookDelayMs(ctx: AppContext, attempt: number, retryAfterMs: number | null): number {
  const t = tuning(ctx);
  if (retryAfterMs !== null) return Math.min(Math.max(retryAfterMs, 1000), 24 * 3600_000);
  const base = Math.min(t.webhookBaseDelayMs * 2 ** Math.min(attempt, 30), t.webhookMaxDelayMs);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/**
 * Webhook (Standard Webhooks). Each job performs attempt `job.attempt`: it posts the body fixed at
 * fan-out with the notification id as webhook-id, logs the attempt, and settles it only if no other
 * worker settled that attempt first. Non-2xx answers and network failures are retried on our own
 * schedule (a new job with startAfter, written in the same transaction as the attempt), for about
 * three days; 410 Gone turns the endpoint off and raises an alert.
 */
export async function deliverWebhook(ctx: AppContext, data: NotifyJob): Promise<void> {
  const n = await repo.findNotification(ctx.db, data.notificationId);
  if (!n || SETTLED.has(n.status) || n.attempts !== data.attempt) return;
  const secrets = await repo.findUserSecrets(ctx.db, n.userId);
  if (!secrets) return;
  await underLease(ctx, n.id, 'webhook', data.attempt, async () => settleWebhook(ctx, n, data.attempt, await postAttempt(ctx, n, secrets)));
}

type WebhookNotification = Pick<repo.NotificationRow, 'id' | 'eventId' | 'userId' | 'channel' | 'recipient' | 'payload' | 'createdAt'>;

/** Post the attempt, signed; an address that is not allowed (checked again at send: DNS may have changed since the URL was saved) is the answer too. */
async function postAttempt(
  ctx: AppContext,
  n: WebhookNotification,
  secrets: repo.WebhookClaim['secrets'],
): Promise<PostResult | UnsafeWebhookUrlError> {
  const { body } = n.payload as { body: string };
  try {
    const target = await resolveWebhookTarget(n.recipient, targetOptions(ctx.config));
    const now = ctx.now();
    const ts = Math.floor(now.getTime() / 1000);
    await faults(ctx).beforeSend?.(n.id);
    return await postWebhook(
      target,
      body,
      { 'webhook-id': n.id, 'webhook-timestamp': String(ts), 'webhook-signature': signatureHeader(secrets, n.id, ts, body, now) },
      tuning(ctx).webhookTimeoutMs,
    );
  } catch (err) {
    if (err instanceof UnsafeWebhookUrlError) return err;
    // No answer from the resolver just now: retried like a refused connection, never failed for good.
    if (err instanceof WebhookLookupUnavailableError)
      return { status: null, durationMs: 0, error: err.message, responseBody: null, retryAfterMs: null };
    throw err;
  }
}

const answered2xx = (r: PostResult | UnsafeWebhookUrlError): r is PostResult & { status: number } =>
  !(r instanceof UnsafeWebhookUrlError) && r.status !== null && r.status >= 200 && r.status < 300;

/** Log the attempt and settle it (delivered, retry scheduled, turned off on 410, or given up), unless another worker settled it first. */
async function settleWebhook(
  ctx: AppContext,
  n: WebhookNotification,
  attempt: number,
  result: PostResult | UnsafeWebhookUrlError,
): Promise<void> {
  if (result instanceof UnsafeWebhookUrlError) {
    await ctx.db.transaction(async (tx) => {
      await repo.insertWebhookAttempt(tx, { notificationId: n.id, httpStatus: null, durationMs: 0, error: result.message });
      await repo.settleWebhookAttempt(tx, n.id, attempt, { status: 'failed', lastError: result.message, nextAttemptAt: null });
    });
    logOutcome(ctx, n, 'failed', { attempt, error: result.message });
    return;
  }
  const t = tuning(ctx);
  const now = ctx.now();
  const ok = answered2xx(result);
  const lastError = ok ? null : (result.error ?? `HTTP ${result.status}`);
  const outcome = await ctx.db.transaction(async (tx): Promise<string | null> => {
    await repo.insertWebhookAttempt(tx, {
      notificationId: n.id,
      httpStatus: result.status,
      durationMs: result.durationMs,
      error: result.error,
      responseBody: result.responseBody,
    });
    if (ok) {
      return (await repo.settleWebhookAttempt(tx, n.id, attempt, {
        status: 'delivered',
        acceptedAt: now,
        providerId: `http-${result.status}`,
        lastError: null,
        nextAttemptAt: null,
      }))
        ? 'delivered'
        : null;
    }
    if (result.status === 410) {
      if (!(await repo.settleWebhookAttempt(tx, n.id, attempt, { status: 'disabled', lastError, nextAttemptAt: null }))) return null;
      await repo.disableWebhookEndpoint(tx, n.userId, n.recipient, newVersion());
      await raiseAlert(tx, n.userId, {
        group: 'general',
        name: 'webhookDisabled',
        level: 'danger',
        message: `Your webhook endpoint ${n.recipient} answered 410 Gone, so webhook notifications were turned off. Tick the webhook triggers again in the notification settings to turn them back on.`,
        dedupeKey: `webhook-gone:${n.recipient}:${day(now)}`,
      });
      return 'disabled';
    }
    const delay = nextWebhookDelayMs(ctx, attempt, result.retryAfterMs);
    const at = new Date(now.getTime() + delay);
    if (at.getTime() - n.createdAt.getTime() > t.webhookMaxAgeMs) {
      if (!(await repo.settleWebhookAttempt(tx, n.id, attempt, { status: 'failed', lastError, nextAttemptAt: null }))) return null;
      // After about three days of failures the event is given up: tell the user, once a day per endpoint.
      await raiseAlert(tx, n.userId, {
        group: 'general',
        name: 'webhookFailed',
        level: 'warning',
        message: `We could not deliver a webhook to ${n.recipient} after retrying for ${Math.round(t.webhookMaxAgeMs / 3600_000)} hours (last error: ${lastError}). You can resend it from the delivery log in the notification settings.`,
        dedupeKey: `webhook-failed:${n.recipient}:${day(now)}`,
      });
      return 'failed';
    }
    if (!(await repo.settleWebhookAttempt(tx, n.id, attempt, { status: 'retrying', lastError, nextAttemptAt: at }))) return null;
    const next: NotifyJob = { v: 1, notificationId: n.id, attempt: attempt + 1 };
    await enqueue(ctx, webhookQueue, next, { tx, startAfter: at });
    return 'retrying';
  });
  // null: another worker settled this attempt first, and logged it.
  if (outcome)
    logOutcome(ctx, n, outcome, {
      attempt,
      httpStatus: result.status,
      durationMs: result.durationMs,
      ...(lastError ? { error: lastError } : {}),
    });
}

/**
 * A batch of webhook jobs (one pg-boss fetch): one statement takes every lease with the signing secrets, the posts
 * go out together, and one statement logs and settles every 2xx answer. Everything else (another answer, a refused
 * address, a notification this batch could not take) goes the one-at-a-time way, with the same rules as
 * deliverWebhook. Returns, per job, the error that should make pg-boss retry it, or null.
 */
export async function deliverWebhooks(ctx: AppContext, jobs: Array<{ jobId: string; data: NotifyJob }>): Promise<Array<Error | null>> {
  const errors = new Map<number, Error>();
  const fail = (i: number, err: unknown) => errors.set(i, err instanceof Error ? err : new Error(String(err)));
  const claims = new Map(
    (
      await repo.takeWebhookLeases(
        ctx.db,
        jobs.map((j) => ({ id: j.data.notificationId, attempt: j.data.attempt })),
        leaseSeconds(ctx, 'webhook'),
      )
    ).map((c) => [c.id, c]),
  );
  const held: Array<{ i: number; jobId: string; c: repo.WebhookClaim }> = [];
  const alone: number[] = [];
  jobs.forEach((j, i) => {
    const c = claims.get(j.data.notificationId);
    // A notification twice in one batch (a stale duplicate job) is posted by its first job only.
    if (c && c.attempt === j.data.attempt && !held.some((h) => h.c.id === c.id)) held.push({ i, jobId: j.jobId, c });
    else alone.push(i);
  });
  const one = (i: number, run: () => Promise<void>) => withLogContext({ jobId: jobs[i]!.jobId }, run).catch((err) => fail(i, err));
  const giveBack = (h: (typeof held)[number]) => repo.releaseLease(ctx.db, h.c.id, h.c.until).catch(() => undefined);

  const batch = async () => {
    const posted = await Promise.all(
      held.map(async (h) => {
        try {
          return { h, result: await withLogContext({ jobId: h.jobId }, () => postAttempt(ctx, h.c, h.c.secrets)) };
        } catch (err) {
          await giveBack(h);
          fail(h.i, err);
          return null;
        }
      }),
    );
    const done = posted.filter((p): p is NonNullable<typeof p> => p !== null);
    const ok = done.filter((p): p is { h: (typeof held)[number]; result: PostResult & { status: number } } => answered2xx(p.result));
    const rest = done.filter((p) => !answered2xx(p.result));
    let settledTogether = false;
    if (ok.length > 0) {
      const now = ctx.now();
      try {
        const settled = await repo.settleDeliveredWebhooks(
          ctx.db,
          ok.map(({ h, result }) => ({
            id: h.c.id,
            attempt: h.c.attempt,
            httpStatus: result.status,
            durationMs: result.durationMs,
            responseBody: result.responseBody,
          })),
          now,
        );
        settledTogether = true;
        for (const { h, result } of ok)
          if (settled.has(h.c.id))
            withLogContext({ jobId: h.jobId }, () =>
              logOutcome(ctx, h.c, 'delivered', { attempt: h.c.attempt, httpStatus: result.status, durationMs: result.durationMs }),
            );
      } catch (err) {
        // Nothing was written: settle each on its own below.
        ctx.log.warn({ err: errText(err), deliveries: ok.length }, 'webhook batch settle failed: settling one by one');
      }
    }
    await Promise.all(
      (settledTogether ? rest : done).map(({ h, result }) =>
        one(h.i, async () => {
          try {
            await settleWebhook(ctx, h.c, h.c.attempt, result);
          } catch (err) {
            await giveBack(h);
            throw err;
          }
        }),
      ),
    );
  };
  await Promise.all([batch(), ...alone.map((i) => one(i, () => deliverWebhook(ctx, jobs[i]!.data)))]);
  return jobs.map((_, i) => errors.get(i) ?? null);
}
