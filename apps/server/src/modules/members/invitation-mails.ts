/** The courier invitation mail and SMS, in the account mails' style (accounts/mails.ts): escaped HTML, a plain-text twin. */
import { escapeHtml, layout, type Rendered } from '../../lib/mail-layout.ts';

const button = (href: string, label: string) =>
  `<p style="margin:24px 0"><a href="${escapeHtml(href)}" style="background:#2563eb;color:#fff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:600">${escapeHtml(label)}</a></p><p style="font-size:13px;color:#6b7280">Or open this link: ${escapeHtml(href)}</p>`;
const p = (s: string) => `<p style="line-height:1.5">${escapeHtml(s)}</p>`;

export interface InvitationMail {
  company: string;
  firstName: string;
  link: string;
  days: number;
  /** An account the company already made on this address with a password it chose (decision 097). */
  existing: boolean;
}

export function courierInvitation(m: InvitationMail): Rendered {
  const hello = m.firstName ? `Hi ${m.firstName},` : 'Hi,';
  const intro = m.existing
    ? `${m.company} added this address as one of its couriers on Shiptrail, with a password they chose. Set your own password to use the account; the old one stops working.`
    : `${m.company} invited you to deliver their shipments as a courier on Shiptrail. Set a password to get started: you will see the shipments assigned to you and update them from your phone.`;
  const validity = `The link is valid for ${m.days} days and can be used once.`;
  const notYou = m.existing
    ? `If you do not work for ${m.company}, open the link and choose "This is not me": the address is released and becomes yours to sign up with.`
    : `If you do not know ${m.company}, ignore this mail: nothing is created until you set a password.`;
  const subject = m.existing ? `${m.company} added you as a courier on Shiptrail` : `${m.company} invited you to Shiptrail as a courier`;
  return {
    subject,
    text: `${hello}\n\n${intro}\n\n${m.link}\n\n${validity} ${notYou}\n`,
    html: layout(
      subject,
      p(hello) + p(intro) + button(m.link, m.existing ? 'Set your own password' : 'Accept the invitation') + p(`${validity} ${notYou}`),
    ),
  };
}

/** One SMS segment where possible: who, and the link. */
export const courierInvitationSms = (company: string, link: string, days: number) =>
  `${company} invited you to Shiptrail as a courier. Set your password within ${days} days: ${link}`;
