import {
  COURIER_NAMES,
  STATUS_LABELS,
  TRIGGER_LABELS,
  type CourierSlug,
  type TrackingStatus,
  type TriggerEvent,
} from '@shiptrail/contract';

export const money = (dollars: number | undefined | null) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(Number(dollars ?? 0));

/**
 * One date format per person, everywhere in the app: their browser's locale through Intl (decision 102), the
 * same order the native date pickers (usage's From and To, a shipment's expected date) show. The product's
 * day / month / year is what a day-first locale gets; a US browser reads month / day / year in every table and
 * every picker alike, never both orders on one screen. `locale` is for tests.
 */
export function formatDate(iso: string | null | undefined, locale?: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric' }).format(d);
}

export function formatDateTime(iso: string | null | undefined, locale?: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(
    d,
  );
}

/** A calendar day given as YYYY-MM-DD (usage rows), in the same format as formatDate, without a time-zone shift. */
export function formatDay(ymd: string, locale?: string, withYear = true): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(ymd);
  if (!m) return ymd;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 12);
  return new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', ...(withYear ? { year: 'numeric' } : {}) }).format(d);
}

/** A status, or a trigger that is no status (the notification log's "Likely late"), as people read it. */
export const statusLabel = (s: string | null | undefined) =>
  (s && (STATUS_LABELS[s as TrackingStatus] ?? TRIGGER_LABELS[s as TriggerEvent])) || s || 'Pending';

export const courierName = (c: string | null | undefined) => (c && COURIER_NAMES[c as CourierSlug]) || (c ? c.toUpperCase() : 'Unknown');

/** Rounded percent of total, 0 when there is nothing (product rules §2 dashboard). */
export const percentOf = (count: number, total: number) => (total > 0 ? Math.round((count / total) * 100) : 0);

/** Masks an address for the public tracking page: j***@example.com, (***) ***-1234. */
export function maskEmail(email: string | null | undefined): string {
  if (!email) return '';
  if (email.includes('*')) return email;
  const [user, domain] = email.split('@');
  if (!domain || !user) return email;
  return `${user.slice(0, 1)}***@${domain}`;
}
export function maskPhone(phone: string | null | undefined): string {
  if (!phone) return '';
  if (phone.includes('*')) return phone;
  const digits = phone.replace(/\D/g, '');
  return digits.length >= 4 ? `(***) ***-${digits.slice(-4)}` : '***';
}

export function timeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}
