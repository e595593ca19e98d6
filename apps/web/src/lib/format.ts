import { COURIER_NAMES, STATUS_LABELS, type CourierSlug, type TrackingStatus } from '@shiptrail/contract';

export const money = (dollars: number | undefined | null) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(Number(dollars ?? 0));

/** Dates display as day / month / year (product rules §9). */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const dd = String(d.getDate()).padStart(2, '0');
  const mm = String(d.getMonth() + 1).padStart(2, '0');
  return `${dd}/${mm}/${d.getFullYear()}`;
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const hh = String(d.getHours()).padStart(2, '0');
  const mi = String(d.getMinutes()).padStart(2, '0');
  return `${formatDate(iso)} ${hh}:${mi}`;
}

export const statusLabel = (s: string | null | undefined) =>
  (s && STATUS_LABELS[s as TrackingStatus]) || s || 'Pending';

export const courierName = (c: string | null | undefined) =>
  (c && COURIER_NAMES[c as CourierSlug]) || (c ? c.toUpperCase() : 'Unknown');

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
