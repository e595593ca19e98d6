import type { CourierDay } from '@shiptrail/contract';

interface Queued {
  tid: string;
  status: string;
}

/**
 * The day's counts as the courier lived it: what the server has, plus what waits on the phone to be sent
 * (decision 120). A stop delivered on the phone is done, not to do; each failed attempt waiting counts as failed.
 */
export function countsWithQueue(day: Pick<CourierDay, 'stops' | 'done' | 'failed'>, waiting: Queued[]) {
  const open = new Set(day.stops.map((s) => s.tid));
  const deliveredHere = new Set(waiting.filter((i) => i.status === 'Delivered' && open.has(i.tid)).map((i) => i.tid));
  return {
    left: day.stops.length - deliveredHere.size,
    done: day.done + deliveredHere.size,
    failed: day.failed + waiting.filter((i) => i.status === 'FailAttempt').length,
  };
}
