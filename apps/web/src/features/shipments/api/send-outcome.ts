import { MSG } from '@shiptrail/contract';
import { ApiError } from '../../../lib/api-client';

export type SendOutcome = 'sent' | 'refused' | 'later';

/** What a reply means for a queued action: sent, refused for good, or to try again later. */
export function outcomeOf(e: unknown): SendOutcome {
  if (!(e instanceof ApiError)) return 'later';
  // No signal, a server error, too many at once, or the same key still being handled by another tab. A session
  // that ended (401) too: the courier signs in again and it goes then.
  if (e.code === 0 || e.code >= 500 || e.code === 429 || e.code === 408 || e.code === 401) return 'later';
  if (e.code === 409 && e.message === MSG.idempotencyKeyInProgress) return 'later';
  return 'refused';
}
