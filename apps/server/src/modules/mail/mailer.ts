import nodemailer from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { devOutbox } from '../../db/schema.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Stable id for the message (a notification id); sent as Message-ID so a resend can be recognised. */
  messageId?: string;
}

export interface Mailer {
  readonly mode: 'smtp' | 'outbox';
  /** About the longest a send can take (its waits summed): what a mail delivery attempt holds its notification for. */
  readonly sendTimeoutMs: number;
  send(msg: MailMessage): Promise<{ id: string }>;
  close(): void;
}

/**
 * Mail goes through SMTP_URL when it is set. Without it, messages are kept in the dev outbox
 * (/dev/mail) and their links logged, so a new user can verify an account on a local install.
 */
export function createMailer(opts: { smtpUrl?: string; from: string; db: Db; log: FastifyBaseLogger }): Mailer {
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(withPool(opts.smtpUrl));
    return {
      mode: 'smtp',
      sendTimeoutMs: MAIL_SEND_TIMEOUT_MS,
      async send(msg) {
        const info = await transport.sendMail({
          from: opts.from,
          to: msg.to,
          subject: msg.subject,
          text: msg.text,
          html: msg.html,
          messageId: msg.messageId ? `<${msg.messageId}@shiptrail>` : undefined,
        });
        return { id: String(info.messageId ?? '') };
      },
      close: () => transport.close(),
    };
  }
  return {
    mode: 'outbox',
    sendTimeoutMs: 5_000,
    async send(msg) {
      const [row] = await opts.db
        .insert(devOutbox)
        .values({ channel: 'email', to: msg.to, subject: msg.subject, text: msg.text, html: msg.html ?? null })
        .returning({ id: devOutbox.id });
      const links = msg.text.match(/https?:\/\/\S+/g) ?? [];
      opts.log.info({ to: msg.to, subject: msg.subject, links }, 'dev outbox: mail stored (set SMTP_URL to send)');
      return { id: `outbox-${row!.id}` };
    },
    close() {},
  };
}

/**
 * SMTP waits, unless the URL sets its own (nodemailer's defaults are 2 and 10 minutes). A send is bounded by
 * about their sum, which is what a mail delivery attempt holds its notification for (notifications/delivery.ts).
 */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };
const MAIL_SEND_TIMEOUT_MS = SMTP_TIMEOUTS.connectionTimeout + SMTP_TIMEOUTS.greetingTimeout + SMTP_TIMEOUTS.socketTimeout;

/** Pooled SMTP connections and bounded waits unless the URL says otherwise. */
function withPool(url: string): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries({ pool: 'true', ...SMTP_TIMEOUTS })) if (!u.searchParams.has(k)) u.searchParams.set(k, String(v));
  return u.toString();
}
