import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';

/**
 * Called by the trackings module inside the transaction that records a status event: enqueues each
 * due notification (event, channel, recipient) exactly once, committing with the event.
 * (Filled in by the notifications feature.)
 */
export async function fanOutStatusEvent(_tx: Tx, _ctx: AppContext, _eventId: string): Promise<void> {}
