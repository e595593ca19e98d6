import http from 'node:http';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import type { AppContext } from '../../src/context.ts';
import { notifications, trackings, users } from '../../src/db/schema.ts';
import type { Checkpoint } from '@shiptrail/contract';
import { recordStatusChange } from '../../src/modules/trackings/events.ts';
import { updateTracking } from '../../src/modules/trackings/trackings.repository.ts';
import type { Tuning } from '../../src/modules/notifications/tuning.ts';
import { call, createTestEnv, signUp, startSmtp, startSmtpEnv, type SmtpCapture, type TestEnv } from '../helpers.ts';
export { envForFile } from '../helpers.ts';
import { onLoopback } from '../loopback.ts';
import { startJobWorkers } from '../../src/jobs/registry.ts';
import { notifyJobs } from '../../src/modules/notifications/notifications.jobs.ts';
import { refreshJob } from '../../src/modules/trackings/trackings.jobs.ts';
import { startRefreshScheduler, stopRefreshScheduler } from '../../src/modules/trackings/refresh.ts';

/** Short webhook and retry timings so recovery tests run in seconds. */
export function fastTuning(ctx: AppContext, over: Partial<Tuning> = {}) {
  ctx.resources.notificationTuning = {
    webhookBaseDelayMs: 300,
    webhookMaxDelayMs: 1000,
    providerRetryDelaySeconds: 1,
    providerRetryDelayMaxSeconds: 1,
    providerRetryLimit: 3,
    webhookTimeoutMs: 3000,
    ...over,
  } satisfies Partial<Tuning>;
}

export async function userRow(ctx: AppContext, email: string) {
  const [u] = await ctx.db.select().from(users).where(eq(users.email, email));
  return u!;
}

/** Mark the account's email verified, as its verify link would: its customer messages go out (decision 109). */
export async function markVerified(ctx: AppContext, email: string) {
  await ctx.db.update(users).set({ emailVerified: true }).where(eq(users.email, email));
}

/** A tracking row inserted directly (as the trackings module would). */
export async function insertTracking(ctx: AppContext, userId: string, over: Partial<typeof trackings.$inferInsert> = {}) {
  const [t] = await ctx.db
    .insert(trackings)
    .values({ userId, tid: `1Z${Math.random().toString().slice(2, 14)}`, courier: 'ups', title: 'Blue sofa', status: 'Pending', ...over })
    .returning();
  return t!;
}

/**
 * A status change through the trackings module's own statement (events.ts recordStatusChange: the event row, the
 * notification fan-out and the live event, in the caller's transaction) and its repository's row update, as the
 * refresh engine and the manual status calls do: the fixture owns no SQL of its own. Throws if the status does
 * not change (the module records nothing then).
 */
export async function changeStatus(
  ctx: AppContext,
  trackingId: string,
  to: string,
  checkpoint: Record<string, unknown> | null = null,
  opts: { rollback?: boolean } = {},
) {
  let eventId = '';
  const run = ctx.db.transaction(async (tx) => {
    const [t] = await tx.select().from(trackings).where(eq(trackings.id, trackingId));
    const cp = (checkpoint ?? {
      status: to,
      location: 'Louisville, KY',
      message: `Now ${to}`,
      time: new Date().toISOString(),
    }) as Checkpoint;
    const id = await recordStatusChange(tx, ctx, t!, to, cp);
    if (!id) throw new Error(`changeStatus: ${t!.status} -> ${to} is no change`);
    eventId = id;
    await updateTracking(tx, trackingId, { status: to, lastCheckPoint: cp });
    if (opts.rollback) throw new Error('rollback');
  });
  if (opts.rollback) await run.catch(() => {});
  else await run;
  return eventId;
}

const allTriggers = { Delivered: true, Exception: true, Expired: true, InTransit: true, InfoReceived: true, OutForDelivery: true };
export { allTriggers };

/** Save notification settings through the API. */
export async function saveSettings(env: TestEnv, token: string, settings: Record<string, unknown>) {
  const r = await call(env.app, 'POST', '/v1/user/general/update', { token, body: { settings } });
  if (r.statusCode !== 200) throw new Error(`settings save failed: ${JSON.stringify(r.body)}`);
  return r.body.payload;
}

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  json: any;
  /** Which of the receiver's secrets verified it (standardwebhooks), or null. */
  verifiedWith: string | null;
  at: number;
}

