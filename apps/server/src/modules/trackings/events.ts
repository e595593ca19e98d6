import type { Checkpoint } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { fanOutStatusEvent } from '../notifications/notifications.service.ts';
import { publishLive } from '../live/live.service.ts';
import * as repo from './trackings.repository.ts';
import type { UserRow } from '../accounts/accounts.repository.ts';

/**
 * Record a status change in the transaction that makes it, and fan out its notifications in that same
 * transaction: the change, the event and the queued notifications commit together or not at all. `written` is the
 * tracking row as this transaction has left it (after its update) and the account when the caller holds it: the
 * fan-out then takes them and the event as written instead of reading them back (decision 148). A caller that
 * updates the tracking after this call passes none.
 */
export async function recordStatusChange(
  tx: Tx,
  ctx: AppContext,
  t: { id: string; userId: string; tid: string; status: string },
  toStatus: string,
  checkpoint: Checkpoint | null,
  written?: { tracking: repo.TrackingRow; user?: UserRow },
): Promise<string | null> {
  if (t.status === toStatus) return null;
  const event = await repo.insertEvent(tx, {
    trackingId: t.id,
    userId: t.userId,
    fromStatus: t.status,
    toStatus,
    checkpoint,
    createdAt: ctx.now(),
  });
  await fanOutStatusEvent(tx, ctx, written ? { event, ...written } : event.id);
  await publishLive(tx, { kind: 'tracking', accountId: t.userId, trackingId: t.id, tid: t.tid, status: toStatus, statusChanged: true });
  return event.id;
}

/**
 * Record news of a tracking's estimate (EstimateChanged, LikelyLate: estimate.ts) as an event in the transaction that
 * stored the estimate, and fan out its notifications there: from the status the tracking has, to the news.
 */
export async function recordEstimateEvent(
  tx: Tx,
  ctx: AppContext,
  t: { id: string; userId: string },
  status: string,
  kind: 'EstimateChanged' | 'LikelyLate',
): Promise<string> {
  const { id: eventId } = await repo.insertEvent(tx, {
    trackingId: t.id,
    userId: t.userId,
    fromStatus: status,
    toStatus: kind,
    checkpoint: null,
    createdAt: ctx.now(),
  });
  await fanOutStatusEvent(tx, ctx, eventId);
  return eventId;
}
