// The offset of an IANA time zone at an instant, from Intl (Node's ICU): used by the plan's clock and the
// performance figures' periods.

/** How far `tz` is ahead of UTC at `instant` (ms). */
export function offsetMs(instant: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const n = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) - Math.floor(instant / 1000) * 1000;
}

/** The UTC instant of 00:00 of `date` (YYYY-MM-DD) in `tz`. */
export function localMidnight(date: string, tz: string): Date {
  const guess = Date.parse(`${date}T00:00:00Z`);
  let t = guess - offsetMs(guess, tz);
  t = guess - offsetMs(t, tz);
  return new Date(t);
}

/** The local date (YYYY-MM-DD) of `instant` in `tz`. */
export function localDate(instant: Date, tz: string): string {
  return new Date(instant.getTime() + offsetMs(instant.getTime(), tz)).toISOString().slice(0, 10);
}
