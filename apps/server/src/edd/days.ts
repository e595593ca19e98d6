// Calendar days as whole numbers (days since 1970-01-01), so that date arithmetic never meets a time zone.

const MS_PER_DAY = 86_400_000;

/** The day number of a calendar date. */
export function dayFromYmd(year: number, month: number, day: number): number {
  return Math.floor(Date.UTC(year, month - 1, day) / MS_PER_DAY);
}

/** The calendar date (UTC) of a day number. */
export function ymdFromDay(day: number): { year: number; month: number; day: number } {
  const d = new Date(day * MS_PER_DAY);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** YYYY-MM-DD of a day number. */
export function isoDate(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/** 0 = Sunday … 6 = Saturday. */
export function weekday(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

export interface ParsedTimestamp {
  /** The instant, in milliseconds since the epoch (a timestamp without a zone is UTC). */
  instant: number;
  /** The calendar day as written in the timestamp (its own offset; UTC when it has none). */
  day: number;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * An ISO 8601 date or date-time ("2026-11-26", "2026-11-26T10:00:00Z", "2017-10-04 19:55:00"); null when it is
 * not one or names an impossible date or time. A time without a zone is UTC.
 */
export function parseTimestamp(text: string): ParsedTimestamp | null {
  const m = TIMESTAMP.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const date = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || date < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const day = dayFromYmd(year, month, date);
  if (ymdFromDay(day).day !== date) return null; // 2026-02-30
  let offsetMinutes = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2)) : 0;
    if (oh > 23 || om > 59) return null;
    offsetMinutes = sign * (oh * 60 + om);
  }
  const ms = frac ? Math.round(Number(`0.${frac}`) * 1000) : 0;
  const instant = day * MS_PER_DAY + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + ms;
  return { instant, day };
}

/** The day of a date or date-time string, or null. */
export function parseDay(text: string): number | null {
  return parseTimestamp(text)?.day ?? null;
}
