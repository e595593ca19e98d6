import type { CourierDay } from '@shiptrail/contract';

interface Queued {
  tid: string;
  status: string;
  /** When the courier acted. */
  occurredAt: string;
}

/** The stops a delivery waiting on the phone finished: done, even before the server knows. */
export function deliveredOnPhone(day: { stops: Array<{ tid: string }> }, waiting: Queued[]): Set<string> {
  const open = new Set(day.stops.map((s) => s.tid));
  return new Set(waiting.filter((i) => i.status === 'Delivered' && open.has(i.tid)).map((i) => i.tid));
}

/**
 * The day's counts as the courier lived it: what the server has, plus what waits on the phone to be sent
 * (decision 120). A stop delivered on the phone is done, not to do; each failed attempt waiting counts as failed.
 * Like the server (decision 138), what counts for today is what the courier did since the day's start (`since`),
 * whenever it is sent: a delivery made before midnight and still waiting leaves the stops to do, but is not
 * today's.
 */
export function countsWithQueue(day: Pick<CourierDay, 'stops' | 'done' | 'failed' | 'since'>, waiting: Queued[]) {
  const start = new Date(day.since).getTime();
  const today = (i: Queued) => !(new Date(i.occurredAt).getTime() < start);
  const deliveredHere = deliveredOnPhone(day, waiting);
  const deliveredToday = deliveredOnPhone(day, waiting.filter(today));
  return {
    left: day.stops.length - deliveredHere.size,
    done: day.done + deliveredToday.size,
    failed: day.failed + waiting.filter((i) => i.status === 'FailAttempt' && today(i)).length,
  };
}

/**
 * The order of the day as the courier lives it (decision 138): the stops still to do, in the server's order (the
 * plan's, or oldest first), then the ones delivered on this phone and not yet sent, which the server will drop
 * from the list once it has them.
 */
export function dayOrder<S extends { tid: string }>(day: { stops: S[] }, waiting: Queued[]): { todo: S[]; doneHere: S[] } {
  const done = deliveredOnPhone(day, waiting);
  return { todo: day.stops.filter((s) => !done.has(s.tid)), doneHere: day.stops.filter((s) => done.has(s.tid)) };
}
