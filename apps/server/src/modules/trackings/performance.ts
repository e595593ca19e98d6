// Delivery performance of an account (issue 32, decisions 122, 123, 133, 134): the figures of GET
// /v1/trackings/performance and its CSV, over a period of days in the account's time zone. Every figure is one SQL
// statement over indexed tables (trackings.repository, shipments' courierPerformance); this file only shapes them.
import {
  COURIER_NAMES,
  COURIER_SLUGS,
  PERFORMANCE_MAX_DAYS,
  STATUS_LABELS,
  TRANSIT_BUCKETS,
  type CourierSlug,
  type Performance,
  type PerformanceQuery,
  type TrackingStatus,
} from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import type { UserRow } from '../accounts/accounts.repository.ts';
import { courierPerformance } from '../shipments/shipments.service.ts';
import * as repo from './trackings.repository.ts';
import { localDate, localMidnight } from '../../lib/time-zone.ts';

const DAY = 86_400_000;
/** How many lanes, exception causes and stalled parcels the figures list. */
export const TOP_LANES = 10;
/** How many carrier services the figures list (each carrier has a handful; decision 158). */
export const TOP_SERVICES = 20;
export const TOP_CAUSES = 10;
export const STALLED_LISTED = 50;

const addDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);

/**
 * The period asked for, as days in the account's time zone (both included) and as the instants [start, end):
 * `from`/`to` when given; else the `days` days ending today; `to` alone ends there, `from` alone runs to today
 * (at most PERFORMANCE_MAX_DAYS: a `from` further back than that starts later, the contract refuses it with `to`).
 */
export function performancePeriod(q: Pick<PerformanceQuery, 'days' | 'from' | 'to'>, now: Date, tz: string) {
  const today = localDate(now, tz);
  const to = q.to ?? today;
  let from = q.from ?? addDays(to, 1 - q.days);
  if (Date.parse(to) - Date.parse(from) >= PERFORMANCE_MAX_DAYS * DAY) from = addDays(to, 1 - PERFORMANCE_MAX_DAYS);
  if (from > to) from = to;
  const days = Math.round((Date.parse(to) - Date.parse(from)) / DAY) + 1;
  return { from, to, days, start: localMidnight(from, tz), end: localMidnight(addDays(to, 1), tz) };
}

const isCourier = (c: string): c is CourierSlug => (COURIER_SLUGS as readonly string[]).includes(c);
const share = (count: number, of: number) => ({ count, of, rate: of > 0 ? Math.round((count / of) * 1000) / 1000 : null });
const daysOf = (seconds: number | null) => (seconds === null ? null : Math.round((seconds / 86_400) * 10) / 10);
const transitOf = (r: repo.TransitRow) => ({
  delivered: r.delivered,
  medianDays: daysOf(r.p50Seconds),
  p90Days: daysOf(r.p90Seconds),
  histogram: r.histogram,
});

/** Delivery performance of an account over a period (contract performanceSchema). */
export async function performance(ctx: AppContext, user: UserRow, q: PerformanceQuery): Promise<Performance> {
  const period = performancePeriod(q, ctx.now(), user.timeZone);
  const stalledBefore = new Date(ctx.now().getTime() - q.stalledDays * DAY);
  // The four statements are independent: asked at once (decision 147). On PostgreSQL each runs on a connection of
  // its own, so the page takes about its slowest statement, not their sum; the connections are held no longer in
  // all than one after the other. On PGlite they queue in the database thread: the sum, as before.
  const [all, exceptions, stalled, couriers] = await Promise.all([
    repo.performanceByCarrier(ctx.db, user.id, period.start, period.end),
    repo.exceptionCauses(ctx.db, user.id, period.start, period.end, TOP_CAUSES),
    repo.stalledTrackings(ctx.db, user.id, stalledBefore, STALLED_LISTED),
    courierPerformance(ctx, user, period.start, period.end),
  ]);
  const transit = all.filter((r) => isCourier(r.courier));
  const carriers = transit.filter((r) => r.origin === null && r.service === null);
  const services = transit
    .filter((r) => r.service !== null)
    .sort((a, b) => b.delivered - a.delivered || a.courier.localeCompare(b.courier) || a.service!.localeCompare(b.service!))
    .slice(0, TOP_SERVICES);
  const lanes = transit
    .filter((r) => r.origin !== null && r.origin !== '' && r.destination !== null && r.destination !== '')
    .sort(
      (a, b) =>
        b.delivered - a.delivered ||
        a.courier.localeCompare(b.courier) ||
        `${a.origin}${a.destination}`.localeCompare(`${b.origin}${b.destination}`),
    )
    .slice(0, TOP_LANES);
  const sum = (f: (r: repo.TransitRow) => number) => carriers.reduce((n, r) => n + f(r), 0);
  return {
    days: period.days,
    from: period.from,
    to: period.to,
    delivered: sum((r) => r.delivered),
    onTime: share(
      sum((r) => r.onTime),
      sum((r) => r.promised),
    ),
    firstAttempt: share(
      sum((r) => r.firstAttempt),
      sum((r) => r.delivered),
    ),
    byCarrier: carriers.map((r) => ({
      courier: r.courier as CourierSlug,
      ...transitOf(r),
      onTime: share(r.onTime, r.promised),
      firstAttempt: share(r.firstAttempt, r.delivered),
    })),
    lanes: lanes.map((r) => ({ courier: r.courier as CourierSlug, origin: r.origin!, destination: r.destination!, ...transitOf(r) })),
    byService: services.map((r) => ({
      courier: r.courier as CourierSlug,
      service: r.service || null,
      ...transitOf(r),
      onTime: share(r.onTime, r.promised),
    })),
    exceptions,
    stalled: {
      days: q.stalledDays,
      count: stalled.count,
      parcels: stalled.rows.map((r) => ({
        tid: r.tid,
        courier: r.courier,
        title: r.title,
        status: r.status as TrackingStatus,
        lastScanAt: r.lastScanAt?.toISOString() ?? null,
        addedAt: r.addedAt.toISOString(),
      })),
    },
    couriers: couriers.map((c) => ({
      courierId: c.courierId,
      name: c.name,
      daysWorked: c.daysWorked,
      stops: c.stops,
      stopsPerDay: c.daysWorked > 0 ? Math.round((c.stops / c.daysWorked) * 10) / 10 : null,
      delivered: c.delivered,
      onTime: share(c.onTime, c.delivered),
      failedAttempts: c.failed,
    })),
  };
}