/**
 * A webhook receiver on loopback that verifies every request with the independent `standardwebhooks`
 * package. `respond` decides the answer (default 200).
 */
export async function startReceiver(secrets: () => string[]) {
  const received: Received[] = [];
  let respond: (r: Received) => { status: number; headers?: Record<string, string> } = () => ({ status: 200 });
  let down = false;
  const server = http.createServer((req, res) => {
    if (down) {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      let verifiedWith: string | null = null;
      for (const s of secrets()) {
        try {
          new Webhook(s).verify(body, headers);
          verifiedWith = s;
          break;
        } catch {
          /* try the next secret */
        }
      }
      const r: Received = {
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        json: JSON.parse(body),
        verifiedWith,
        at: Date.now(),
      };
      received.push(r);
      const a = respond(r);
      res.writeHead(a.status, { 'content-type': 'text/plain', ...(a.headers ?? {}) });
      res.end(`answer ${a.status}`);
    });
  });
  const loopback = await onLoopback(server);
  return {
    url: `${loopback.url}/hooks`,
    received,
    setRespond(fn: typeof respond) {
      respond = fn;
    },
    setDown(v: boolean) {
      down = v;
    },
    close: loopback.close,
  };
}

/**
 * A webhook receiver that answers each request after `delayMs` (503 to the ids in `refuse`, 200 to the rest) and
 * counts the ids it got, without verifying them.
 */
export async function startSlowReceiver(delayMs = 0) {
  const ids: string[] = [];
  const refuse = new Set<string>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      ids.push(id);
      setTimeout(() => res.writeHead(refuse.has(id) ? 503 : 200).end('ok'), delayMs);
    });
  });
  const loopback = await onLoopback(server);
  return { url: `${loopback.url}/hooks`, ids, refuse, close: loopback.close };
}

export interface TwilioRequest {
  to: string;
  from: string;
  body: string;
  auth: string;
  path: string;
}

/** A verified company account and a webhook receiver on loopback that checks its signatures (close it when done). */
export async function verifiedCompanyWithReceiver(env: TestEnv, company: string) {
  const a = await signUp(env.app, { userType: 'company', company });
  await markVerified(env.ctx, a.email);
  const info = await call(env.app, 'GET', '/v1/user/info', { token: a.session });
  const rx = await startReceiver(() => [info.body.payload.settings.webhookSecret]);
  return { a, rx };
}

/** The app's settings for a fake Twilio at `url` (the account and token the fake's tests read back). */
export const twilioConfig = (url: string) => ({
  TWILIO_BASE_URL: url,
  TWILIO_ACCOUNT_SID: 'AC0123456789abcdef',
  TWILIO_AUTH_TOKEN: 'tok-secret',
  TWILIO_FROM: '+15005550006',
});

/** A fake Twilio Messages API on loopback. */
export async function startFakeTwilio() {
  const requests: TwilioRequest[] = [];
  let respond: (r: TwilioRequest) => { status: number; json: unknown } = (r) => ({
    status: 201,
    json: { sid: `SM${requests.length.toString().padStart(32, '0')}`, to: r.to, status: 'queued' },
  });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const r: TwilioRequest = {
        to: form.get('To') ?? '',
        from: form.get('From') ?? '',
        body: form.get('Body') ?? '',
        auth: String(req.headers.authorization),
        path: req.url ?? '',
      };
      requests.push(r);
      const a = respond(r);
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.json));
    });
  });
  const loopback = await onLoopback(server);
  return {
    url: loopback.url,
    requests,
    setRespond(fn: typeof respond) {
      respond = fn;
    },
    close: loopback.close,
  };
}
export type FakeTwilio = Awaited<ReturnType<typeof startFakeTwilio>>;

/** The fake Twilio account the notification env's app sends with (its Basic auth is these two). */
export const TWILIO_ACCOUNT = { sid: 'AC0123456789abcdef', token: 'tok-secret' };

