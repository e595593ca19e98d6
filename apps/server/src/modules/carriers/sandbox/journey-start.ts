import { and, eq, inArray, min } from 'drizzle-orm';
import type { Queryable } from '../../../db/client.ts';
import { checkpoints, trackings } from '../../../db/schema.ts';
import type { JourneyStartLookup } from './carrier-sandbox.ts';

/**
 * The sandbox's durable journey clock. Every sandbox journey starts with its label scan at the journey's start
 * (to the second), and the refresh engine stores that scan as a checkpoint; so the earliest stored checkpoint of a
 * number is where its journey started. A restarted server (or another process on the same PostgreSQL) continues
 * each journey from there instead of sending parcels back to their first step. Numbers with no stored checkpoint
 * yet start when the sandbox is first asked.
 */
export function journeyStartFromCheckpoints(db: Queryable): JourneyStartLookup {
  return async (courier, tids) => {
    const rows = await db
      .select({ tid: trackings.tid, start: min(checkpoints.time) })
      .from(trackings)
      .innerJoin(checkpoints, eq(checkpoints.trackingId, trackings.id))
      .where(and(eq(trackings.courier, courier), inArray(trackings.tid, tids)))
      .groupBy(trackings.tid);
    return new Map(rows.flatMap((r) => (r.start ? [[r.tid, new Date(r.start).getTime()] as const] : [])));
  };
}
