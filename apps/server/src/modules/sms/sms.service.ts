import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/client.ts';
import { devOutbox } from '../../db/schema.ts';

export interface SmsMessage {
  /** E.164, e.g. +12025550123. */
  to: string;
  body: string;
}

/** Why a send failed: `permanent` failures are not retried (invalid number, refused by the provider). */
export class SmsError extends Error {
  readonly permanent: boolean;
  readonly status?: number;

  constructor(message: string, permanent: boolean, status?: number) {
    super(message);
    this.permanent = permanent;
    this.status = status;
  }
}

export interface SmsGateway {
  readonly mode: 'twilio' | 'outbox';
  /** Resolves when the provider accepted the message, with the provider's id for it. */
  send(msg: SmsMessage): Promise<{ id: string }>;
}

export const SMS_TIMEOUT_MS = 15_000;

/**
 * Twilio's Messages API (POST /2010-04-01/Accounts/{Sid}/Messages.json, form-encoded To, From, Body,
 * HTTP Basic SID:token). TWILIO_BASE_URL points tests at a fake Twilio server on loopback.
 */
export function twilioGateway(opts: { baseUrl: string; accountSid: string; authToken: string; from: string }): SmsGateway {
  const url = `${opts.baseUrl.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(opts.accountSid)}/Messages.json`;
  const auth = 'Basic ' + Buffer.from(`${opts.accountSid}:${opts.authToken}`).toString('base64');
  return {
    mode: 'twilio',
    async send(msg) {
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({ To: msg.to, From: opts.from, Body: msg.body }).toString(),
          signal: AbortSignal.timeout(SMS_TIMEOUT_MS),
        });
      } catch (err) {
        throw new SmsError(`Twilio unreachable: ${(err as Error).message}`, false);
      }
      const text = await res.text();
      let json: { sid?: string; message?: string; code?: number } = {};
      try {
        json = JSON.parse(text);
      } catch {
        /* not JSON: keep the status */
      }
      if (res.ok && json.sid) return { id: json.sid };
      // 429 and 5xx are Twilio being busy or down: retry. Other 4xx (bad number, unverified sender,
      // auth) will fail the same way again.
      const permanent = res.status >= 400 && res.status < 500 && res.status !== 429 && res.status !== 408;
      throw new SmsError(
        `Twilio ${res.status}${json.code ? ` (${json.code})` : ''}: ${json.message ?? text.slice(0, 200)}`,
        permanent,
        res.status,
      );
    },
  };
}

/** Without Twilio settings, SMS are kept in the dev outbox (/dev/mail) with channel 'sms'. */
export function outboxGateway(db: Db, log: FastifyBaseLogger): SmsGateway {
  return {
    mode: 'outbox',
    async send(msg) {
      const [row] = await db
        .insert(devOutbox)
        .values({ channel: 'sms', to: msg.to, subject: '', text: msg.body })
        .returning({ id: devOutbox.id });
      log.info({ to: msg.to }, 'dev outbox: SMS stored (set TWILIO_* to send)');
      return { id: `outbox-sms-${row!.id}` };
    },
  };
}

export function createSmsGateway(config: Config, db: Db, log: FastifyBaseLogger): SmsGateway {
  if (config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN && config.TWILIO_FROM) {
    return twilioGateway({
      baseUrl: config.TWILIO_BASE_URL,
      accountSid: config.TWILIO_ACCOUNT_SID,
      authToken: config.TWILIO_AUTH_TOKEN,
      from: config.TWILIO_FROM,
    });
  }
  return outboxGateway(db, log);
}

/** The gateway bootstrap put on the context (created on first use if a caller built the context by hand). */
export function smsGateway(ctx: AppContext): SmsGateway {
  return (ctx.resources.sms ??= createSmsGateway(ctx.config, ctx.db, ctx.log));
}
/** At start-up, in every role: Twilio when configured, otherwise the dev outbox. */
export function setupSms(ctx: AppContext): void {
  ctx.resources.sms = createSmsGateway(ctx.config, ctx.db, ctx.log);
}
