// Helpers shared by the four parsers: the status table cell, time conversion, location text. Each adapter
// owns its carrier's status lookup (its section of data/status-mapping.json).
import mapping from './data/status-mapping.json' with { type: 'json' };
import type { EstimatedDelivery, TrackingStatus } from './types.ts';

/** A cell of data/status-mapping.json: a status, or an event that only informs (it keeps the status before it). */
export type MappedStatus = TrackingStatus | '(informational)';

/** The status tables, one section per carrier; each adapter reads its own section. */
export const STATUS_MAPPING = mapping as unknown as Record<'ups' | 'fedex' | 'usps' | 'canadapost', unknown>;

export function asStatus(v: MappedStatus | undefined): TrackingStatus | null {
  return v && v !== '(informational)' ? v : null;
}

// ---- time ----

/** A carrier timestamp broken into a wall-clock reading and, when known, its UTC offset. */
export type RawTime = { y: number; mo: number; d: number; h: number; mi: number; s: number; offsetMin: number | null; dateOnly: boolean };

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{1,2}:?\d{2})?$/i;

export function parseIsoLike(v: string | null): RawTime | null {
  if (!v) return null;
  const m = ISO_RE.exec(v.trim());
  if (!m) return null;
  return build(m[1], m[2], m[3], m[4], m[5], m[6], parseOffset(m[7] ?? null), m[4] === undefined);
}

/** UPS `YYYYMMDD` + `HHMMSS` (or `HH:MM:SS`, gmtTime has colons; carrier notes §1.7). */
export function parseCompact(date: string | null, time: string | null, offsetMin: number | null): RawTime | null {
  const dm = date ? /^(\d{4})(\d{2})(\d{2})$/.exec(date.trim()) : null;
  if (!dm) return null;
  const tm = time ? /^(\d{2}):?(\d{2}):?(\d{2})?$/.exec(time.trim()) : null;
  return build(dm[1], dm[2], dm[3], tm?.[1], tm?.[2], tm?.[3], offsetMin, !tm);
}

export function parseOffset(v: string | null): number | null {
  if (!v) return null;
  const t = v.trim();
  if (t.toUpperCase() === 'Z') return 0;
  const m = /^([+-])(\d{1,2}):?(\d{2})$/.exec(t);
  if (!m) return null;
  const mins = Number(m[2]) * 60 + Number(m[3]);
  if (mins > 14 * 60) return null;
  return (m[1] === '-' ? -1 : 1) * mins;
}

function build(
  y?: string,
  mo?: string,
  d?: string,
  h?: string,
  mi?: string,
  s?: string,
  offsetMin: number | null = null,
  dateOnly = false,
): RawTime | null {
  const r = { y: Number(y), mo: Number(mo), d: Number(d), h: Number(h ?? 0), mi: Number(mi ?? 0), s: Number(s ?? 0), offsetMin, dateOnly };
  if (!(r.y >= 1970 && r.y <= 2200 && r.mo >= 1 && r.mo <= 12 && r.d >= 1 && r.d <= 31 && r.h <= 23 && r.mi <= 59 && r.s <= 60))
    return null;
  return r;
}

export function toUtcMs(t: RawTime, fallbackOffsetMin = 0): number {
  const off = t.offsetMin ?? fallbackOffsetMin;
  return Date.UTC(t.y, t.mo - 1, t.d, t.h, t.mi, t.s) - off * 60_000;
}

/**
 * Turn each event's time into a UTC ISO string. Events whose offset is unknown (USPS events without GMT fields,
 * a FedEx date without offset, UPS events without gmt fields; carrier notes §6 "Timestamps") borrow the offset of the
 * nearest event that has one: consecutive scans are usually in the same region, which beats assuming UTC.
 * With no offset anywhere the wall clock is read as UTC.
 */
export function resolveTimes(times: Array<RawTime | null>): Array<string | null> {
  const offsets = times.map((t) => t?.offsetMin ?? null);
  return times.map((t, i) => {
    if (!t) return null;
    let off = t.offsetMin;
    for (let k = 1; off === null && k < times.length; k++) {
      off = offsets[i - k] ?? offsets[i + k] ?? null;
    }
    return new Date(toUtcMs(t, off ?? 0)).toISOString();
  });
}

/** Expected delivery: a calendar date when the carrier gives a day (or local midnight), else a UTC instant. */
export function expectedFrom(t: RawTime | null): string | null {
  if (!t) return null;
  if (t.dateOnly || (t.h === 0 && t.mi === 0 && t.s === 0)) {
    return `${String(t.y).padStart(4, '0')}-${String(t.mo).padStart(2, '0')}-${String(t.d).padStart(2, '0')}`;
  }
  return new Date(toUtcMs(t)).toISOString();
}

// ---- estimated delivery (decision 122) ----

const p2 = (n: number) => String(n).padStart(2, '0');
const dayText = (t: RawTime) => `${String(t.y).padStart(4, '0')}-${p2(t.mo)}-${p2(t.d)}`;

function offsetText(min: number): string {
  const a = Math.abs(min);
  return `${min < 0 ? '-' : '+'}${p2(Math.floor(a / 60))}:${p2(a % 60)}`;
}

/** A wall-clock time as ISO-8601 with its offset (the fallback's when it has none; UTC when neither is known). */
function localIso(t: RawTime, fallbackOffsetMin: number | null): string {
  const off = t.offsetMin ?? fallbackOffsetMin;
  return `${dayText(t)}T${p2(t.h)}:${p2(t.mi)}:${p2(t.s)}${off === null ? 'Z' : offsetText(off)}`;
}

/** `HHMMSS`, `HH:MM` or `HH:MM:SS` on a given day (the UPS deliveryTime, a USPS window bound). */
export function timeOnDay(day: RawTime, time: string | null): RawTime | null {
  const m = time ? /^(\d{2}):?(\d{2})(?::?(\d{2}))?$/.exec(time.trim()) : null;
  if (!m) return parseIsoLike(time);
  const h = Number(m[1]);
  const mi = Number(m[2]);
  const s = Number(m[3] ?? 0);
  if (h > 23 || mi > 59 || s > 59) return null;
  return { ...day, h, mi, s, dateOnly: false };
}

/**
 * The carrier's estimate, normalised: the day it names, and the window's bounds as ISO-8601 with the local offset
 * (the offset of the bound itself, else `fallbackOffsetMin`: the newest scan's, the parcel being near the
 * destination by then). A bound of local midnight on a date-only field is no bound. A window ending before it
 * begins is dropped (hostile or broken input), keeping the day.
 */
export function carrierEstimate(
  day: RawTime | null,
  from: RawTime | null,
  to: RawTime | null,
  fallbackOffsetMin: number | null,
  now = new Date(),
): EstimatedDelivery | null {
  const d = day ?? to ?? from;
  if (!d) return null;
  const bound = (t: RawTime | null) => (t && !t.dateOnly ? localIso(t, fallbackOffsetMin) : null);
  let f = bound(from);
  let e = bound(to);
  if (f && e && Date.parse(e) < Date.parse(f)) [f, e] = [null, null];
  return { date: dayText(d), from: f, to: e, source: 'carrier', updatedAt: now.toISOString() };
}

// ---- location ----

/** Non-empty parts joined by ", " (the manifest's location_display; carrier notes §6). */
export function joinLocation(...parts: Array<unknown>): string | null {
  const out: string[] = [];
  for (const p of parts) {
    if (typeof p !== 'string') continue;
    const t = p.replace(/\s+/g, ' ').trim().slice(0, 120);
    if (t) out.push(t);
  }
  return out.length ? out.join(', ') : null;
}