/** The app with mail and SMS on loopback: a mail server, a fake Twilio, and a test env that sends through both. */
export interface NotificationEnv<M extends { url: string; close(): Promise<void> } = SmtpCapture> {
  env: TestEnv;
  smtp: M;
  twilio: FakeTwilio;
  close(): Promise<void>;
}

/**
 * Starts a notification env: `smtp` starts the mail server (a real one that parses what it gets, unless a test
 * brings its own), `env` adds to the app's settings (WEBHOOK_ALLOW_PRIVATE, ...). Close it in afterAll.
 */
export async function startNotificationEnv<M extends { url: string; close(): Promise<void> } = SmtpCapture>(
  opts: { smtp?: () => Promise<M>; env?: Record<string, string>; logTo?: NodeJS.WritableStream } = {},
): Promise<NotificationEnv<M>> {
  const smtp = await (opts.smtp ?? (startSmtp as unknown as () => Promise<M>))();
  const twilio = await startFakeTwilio();
  const env = await createTestEnv(
    {
      SMTP_URL: smtp.url,
      TWILIO_BASE_URL: twilio.url,
      TWILIO_ACCOUNT_SID: TWILIO_ACCOUNT.sid,
      TWILIO_AUTH_TOKEN: TWILIO_ACCOUNT.token,
      TWILIO_FROM: '+15005550006',
      ...opts.env,
    },
    { logTo: opts.logTo },
  ).catch(async (e: unknown) => {
    await smtp.close();
    await twilio.close();
    throw e;
  });
  return {
    env,
    smtp,
    twilio,
    async close() {
      await env.close();
      await smtp.close();
      await twilio.close();
    },
  };
}

/** Notification settings that send every status change on `channel` (SMS goes to the profile's phone). */
export const everyChangeBy = (channel: 'email' | 'sms') => ({
  receiveNotification: { [channel === 'sms' ? 'phone' : 'email']: { triggers: allTriggers } },
});

/**
 * An account with a phone, `settings` saved, and one tracking `tid` moved to InTransit: its notification row is
 * queued and its job not run (the tests run the handler by hand or start the workers).
 */
export async function accountWithNotification(env: TestEnv, settings: Record<string, unknown>, tid: string) {
  const a = await signUp(env.app);
  await call(env.app, 'POST', '/v1/user/general/update', { token: a.session, body: { profile: { phone: '2025550143' } } });
  await saveSettings(env, a.session, settings);
  const u = await userRow(env.ctx, a.email);
  const t = await insertTracking(env.ctx, u.id, { tid });
  await changeStatus(env.ctx, t.id, 'InTransit');
  const [n] = await env.ctx.db.select().from(notifications).where(eq(notifications.userId, u.id));
  return { a, email: a.email, u, n: n! };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Who a parsed mail was addressed to, as text. */
export function mailTo(m: { to?: unknown }): string {
  const to = m.to as { text?: string } | Array<{ text?: string }> | undefined;
  if (!to) return '';
  return Array.isArray(to) ? to.map((t) => t.text ?? '').join(', ') : (to.text ?? '');
}

/** The notification rows of a user, every channel. */
export const notificationRows = (ctx: AppContext, userId: string) =>
  ctx.db.select().from(notifications).where(eq(notifications.userId, userId));

/**
 * The app as it runs the sandbox carriers' journeys: a real mail server, webhooks to loopback, the notification
 * and refresh workers and the refresh scheduler, the journeys at pace 0.03 (one with a failed attempt plays in
 * about 9 s).
 */
export async function startJourneyEnv() {
  const started = await startSmtpEnv({ WEBHOOK_ALLOW_PRIVATE: 'true', CARRIER_SANDBOX_PACE: '0.03' });
  await startJobWorkers(started.env.ctx, [...Object.values(notifyJobs), refreshJob]);
  await startRefreshScheduler(started.env.ctx);
  return {
    ...started,
    async close() {
      await stopRefreshScheduler(started.env.ctx);
      await started.close();
    },
  };
}

/** The app with a real mail server on loopback, short notification timings and the notification workers. */
export async function startMailEnv() {
  const started = await startSmtpEnv();
  fastTuning(started.env.ctx);
  await startJobWorkers(started.env.ctx, Object.values(notifyJobs));
  return started;
}
