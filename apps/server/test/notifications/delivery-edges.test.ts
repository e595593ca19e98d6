// The edges of mail and SMS delivery that mutation testing found unguarded (issue 27, delivery-1): a job re-run
// after its notification was accepted or settled sends and charges nothing more; a job whose notification is gone
// does nothing; a second attempt waits out a live attempt's lease and gives up when that lease outlasts its wait;
// the retry limit's edge (the last try is final); what a failure and a skipped SMS record; an SMS whose charge fails
// for another reason than the balance is retried, not skipped. And the lines an operator follows from a status
// change's "notifications queued" line to each outcome: one per outcome with the notification's and its event's
// ids, the channel, the outcome and the error, and one when an attempt starts waiting on a live one.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { PRICING } from '@shiptrail/contract';
import { alerts, ledgerEntries, notifications } from '../../src/db/schema.ts';
import { insertEntryOnce } from '../../src/modules/billing/billing.repository.ts';
import { balanceCents } from '../../src/modules/billing/billing.service.ts';
import { deliverEmail, deliverSms } from '../../src/modules/notifications/delivery.ts';
import { takeLease } from '../../src/modules/notifications/notifications.repository.ts';
import type { TestEnv } from '../helpers.ts';
import { onLoopback } from '../loopback.ts';
import {
  accountWithNotification,
  everyChangeBy,
  fastTuning,
  startNotificationEnv,
  type FakeTwilio,
  type NotificationEnv,
} from './fixtures.ts';

const LEASE_SECONDS = 1; // a waiting attempt gives up when the live lease would outlast 1 + 5 s from its start

/** A loopback SMTP server that counts the notification mails it accepts and can refuse a recipient with a given code. */
async function startRefusingSmtp() {
  const accepted: string[] = [];
  let refuse: { code: number; to: string } | null = null;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo(address, _session, cb) {
      if (refuse?.to !== address.address) return cb();
      cb(Object.assign(new Error(`mailbox says no (${refuse.code})`), { responseCode: refuse.code }));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        // Notification mails carry the notification id as Message-ID; the account's own mails (verify) do not count.
        if (/^Message-ID: <[^>]+@shiptrail>/im.test(Buffer.concat(chunks).toString('utf8')))
          accepted.push(...session.envelope.rcptTo.map((r) => r.address));
        cb();
      });
    },
  });
  const loopback = await onLoopback(server.server, (done) => server.close(done));
  return {
    url: `smtp://127.0.0.1:${loopback.port}`,
    to: (addr: string) => accepted.filter((a) => a === addr).length,
    /** Refuse mail to `to` with `code` (null: accept all). */
    refuseWith: (code: number | null, to = '') => {
      refuse = code === null ? null : { code, to };
    },
    close: loopback.close,
  };
}
type RefusingSmtp = Awaited<ReturnType<typeof startRefusingSmtp>>;

type Line = { msg?: string; level?: number; [k: string]: unknown };

