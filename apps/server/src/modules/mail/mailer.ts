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

/** Pooled SMTP connections unless the URL says otherwise. */
function withPool(url: string): string {
  const u = new URL(url);
  if (!u.searchParams.has('pool')) u.searchParams.set('pool', 'true');
  return u.toString();
}
