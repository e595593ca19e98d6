import { describeEstimate, estimateClock, STATUS_LABELS, type EstimatedDeliveryView, type TrackingStatus } from '@shiptrail/contract';

const isApproach = (s: string) => s === 'CourierNear' || s === 'CourierArriving';
import { escapeHtml } from '../../lib/mail-layout.ts';

/** What every message about a status change says (product rules §1: notifications on a status change). */
export interface StatusMessageInput {
  tid: string;
  title: string;
  courier: string;
  status: string;
  previousStatus: string | null;
  checkpoint: { status?: string; location?: string | null; message?: string; time?: string } | null;
  link: string;
  /** A company's name when the message goes to the company's customer (sendNotification). */
  brand: string | null;
  /** The account's time zone (IANA, from its profile): checkpoint times are written in it. */
  timeZone?: string;
  /** The company's look in its customers' mails: its theme colour and logo (an image URL), when it has them. */
  brandStyle?: { color: string; logo: string };
  /** Out for delivery on a planned day: the hour the customer is told (decision 118). */
  window?: { from: string; to: string } | null;
  /**
   * The courier's approach (CourierNear, CourierArriving; decision 129): the sentence the customer reads, such as
   * "Your courier is about 3 stops / 25 minutes away". `status` is then the approach trigger.
   */
  approach?: string;
}

/** "between 10:30 AM and 11:30 AM" in the account's time zone. */
function windowLine(w: { from: string; to: string }, timeZone: string | undefined): string {
  const opts: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: '2-digit' };
  let f: Intl.DateTimeFormat;
  try {
    f = new Intl.DateTimeFormat('en-US', { ...opts, timeZone: timeZone || 'UTC' });
  } catch {
    f = new Intl.DateTimeFormat('en-US', { ...opts, timeZone: 'UTC' });
  }
  return `between ${f.format(new Date(w.from))} and ${f.format(new Date(w.to))}`;
}

// Mail words: "Attempt failed" reads as a sentence where the status list's "Fail Attempt" does not.
const label = (s: string | null) => (s === 'FailAttempt' ? 'Attempt failed' : s ? (STATUS_LABELS[s as TrackingStatus] ?? s) : '');

/** The checkpoint time's format by time zone: making an Intl.DateTimeFormat costs far more than using one (decision 177). */
const timeFormats = new Map<string, Intl.DateTimeFormat>();
const TIME_FORMAT: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
};

/** The format of `timeZone`, made once; a zone Intl does not know gets UTC's. At most 500 kept (IANA has about 600). */
function timeFormatOf(timeZone: string): Intl.DateTimeFormat {
  let f = timeFormats.get(timeZone);
  if (f) return f;
  try {
    f = new Intl.DateTimeFormat('en-US', { ...TIME_FORMAT, timeZone });
  } catch {
    f = timeFormatOf('UTC');
  }
  if (timeFormats.size >= 500) timeFormats.clear();
  timeFormats.set(timeZone, f);
  return f;
}

/**
 * A checkpoint's time as the account's customers read it: in the account's time zone, named ("Nov 26, 2026,
 * 5:18 AM EST"). A zone Intl does not know falls back to UTC. Rendered in the status change's transaction (the
 * fan-out), so its format is made once per zone, not per message.
 */
export function formatTime(iso: string, timeZone: string | undefined): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return timeFormatOf(timeZone || 'UTC').format(d);
}

function checkpointLine(c: StatusMessageInput['checkpoint'], timeZone: string | undefined): string {
  if (!c) return '';
  const parts = [c.message, c.location].filter(Boolean).join(', ');
  const when = c.time ? formatTime(c.time, timeZone) : '';
  return [parts, when].filter(Boolean).join(' · ');
}

/** The first line of a mail: a failed attempt and an exception ask something of the recipient, so they say so. */
function introOf(m: StatusMessageInput, name: string): string {
  const parcel = m.brand ? `Your parcel from ${m.brand}` : `Your parcel ${name}`;
  if (isApproach(m.status) && m.approach) return `${m.approach} with ${parcel.charAt(0).toLowerCase()}${parcel.slice(1)}.`;
  if (m.status === 'FailAttempt')
    return `A delivery attempt failed: ${parcel.charAt(0).toLowerCase()}${parcel.slice(1)} could not be delivered. Follow the link for what happens next.`;
  if (m.status === 'Exception') return `${parcel} has a problem on its way (an exception). Follow the link for what happens next.`;
  return m.brand ? `Your parcel from ${m.brand} has a new status.` : `Your parcel ${name} has a new status.`;
}