describe('mail and SMS delivery at their edges', () => {
  let ne: NotificationEnv<RefusingSmtp>;
  let env: TestEnv;
  let smtp: RefusingSmtp;
  let twilio: FakeTwilio;
  const lines: Line[] = [];
  beforeAll(async () => {
    const logTo = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
        done();
      },
    });
    ne = await startNotificationEnv({ smtp: startRefusingSmtp, env: { LOG_LEVEL: 'info' }, logTo });
    ({ env, smtp, twilio } = ne);
    fastTuning(env.ctx, { leaseSeconds: LEASE_SECONDS });
  });
  beforeEach(() => {
    smtp.refuseWith(null);
    twilio.setRespond((r) => ({ status: 201, json: { sid: `SM${randomUUID().replace(/-/g, '')}`, to: r.to, status: 'queued' } }));
  });
  afterAll(() => ne.close());

  /** An account with one queued notification on `channel` (its job not run: the tests run the handler by hand). */
  const queued = (channel: 'email' | 'sms', tid: string) => accountWithNotification(env, everyChangeBy(channel), tid);
  const row = async (id: string) => (await env.ctx.db.select().from(notifications).where(eq(notifications.id, id)))[0]!;
  const ledger = (userId: string) =>
    env.ctx.db
      .select({
        amountCents: ledgerEntries.amountCents,
        kind: ledgerEntries.kind,
        ref: ledgerEntries.ref,
        description: ledgerEntries.description,
      })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, userId), sql`${ledgerEntries.kind} in ('sms', 'refund')`))
      .orderBy(ledgerEntries.id);
  const textsFor = (tid: string) => twilio.requests.filter((r) => r.body.includes(tid)).length;
  /** The outcome lines logged for a notification (logOutcome): level (30 info, 40 warn), words, outcome and error. */
  const outcomes = (n: { id: string; eventId: string; channel: string }) =>
    lines
      .filter((l) => l.notificationId === n.id && l.outcome !== undefined)
      .map((l) => {
        expect(l).toMatchObject({ eventId: n.eventId, channel: n.channel });
        return { level: l.level, msg: l.msg, outcome: l.outcome, ...(l.error !== undefined ? { error: l.error } : {}) };
      });
  const waitLines = (id: string) =>
    lines.filter((l) => l.notificationId === id && l.msg === 'notification held by a live attempt: waiting');

  it('a job whose notification is gone (the account was deleted) does nothing', async () => {
    await expect(deliverEmail(env.ctx, randomUUID())).resolves.toBeUndefined();
    await expect(deliverSms(env.ctx, randomUUID())).resolves.toBeUndefined();
  });

  it('mail: a re-run of a job whose message was accepted, or whose notification is settled, sends nothing', async () => {
    const { email, n } = await queued('email', '1ZEDGEE0001');
    await deliverEmail(env.ctx, n.id);
    expect(await row(n.id)).toMatchObject({ status: 'sent', attempts: 1 });
    await deliverEmail(env.ctx, n.id);
    await deliverEmail(env.ctx, n.id, { retryCount: 1, retryLimit: 3 });
    expect(smtp.to(email)).toBe(1);
    expect(await row(n.id)).toMatchObject({ status: 'sent', attempts: 1 });
    // One line for the one send; the re-runs log nothing.
    expect(outcomes(n)).toEqual([{ level: 30, msg: 'notification sent', outcome: 'sent' }]);

    // Settled without an acceptance (failed for good): nothing more either.
    const other = await queued('email', '1ZEDGEE0002');
    await env.ctx.db.update(notifications).set({ status: 'failed' }).where(eq(notifications.id, other.n.id));
    await deliverEmail(env.ctx, other.n.id);
    expect(smtp.to(other.email)).toBe(0);
    expect(await row(other.n.id)).toMatchObject({ status: 'failed', attempts: 0 });
  });

  it('SMS: a re-run after Twilio accepted sends nothing and the ledger keeps one charge of PRICING.smsCents keyed by the notification', async () => {
    const { u, n } = await queued('sms', '1ZEDGES0001');
    const before = await balanceCents(env.ctx.db, u.id);
    await deliverSms(env.ctx, n.id);
    await deliverSms(env.ctx, n.id);
    await deliverSms(env.ctx, n.id, { retryCount: 1, retryLimit: 3 });
    expect(textsFor('1ZEDGES0001')).toBe(1);
    expect(await row(n.id)).toMatchObject({ status: 'sent', attempts: 1 });
    expect(outcomes(n)).toEqual([{ level: 30, msg: 'notification sent', outcome: 'sent' }]);
    expect(await ledger(u.id)).toEqual([{ amountCents: -PRICING.smsCents, kind: 'sms', ref: n.id, description: 'SMS to +12025550143' }]);
    expect(before - (await balanceCents(env.ctx.db, u.id))).toBe(PRICING.smsCents);
  });

  it('SMS with too little balance: skipped, nothing charged, and the payment alert says the price', async () => {
    const { u, n } = await queued('sms', '1ZEDGES0002');
    const bal = await balanceCents(env.ctx.db, u.id);
    await insertEntryOnce(env.ctx.db, { userId: u.id, amountCents: -(bal - 1), kind: 'tracking', ref: 'drain', description: '' });
    await deliverSms(env.ctx, n.id);
    expect(textsFor('1ZEDGES0002')).toBe(0);
    expect(await row(n.id)).toMatchObject({ status: 'skipped_balance', leaseUntil: null, lastError: expect.stringMatching(/balance/i) });
    expect(outcomes(n)).toEqual([{ level: 30, msg: 'notification skipped_balance', outcome: 'skipped_balance' }]);
    expect(await ledger(u.id)).toEqual([]);
    expect(await balanceCents(env.ctx.db, u.id)).toBe(1);
    const today = env.ctx.now().toISOString().slice(0, 10);
    expect(await env.ctx.db.select().from(alerts).where(eq(alerts.userId, u.id))).toEqual([
      expect.objectContaining({
        group: 'payment',
        name: 'smsNotSent',
        level: 'warning',
        message: 'SMS notifications are not being sent: your balance is too low ($0.04 per SMS). Add balance to receive them again.',
        dedupeKey: `sms-balance:${today}`,
      }),
    ]);
    // Skipped is settled: a re-run neither sends nor charges.
    await deliverSms(env.ctx, n.id);
    expect(textsFor('1ZEDGES0002')).toBe(0);
    expect(await ledger(u.id)).toEqual([]);
  });

  it('SMS whose charge fails for another reason than the balance (the database refuses the booking): thrown for the job to retry, not skipped', async () => {
    const { u, n } = await queued('sms', '1ZEDGES0003');
    // A real failure inside the charge's transaction: the ledger refuses this notification's SMS booking.
    await env.ctx.db.execute(
      sql.raw(`create function refuse_sms_booking() returns trigger language plpgsql as $$
        begin
          if new.kind = 'sms' and new.ref = '${n.id}' then raise exception 'ledger unavailable'; end if;
          return new;
        end $$`),
    );
    await env.ctx.db.execute(
      sql.raw('create trigger refuse_sms_booking before insert on ledger_entries for each row execute function refuse_sms_booking()'),
    );
    try {
      await expect(deliverSms(env.ctx, n.id, { retryCount: 0, retryLimit: 3 })).rejects.toMatchObject({
        cause: expect.objectContaining({ message: 'ledger unavailable' }),
      });
    } finally {
      await env.ctx.db.execute(sql.raw('drop trigger refuse_sms_booking on ledger_entries'));
      await env.ctx.db.execute(sql.raw('drop function refuse_sms_booking()'));
    }
    expect(textsFor('1ZEDGES0003')).toBe(0);
    // Neither skipped nor alerted: the balance was not the reason. The lease is given back for the retry.
    expect(await row(n.id)).toMatchObject({ status: n.status, attempts: 0, leaseUntil: null });
    expect(await env.ctx.db.select().from(alerts).where(eq(alerts.userId, u.id))).toEqual([]);
    expect(await ledger(u.id)).toEqual([]);
    // The retry, with the ledger back, sends and charges once.
    await deliverSms(env.ctx, n.id, { retryCount: 1, retryLimit: 3 });
    expect(textsFor('1ZEDGES0003')).toBe(1);
    expect(await row(n.id)).toMatchObject({ status: 'sent' });
    expect((await ledger(u.id)).map((e) => e.amountCents)).toEqual([-PRICING.smsCents]);
  });

  it("a second attempt waits out a live attempt's lease, then delivers", async () => {
    const { email, n } = await queued('email', '1ZEDGEL0001');
    // A live attempt holds the notification for 2 s (less than the waiting attempt's 6 s).
    expect(await takeLease(env.ctx.db, n.id, 2, null)).toMatchObject({ held: true });
    await deliverEmail(env.ctx, n.id);
    expect(smtp.to(email)).toBe(1);
    expect(await row(n.id)).toMatchObject({ status: 'sent', leaseUntil: null });
    // It looked every half second or so for 2 s, and said it was waiting once, with how long the live lease had left.
    const waits = waitLines(n.id);
    expect(waits).toHaveLength(1);
    expect(waits[0]!.waitMs).toBeGreaterThan(0);
    expect(waits[0]!.waitMs).toBeLessThanOrEqual(2000);
  });

  it('a second attempt gives up, sending nothing, when the live lease outlasts its wait', async () => {
    const { email, n } = await queued('email', '1ZEDGEL0002');
    expect(await takeLease(env.ctx.db, n.id, 2, null)).toMatchObject({ held: true });
    // The live attempt is still at it after a second: its lease now runs 20 s more, past the waiter's 6 s.
    const extend = new Promise<void>((resolve) =>
      setTimeout(() => {
        void env.ctx.db
          .update(notifications)
          .set({ leaseUntil: sql`now() + interval '20 seconds'` })
          .where(eq(notifications.id, n.id))
          .then(() => resolve());
      }, 1000),
    );
    await expect(deliverEmail(env.ctx, n.id)).rejects.toThrow(`notification ${n.id} is held by another delivery attempt`);
    await extend;
    expect(smtp.to(email)).toBe(0);
    expect(await row(n.id)).toMatchObject({ status: n.status, attempts: 0 });
    // A lease that already outlasts the wait is given up on at once: not waited on, even though its attempt
    // settles the notification two seconds later (a waiter would then find nothing to do and return).
    const other = await queued('email', '1ZEDGEL0003');
    expect(await takeLease(env.ctx.db, other.n.id, 30, null)).toMatchObject({ held: true });
    const settle = new Promise<void>((resolve) =>
      setTimeout(() => {
        void env.ctx.db
          .update(notifications)
          .set({ status: 'sent', acceptedAt: new Date(), leaseUntil: null })
          .where(eq(notifications.id, other.n.id))
          .then(() => resolve());
      }, 2000),
    );
    await expect(deliverEmail(env.ctx, other.n.id)).rejects.toThrow('is held by another delivery attempt');
    await settle;
    expect(smtp.to(other.email)).toBe(0);
  });

  it('mail: a temporary refusal (4xx) is retried until the last try, which is final; a 5xx is final at once', async () => {
    const { email, n } = await queued('email', '1ZEDGER0001');
    smtp.refuseWith(451, email);
    // retryCount 2 of a limit of 3: one try is left, so the job throws for pg-boss to retry it.
    await expect(deliverEmail(env.ctx, n.id, { retryCount: 2, retryLimit: 3 })).rejects.toThrow(/451/);
    expect(await row(n.id)).toMatchObject({ status: 'retrying', attempts: 1, leaseUntil: null, lastError: expect.stringContaining('451') });
    // retryCount 3 of 3: the last try; failed, and the job completes.
    await expect(deliverEmail(env.ctx, n.id, { retryCount: 3, retryLimit: 3 })).resolves.toBeUndefined();
    expect(await row(n.id)).toMatchObject({ status: 'failed', attempts: 2, leaseUntil: null, lastError: expect.stringContaining('451') });
    expect(smtp.to(email)).toBe(0);
    expect(outcomes(n)).toEqual([
      { level: 40, msg: 'notification retrying', outcome: 'retrying', error: expect.stringContaining('451') },
      { level: 40, msg: 'notification failed', outcome: 'failed', error: expect.stringContaining('451') },
    ]);

    for (const [code, tid] of [
      [550, '1ZEDGER0002'],
      [500, '1ZEDGER0003'],
    ] as const) {
      const p = await queued('email', tid);
      smtp.refuseWith(code, p.email);
      await expect(deliverEmail(env.ctx, p.n.id, { retryCount: 0, retryLimit: 3 })).resolves.toBeUndefined();
      expect(await row(p.n.id), String(code)).toMatchObject({ status: 'failed', lastError: expect.stringContaining(String(code)) });
    }
    // Run without the queue's retry count (by hand): it is the last try, so a temporary refusal is final too.
    const byHand = await queued('email', '1ZEDGER0005');
    smtp.refuseWith(451, byHand.email);
    await expect(deliverEmail(env.ctx, byHand.n.id)).resolves.toBeUndefined();
    expect(await row(byHand.n.id)).toMatchObject({ status: 'failed' });
  });

  it('SMS: a temporary refusal (5xx) is retried, charged once, until the last try, which fails and refunds', async () => {
    const { u, n } = await queued('sms', '1ZEDGER0004');
    const before = await balanceCents(env.ctx.db, u.id);
    twilio.setRespond(() => ({ status: 503, json: { message: 'busy' } }));
    await expect(deliverSms(env.ctx, n.id, { retryCount: 2, retryLimit: 3 })).rejects.toThrow();
    expect(await row(n.id)).toMatchObject({ status: 'retrying', leaseUntil: null, lastError: expect.stringContaining('503') });
    expect(before - (await balanceCents(env.ctx.db, u.id))).toBe(PRICING.smsCents);
    await expect(deliverSms(env.ctx, n.id, { retryCount: 3, retryLimit: 3 })).resolves.toBeUndefined();
    expect(await row(n.id)).toMatchObject({ status: 'failed', leaseUntil: null, lastError: expect.stringContaining('503') });
    expect(textsFor('1ZEDGER0004')).toBe(2);
    expect(outcomes(n)).toEqual([
      { level: 40, msg: 'notification retrying', outcome: 'retrying', error: expect.stringContaining('503') },
      { level: 40, msg: 'notification failed', outcome: 'failed', error: expect.stringContaining('503') },
    ]);
    expect(await ledger(u.id)).toEqual([
      { amountCents: -PRICING.smsCents, kind: 'sms', ref: n.id, description: 'SMS to +12025550143' },
      { amountCents: PRICING.smsCents, kind: 'refund', ref: n.id, description: 'SMS to +12025550143 not sent' },
    ]);
    expect(await balanceCents(env.ctx.db, u.id)).toBe(before);
    // Run without the queue's retry count (by hand): the last try, so it fails and refunds at once.
    const byHand = await queued('sms', '1ZEDGER0006');
    await expect(deliverSms(env.ctx, byHand.n.id)).resolves.toBeUndefined();
    expect(await row(byHand.n.id)).toMatchObject({ status: 'failed' });
    expect((await ledger(byHand.u.id)).map((e) => e.amountCents)).toEqual([-PRICING.smsCents, PRICING.smsCents]);
  });
});
