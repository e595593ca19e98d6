import type { Queryable } from '../db/client.ts';
import { publish } from './bus.ts';

/**
 * "This account's sign-in facts changed": a user row was saved or deleted, or sessions were revoked.
 *
 * The api processes keep recently checked tokens in memory (modules/accounts/auth-cache.ts). A change must
 * reach every one of them: the caches of this process hear it at once (so the answer to the change and any
 * request after it already see the new facts), and every process, this one included, hears it again on the
 * bus when the change commits (a request that read the old row meanwhile is dropped then).
 *
 * Every statement that writes `users` or revokes `sessions` calls this, on the same connection or
 * transaction as the write: a rolled-back change announces nothing on the bus.
 */
export async function announceUserChanged(db: Queryable, userId: string): Promise<void> {
  for (const fn of localListeners) fn(userId);
  await publish(db, 'auth', { userId });
}

type Listener = (userId: string) => void;
const localListeners = new Set<Listener>();

/** For the caches of this process: called before the change's statement returns. Returns the unsubscribe. */
export function onUserChanged(fn: Listener): () => void {
  localListeners.add(fn);
  return () => void localListeners.delete(fn);
}
