/** Text and HTML bodies of the account mails. HTML is escaped; every mail has a plain-text twin. */
import { escapeHtml, layout, type Rendered } from '../../lib/mail-layout.ts';

const button = (href: string, label: string) =>
  `<p style="margin:24px 0"><a href="${escapeHtml(href)}" style="background:#2563eb;color:#fff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:600">${escapeHtml(label)}</a></p><p style="font-size:13px;color:#6b7280">Or open this link: ${escapeHtml(href)}</p>`;
const p = (s: string) => `<p style="line-height:1.5">${escapeHtml(s)}</p>`;

export function verifyEmail(name: string, link: string): Rendered {
  const hello = name ? `Hi ${name},` : 'Hi,';
  return {
    subject: 'Verify your email address',
    text: `${hello}\n\nWelcome to Shiptrail. Please verify your email address by opening this link:\n\n${link}\n\nThe link is valid for 48 hours. If you did not sign up, ignore this mail.\n`,
    html: layout(
      'Verify your email address',
      p(hello) +
        p('Welcome to Shiptrail. Please confirm your email address.') +
        button(link, 'Verify email') +
        p('The link is valid for 48 hours. If you did not sign up, ignore this mail.'),
    ),
  };
}

export function resetPassword(link: string): Rendered {
  return {
    subject: 'Reset your Shiptrail password',
    text: `Someone asked to reset the password of your Shiptrail account.\n\nSet a new password here:\n\n${link}\n\nThe link is valid for 1 hour and can be used once. Setting a new password signs out every device and replaces your API key. If it was not you, ignore this mail; your password stays as it is.\n`,
    html: layout(
      'Reset your password',
      p('Someone asked to reset the password of your Shiptrail account.') +
        button(link, 'Set a new password') +
        p(
          'The link is valid for 1 hour and can be used once. Setting a new password signs out every device and replaces your API key. If it was not you, ignore this mail; your password stays as it is.',
        ),
    ),
  };
}

export function invite(fromName: string, link: string): Rendered {
  return {
    subject: `${fromName} invited you to Shiptrail`,
    text: `${fromName} invited you to Shiptrail, parcel tracking for UPS, USPS, FedEx and Canada Post.\n\nSign up with $10 free credit:\n\n${link}\n`,
    html: layout(
      `${fromName} invited you to Shiptrail`,
      p('Track parcels from UPS, USPS, FedEx and Canada Post in one place, with alerts by email, SMS and webhooks.') +
        button(link, 'Sign up with $10 free credit'),
    ),
  };
}

export function staffMessage(kind: 'contact' | 'support', from: string, body: string): Rendered {
  const title = kind === 'contact' ? 'New contact message' : 'New support request';
  return {
    subject: `${title} from ${from}`,
    text: `${title} from ${from}:\n\n${body}\n`,
    html: layout(title, p(`From: ${from}`) + `<pre style="white-space:pre-wrap;font-family:inherit">${escapeHtml(body)}</pre>`),
  };
}
