// Business days: weekends and public holidays, by country (and province for Canada). Holidays come from
// the `date-holidays` package (its rules: Thanksgiving is the 4th Thursday of November, a fixed US federal
// holiday on a Saturday is observed the Friday before and on a Sunday the Monday after, …); only its
// "public" holidays count, so observances such as Valentine's Day or the day after Thanksgiving do not.
import Holidays from 'date-holidays';
import { isoDate, weekday } from './days.ts';

export interface BusinessCalendar {
  /** What it is, e.g. "US", "CA-ON", "BR", "weekends". */
  readonly name: string;
  isBusinessDay(day: number): boolean;
  /** The public holidays of a year as YYYY-MM-DD → name (empty for a weekends-only calendar). */
  holidays(year: number): ReadonlyMap<string, string>;
}

/** A country the calendar knows, or "weekends" for Saturday and Sunday only. */
export type CalendarCountry = 'US' | 'CA' | 'BR' | 'weekends';

class HolidayCalendar implements BusinessCalendar {
  private readonly byYear = new Map<number, Map<string, string>>();
  private readonly source: Holidays | null;

  readonly name: string;

  constructor(name: string, country: string | null, region?: string) {
    this.name = name;
    this.source = country ? (region ? new Holidays(country, region) : new Holidays(country)) : null;
  }

  holidays(year: number): ReadonlyMap<string, string> {
    let set = this.byYear.get(year);
    if (!set) {
      set = new Map();
      for (const h of this.source?.getHolidays(year) ?? []) {
        if (h.type !== 'public') continue;
        // `date` is "YYYY-MM-DD hh:mm:ss" in the country's own time; a holiday spanning days counts each.
        const key = h.date.slice(0, 10);
        if (!set.has(key)) set.set(key, h.name);
      }
      this.byYear.set(year, set);
    }
    return set;
  }

  private readonly memo = new Map<number, boolean>();

  isBusinessDay(day: number): boolean {
    let yes = this.memo.get(day);
    if (yes === undefined) {
      const wd = weekday(day);
      const iso = isoDate(day);
      yes = wd !== 0 && wd !== 6 && !this.holidays(Number(iso.slice(0, 4))).has(iso);
      this.memo.set(day, yes);
    }
    return yes;
  }
}

const calendars = new Map<string, BusinessCalendar>();

/**
 * The calendar of a country (Canada by province, "ON", "QC", …; its national holidays when none). Cached:
 * the same arguments give the same object.
 */
export function calendarFor(country: CalendarCountry, region?: string): BusinessCalendar {
  const name = country === 'weekends' ? 'weekends' : region ? `${country}-${region}` : country;
  let cal = calendars.get(name);
  if (!cal) {
    cal = new HolidayCalendar(name, country === 'weekends' ? null : country, region);
    calendars.set(name, cal);
  }
  return cal;
}

/**
 * Business days after `from` up to and including `to` (0 when `to` is `from`); negative, counted the same way
 * backwards, when `to` is before `from`.
 */
export function businessDaysBetween(cal: BusinessCalendar, from: number, to: number): number {
  if (to < from) return -businessDaysBetween(cal, to, from);
  let n = 0;
  for (let d = from + 1; d <= to; d++) if (cal.isBusinessDay(d)) n++;
  return n;
}

/** The k-th business day after `from` (`from` itself for k = 0). */
export function addBusinessDays(cal: BusinessCalendar, from: number, k: number): number {
  let d = from;
  for (let left = k; left > 0;) {
    d++;
    if (cal.isBusinessDay(d)) left--;
  }
  return d;
}
