import { createHash } from 'node:crypto';
import {
  COURIER_NAMES,
  type Checkpoint,
  type CourierSlug,
  estimateView,
  likelyLateOf,
  type PublicTracking,
  type TrackingStatus,
  type TrackingView,
} from '@shiptrail/contract';
import type { NormalizedCheckpoint } from '../carriers/types.ts';
import type { CheckpointRow, TrackingRow } from './trackings.repository.ts';

// Rows → contract views. Rows never leave the module as they are (ARCHITECTURE §3).

export function checkpointView(c: Pick<CheckpointRow, 'status' | 'location' | 'message' | 'time'>): Checkpoint {
  return { status: c.status as TrackingStatus, location: c.location ?? null, message: c.message, time: c.time.toISOString() };
}

/** lastCheckPoint is stored as the checkpoint JSON (time as an ISO string). */
function storedCheckpoint(v: unknown): Checkpoint | null {
  if (!v || typeof v !== 'object') return null;
  const c = v as Record<string, unknown>;
  return {
    status: c.status as TrackingStatus,
    location: (c.location as string | null) ?? null,
    message: String(c.message ?? ''),
    time: String(c.time ?? ''),
  };
}

export { estimateView };

export function trackingView(t: TrackingRow, cps: CheckpointRow[] | Checkpoint[], uid: string, sandbox: boolean): TrackingView {
  return {
    tid: t.tid,
    title: t.title,
    courier: t.courier as CourierSlug,
    orderId: t.orderId,
    customer: t.customer,
    notify: { email: t.notifyEmail, phone: t.notifyPhone },
    note: t.note,
    origin: t.origin,
    destination: t.destination,
    service: t.service,
    status: t.status as TrackingStatus,
    expected: t.expected?.toISOString() ?? null,
    estimatedDelivery: estimateView(t.estimatedDelivery),
    likelyLate: likelyLateOf(t.lateFor, estimateView(t.estimatedDelivery)),
    lastCheckPoint: storedCheckpoint(t.lastCheckPoint),
    checkpoints: cps.map((c) => (typeof c.time === 'string' ? (c as Checkpoint) : checkpointView(c as CheckpointRow))),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    uid,
    sandbox,
    pushed: t.lastPushedAt !== null,
    lastHeardAt: latest(t.lastPushedAt, t.lastCheckedAt)?.toISOString() ?? null,
  };
}

const latest = (a: Date | null, b: Date | null): Date | null => (a && b ? (a > b ? a : b) : (a ?? b));

/** j***@e***.com: enough for the recipient to recognise their address, not enough to harvest it. */
export function maskEmail(email: string): string {
  if (!email) return '';
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  const host = dot > 0 ? domain.slice(0, dot) : domain;
  const tld = dot > 0 ? domain.slice(dot) : '';
  return `${local[0]}***@${host[0] ?? ''}***${tld}`;
}

/** ***-***-1234 */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  return digits.length >= 4 ? `***-***-${digits.slice(-4)}` : '';
}

export function publicView(
  t: TrackingRow,
  cps: Array<Pick<CheckpointRow, 'status' | 'location' | 'message' | 'time'>>,
  sandbox: boolean,
): PublicTracking {
  const courier = t.courier as CourierSlug;
  return {
    tid: t.tid,
    courier,
    courierName: COURIER_NAMES[courier] ?? courier,
    status: t.status as TrackingStatus,
    origin: t.origin,
    destination: t.destination,
    expected: t.expected?.toISOString() ?? null,
    estimatedDelivery: estimateView(t.estimatedDelivery),
    likelyLate: likelyLateOf(t.lateFor, estimateView(t.estimatedDelivery)),
    lastCheckPoint: storedCheckpoint(t.lastCheckPoint),
    checkpoints: cps.map(checkpointView),
    notify: { email: maskEmail(t.notifyEmail), phone: maskPhone(t.notifyPhone) },
    updatedAt: t.updatedAt.toISOString(),
    sandbox,
  };
}

/** Identity of a checkpoint across re-fetches: the same event fetched twice has the same fingerprint. */
export function fingerprint(c: { time: string | Date; status: string; message: string; location: string | null }): string {
  const time = typeof c.time === 'string' ? new Date(c.time).toISOString() : c.time.toISOString();
  return createHash('sha256')
    .update([time, c.status, c.message, c.location ?? ''].join('\u0000'))
    .digest('hex')
    .slice(0, 32);
}

/** Carriers give YYYY-MM-DD or an instant; a bad value is dropped rather than failing the refresh. */
export function parseExpected(v: string | null): Date | null {
  if (!v) return null;
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function checkpointJson(c: NormalizedCheckpoint | Checkpoint): Checkpoint {
  return { status: c.status, location: c.location ?? null, message: c.message, time: new Date(c.time).toISOString() };
}
