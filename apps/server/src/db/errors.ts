/**
 * A unique index refused the write (PostgreSQL 23505), found however deep a driver or drizzle wrapped it;
 * given `index`, only that index (a driver that does not name the constraint counts as a match).
 */
export function isUniqueViolation(err: unknown, index?: string): boolean {
  for (
    let e = err as { code?: string; constraint?: string; cause?: unknown } | undefined, i = 0;
    e && i < 5;
    e = e.cause as typeof e, i++
  ) {
    if (e.code === '23505') return !index || !e.constraint || e.constraint === index;
  }
  return false;
}
