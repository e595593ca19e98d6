import type { TrackingView } from '@shiptrail/contract';

// A tracking is the contract's TrackingView (what GET /v1/trackings/get returns); this file keeps what only the
// trackings page needs on top of it.

/** The list's filters as the page holds them (sent as comma lists). */
export interface TrackingFilters {
  status: string[];
  courier: string[];
}

/** "message · location" of the latest checkpoint; checkpoints come newest first, in the carrier's order. */
export function lastCheckPointText(t: Pick<TrackingView, 'lastCheckPoint' | 'checkpoints'>): string {
  const c = t.lastCheckPoint ?? t.checkpoints[0];
  return c ? [c.message, c.location].filter(Boolean).join(' · ') : '';
}