/** A CSV field: quoted when it needs to be; a leading =, +, - or @ is neutralised so a spreadsheet never runs it. */
function field(v: string | number | null): string {
  if (v === null) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * The same figures as one CSV table: `section` says which figure a row belongs to, `name` what it counts, and the
 * columns after it are the figures (empty where they do not apply). One table, so a spreadsheet opens it as it is.
 */
export function performanceCsv(p: Performance): string {
  const head = ['section', 'name', 'count', 'of', 'rate', 'median_days', 'p90_days', ...TRANSIT_BUCKETS.map((b) => `days_${b}`), 'detail'];
  const rows: Array<Array<string | number | null>> = [];
  const blank = TRANSIT_BUCKETS.map(() => null);
  const row = (
    section: string,
    name: string,
    count: number | null,
    of: number | null,
    rate: number | null,
    more: Array<string | number | null> = [null, null, ...blank, null],
  ) => rows.push([section, name, count, of, rate, ...more]);
  row('period', `${p.from} to ${p.to}`, p.days, null, null);
  row('delivered', 'all carriers', p.delivered, null, null);
  row('on_time', 'all carriers', p.onTime.count, p.onTime.of, p.onTime.rate);
  row('first_attempt', 'all carriers', p.firstAttempt.count, p.firstAttempt.of, p.firstAttempt.rate);
  for (const c of p.byCarrier) {
    const name = COURIER_NAMES[c.courier];
    row('transit', name, c.delivered, null, null, [c.medianDays, c.p90Days, ...c.histogram, null]);
    row('on_time', name, c.onTime.count, c.onTime.of, c.onTime.rate);
    row('first_attempt', name, c.firstAttempt.count, c.firstAttempt.of, c.firstAttempt.rate);
  }
  for (const l of p.lanes) {
    row('lane', `${COURIER_NAMES[l.courier]} ${l.origin} to ${l.destination}`, l.delivered, null, null, [
      l.medianDays,
      l.p90Days,
      ...l.histogram,
      null,
    ]);
  }
  for (const v of p.byService) {
    const onTime = v.onTime.of > 0 ? `on time ${v.onTime.count} of ${v.onTime.of}` : null;
    row('service', `${COURIER_NAMES[v.courier]} ${v.service ?? 'service not known'}`, v.delivered, null, null, [
      v.medianDays,
      v.p90Days,
      ...v.histogram,
      onTime,
    ]);
  }
  row('exceptions', 'all', p.exceptions.count, null, null, [null, null, ...blank, `${p.exceptions.parcels} parcels`]);
  for (const e of p.exceptions.causes) row('exception_cause', e.cause, e.count, p.exceptions.count, null);
  row('stalled', `no scan for ${p.stalled.days} days`, p.stalled.count, null, null);
  for (const s of p.stalled.parcels) {
    const courier = isCourier(s.courier) ? COURIER_NAMES[s.courier] : s.courier;
    const status = STATUS_LABELS[s.status] ?? s.status;
    row('stalled_parcel', s.tid, null, null, null, [
      null,
      null,
      ...blank,
      `${courier}; ${status}; last scan ${s.lastScanAt ?? 'none'}; added ${s.addedAt}`,
    ]);
  }
  for (const c of p.couriers) {
    row('courier', c.name, c.stops, c.daysWorked, null, [null, null, ...blank, `${c.stopsPerDay ?? ''} stops a day`]);
    row('courier_on_time', c.name, c.onTime.count, c.onTime.of, c.onTime.rate);
    row('courier_failed_attempts', c.name, c.failedAttempts, c.stops, null);
  }
  return [head, ...rows].map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';
}