export function statusEmail(m: StatusMessageInput): { subject: string; text: string; html: string } {
  const name = m.title ? `${m.title} (${m.tid})` : m.tid;
  const from = m.brand ?? 'Shiptrail';
  const approaching = isApproach(m.status) && m.approach ? m.approach.replace(/^Your courier/, 'your courier') : '';
  const subject = approaching
    ? `${m.brand ?? name}: ${approaching}`
    : m.brand && m.status === 'FailAttempt'
      ? `${m.brand}: delivery attempt failed for your parcel ${m.tid}`
      : m.brand
        ? `${m.brand}: your parcel ${m.tid} is ${label(m.status)}`
        : `${name}: ${label(m.status)}`;
  const cp = checkpointLine(m.checkpoint, m.timeZone);
  const intro = introOf(m, name);
  const expected = m.window ? windowLine(m.window, m.timeZone) : '';
  // The approach is news, not a status: the parcel is still out for delivery (its previousStatus).
  const shown = approaching ? { status: m.previousStatus, previous: null } : { status: m.status, previous: m.previousStatus };
  const text = [
    intro,
    expected ? `Expected ${expected}.` : '',
    '',
    `Status: ${label(shown.status)}${shown.previous ? ` (was ${label(shown.previous)})` : ''}`,
    `Tracking number: ${m.tid} (${m.courier.toUpperCase()})`,
    cp ? `Latest checkpoint: ${cp}` : '',
    '',
    `Follow it here: ${m.link}`,
    '',
    m.brand ? `Sent by ${m.brand} via Shiptrail.` : 'You get this mail because of your Shiptrail notification settings.',
  ]
    .filter((l, i, a) => l !== '' || a[i - 1] !== '')
    .join('\n');
  // Only a colour and an https image from the company's own settings reach the markup.
  const accent = m.brandStyle && /^#[0-9a-f]{6}$/i.test(m.brandStyle.color) ? m.brandStyle.color : '#2563eb';
  const logoImg =
    m.brandStyle?.logo && /^https:\/\/[^\s"'<>]+$/i.test(m.brandStyle.logo)
      ? `<img src="${escapeHtml(m.brandStyle.logo)}" alt="${escapeHtml(from)}" style="max-height:48px;max-width:200px;margin-bottom:12px;display:block">`
      : '';
  const row = (k: string, v: string) =>
    `<tr><td style="padding:4px 12px 4px 0;color:#6b7280">${escapeHtml(k)}</td><td style="padding:4px 0;font-weight:600">${escapeHtml(v)}</td></tr>`;
  const body =
    `<p style="line-height:1.5">${escapeHtml(intro)}</p><table role="presentation" cellpadding="0" cellspacing="0">` +
    (expected ? row('Expected', expected) : '') +
    row('Status', label(shown.status)) +
    (shown.previous ? row('Previous status', label(shown.previous)) : '') +
    row('Tracking number', `${m.tid} (${m.courier.toUpperCase()})`) +
    (cp ? row('Latest checkpoint', cp) : '') +
    `</table><p style="margin:24px 0"><a href="${escapeHtml(m.link)}" style="background:${accent};color:#fff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:600">Track the parcel</a></p>` +
    `<p style="font-size:13px;color:#6b7280">Or open this link: ${escapeHtml(m.link)}</p>`;
  const footer = m.brand ? `Sent by ${m.brand} via Shiptrail` : 'Shiptrail · you get this mail because of your notification settings';
  const html = `<!doctype html><html><body style="margin:0;background:#f4f6fb;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2937">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:32px 12px">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;background:#fff;border-radius:12px;padding:32px">
<tr><td>${logoImg}<div style="font-weight:700;font-size:20px;color:${accent};margin-bottom:16px">${escapeHtml(from)}</div>
<h1 style="font-size:20px;margin:0 0 12px">${escapeHtml(approaching ? m.approach! : label(m.status))}: ${escapeHtml(name)}</h1>${body}</td></tr></table>
<p style="font-size:12px;color:#6b7280;margin-top:16px">${escapeHtml(footer)}</p></td></tr></table></body></html>`;
  return { subject, text, html };
}

/** One SMS segment where possible: brand, number, status, where, link. */
export function statusSms(m: StatusMessageInput): string {
  const from = m.brand ?? 'Shiptrail';
  const where = m.checkpoint?.location ? ` (${m.checkpoint.location})` : '';
  if (m.status === 'FailAttempt') return `${from}: delivery attempt failed for parcel ${m.tid}${where}. ${m.link}`;
  if (isApproach(m.status) && m.approach)
    return `${from}: ${m.approach.replace(/^Your courier/, 'your courier')} with parcel ${m.tid}. ${m.link}`;
  return `${from}: parcel ${m.tid} is ${label(m.status)}${where}. ${m.link}`;
}

/** News of the estimate (decision 123): the status stays, the expected delivery moved or will likely be missed. */
export interface EstimateMessageInput extends StatusMessageInput {
  kind: 'EstimateChanged' | 'LikelyLate';
  estimate: EstimatedDeliveryView | null;
  /** Why it is likely late when our own history says so (decision 151): "Our delivery history on this lane says …". */
  lateReason?: string | null;
}

/**
 * The estimate in words with the clock its hours are in (decision 166): a message's reader may be anywhere, so the
 * carrier's hours always say they are the destination's ("…, between 10:00 and 14:00 (local time at the destination,
 * UTC−6)"); a day or a predicted date has no hours and says nothing more.
 */
export function estimateWithClock(e: EstimatedDeliveryView, sms = false): string {
  // An SMS keeps to the GSM alphabet (a U+2212 minus would make it UCS-2: 70 characters a segment instead of 160).
  const clock = sms ? estimateClock(e)?.replace('\u2212', '-') : estimateClock(e);
  return clock ? `${describeEstimate(e)} (local time at the destination, ${clock})` : describeEstimate(e);
}

function estimateLines(m: EstimateMessageInput, name: string): { subject: string; intro: string; expected: string } {
  const parcel = m.brand ? `Your parcel from ${m.brand}` : `Your parcel ${name}`;
  const expected = m.estimate ? estimateWithClock(m.estimate) : 'No new date from the carrier yet';
  if (m.kind === 'LikelyLate') {
    return {
      subject: m.brand ? `${m.brand}: your parcel ${m.tid} will likely arrive late` : `${name}: likely late`,
      intro: m.lateReason
        ? `${parcel} will likely arrive later than the carrier promised. ${m.lateReason} Follow the link for the latest.`
        : `${parcel} will likely arrive later than the carrier promised. Follow the link for the latest.`,
      expected,
    };
  }
  return {
    subject: m.brand ? `${m.brand}: new expected delivery for your parcel ${m.tid}` : `${name}: expected delivery changed`,
    intro: `The carrier changed the expected delivery of ${parcel.charAt(0).toLowerCase()}${parcel.slice(1)}.`,
    expected,
  };
}

export function estimateEmail(m: EstimateMessageInput): { subject: string; text: string; html: string } {
  const name = m.title ? `${m.title} (${m.tid})` : m.tid;
  const from = m.brand ?? 'Shiptrail';
  const { subject, intro, expected } = estimateLines(m, name);
  const heading = m.kind === 'LikelyLate' ? 'Likely late' : 'Expected delivery changed';
  const text = [
    intro,
    '',
    expected,
    `Status: ${label(m.status)}`,
    `Tracking number: ${m.tid} (${m.courier.toUpperCase()})`,
    '',
    `Follow it here: ${m.link}`,
    '',
    m.brand ? `Sent by ${m.brand} via Shiptrail.` : 'You get this mail because of your Shiptrail notification settings.',
  ].join('\n');
  const accent = m.brandStyle && /^#[0-9a-f]{6}$/i.test(m.brandStyle.color) ? m.brandStyle.color : '#2563eb';
  const row = (k: string, v: string) =>
    `<tr><td style="padding:4px 12px 4px 0;color:#6b7280">${escapeHtml(k)}</td><td style="padding:4px 0;font-weight:600">${escapeHtml(v)}</td></tr>`;
  const footer = m.brand ? `Sent by ${m.brand} via Shiptrail` : 'Shiptrail · you get this mail because of your notification settings';
  const html = `<!doctype html><html><body style="margin:0;background:#f4f6fb;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1f2937">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:32px 12px">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;background:#fff;border-radius:12px;padding:32px">
<tr><td><div style="font-weight:700;font-size:20px;color:${accent};margin-bottom:16px">${escapeHtml(from)}</div>
<h1 style="font-size:20px;margin:0 0 12px">${escapeHtml(heading)}: ${escapeHtml(name)}</h1>
<p style="line-height:1.5">${escapeHtml(intro)}</p><table role="presentation" cellpadding="0" cellspacing="0">${row('Expected', expected)}${row('Status', label(m.status))}${row('Tracking number', `${m.tid} (${m.courier.toUpperCase()})`)}</table>
<p style="margin:24px 0"><a href="${escapeHtml(m.link)}" style="background:${accent};color:#fff;padding:12px 20px;border-radius:8px;text-decoration:none;font-weight:600">Track the parcel</a></p>
<p style="font-size:13px;color:#6b7280">Or open this link: ${escapeHtml(m.link)}</p></td></tr></table>
<p style="font-size:12px;color:#6b7280;margin-top:16px">${escapeHtml(footer)}</p></td></tr></table></body></html>`;
  return { subject, text, html };
}

export function estimateSms(m: EstimateMessageInput): string {
  const from = m.brand ?? 'Shiptrail';
  const expected = m.estimate ? ` ${estimateWithClock(m.estimate, true)}.` : '';
  if (m.kind === 'LikelyLate')
    return `${from}: parcel ${m.tid} will likely arrive late.${m.lateReason ? ` ${m.lateReason}` : ''}${expected} ${m.link}`;
  return `${from}: new expected delivery for parcel ${m.tid}.${expected} ${m.link}`;
}
