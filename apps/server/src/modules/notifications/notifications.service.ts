import { MSG, type NotificationLogItem } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import type { UserRow } from '../accounts/accounts.repository.ts';
import { newVersion } from '../../lib/ids.ts';
import * as repo from './notifications.repository.ts';
import { webhookQueue, type NotifyJob } from './queues.ts';
import { enqueue } from '../../jobs/define.ts';
import { PREVIOUS_SECRET_GRACE_MS, newWebhookSecret } from './signing.ts';
import { WebhookLookupUnavailableError, resolveWebhookTarget, targetOptions } from './ssrf.ts';
/** Notification settings are this module's (decision 117): the accounts module stores them in the user row. */
export {
  approachOf,
  effectiveEndpoint,
  initialSettings,
  mergeSettings,
  promisedNotify,
  settingsView,
  type StoredSettings,
} from './settings.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The account's notifications with their webhook attempts, newest first (the delivery log). */
// What other modules may use of notifications: fan-out of a status event (in the caller's transaction),
// webhook secrets, and the SSRF check of a webhook URL at save.
export { fanOutStatusEvent, fanOutStatusEvents, releaseHeldCustomerMessages } from './fanout.ts';
export { newWebhookSecret } from './signing.ts';

/**
 * The SSRF check of a webhook URL at save (400 with a field error when refused). A resolver that cannot answer just
 * now does not refuse the URL: every send checks it again, and retries while the resolver is down (decision 181).
 */
export async function checkWebhookAtSave(ctx: AppContext, url: string): Promise<void> {
  try {
    await resolveWebhookTarget(url, targetOptions(ctx.config));
  } catch (err) {
    if (!(err instanceof WebhookLookupUnavailableError)) throw err;
    ctx.log.warn({ host: err.host, code: err.code }, 'webhook host not looked up at save: kept, checked again at send');
  }
}

export async function notificationLog(ctx: AppContext, user: UserRow, limit: number): Promise<NotificationLogItem[]> {
  const rows = await repo.listUserNotifications(ctx.db, user.id, limit);
  const attempts = await repo.listAttempts(
    ctx.db,
    rows.filter((r) => r.n.channel === 'webhook').map((r) => r.n.id),
  );
  const byId = new Map<string, NotificationLogItem['deliveries']>();
  for (const a of attempts) {
    const list = byId.get(a.notificationId) ?? [];
    list.push({
      at: a.createdAt.toISOString(),
      httpStatus: a.httpStatus,
      durationMs: a.durationMs,
      error: a.error,
      responseBody: a.responseBody,
    });
    byId.set(a.notificationId, list);
  }
  return rows.map(({ n, tid, fromStatus, toStatus }) => ({
    id: n.id,
    eventId: n.eventId,
    tid,
    previousStatus: fromStatus,
    status: toStatus,
    channel: n.channel as NotificationLogItem['channel'],
    audience: n.audience as NotificationLogItem['audience'],
    recipient: n.recipient,
    deliveryStatus: n.status as NotificationLogItem['deliveryStatus'],
    attempts: n.attempts,
    acceptedAt: iso(n.acceptedAt),
    providerId: n.providerId,
    lastError: n.lastError,
    nextAttemptAt: iso(n.nextAttemptAt),
    body: n.channel === 'webhook' ? ((n.payload as { body?: string } | null)?.body ?? null) : null,
    deliveries: byId.get(n.id) ?? [],
    createdAt: n.createdAt.toISOString(),
    updatedAt: n.updatedAt.toISOString(),
  }));
}

/**
 * Deliver a webhook again, at once, with the same webhook-id and body (the receiver deduplicates on
 * the id). A retry that was already scheduled for the same attempt becomes a no-op: whichever job
 * settles the attempt first wins.
 */
export async function resendWebhook(ctx: AppContext, user: UserRow, id: string) {
  const n = await repo.findUserNotification(ctx.db, user.id, id);
  if (!n) throw notFound(MSG.notFound);
  if (n.channel !== 'webhook') throw badRequest('Only webhook notifications can be resent');
  await ctx.db.transaction(async (tx) => {
    await repo.updateNotification(tx, n.id, { status: 'pending', nextAttemptAt: null });
    const data: NotifyJob = { v: 1, notificationId: n.id, attempt: n.attempts };
    await enqueue(ctx, webhookQueue, data, { tx });
  });
  return { id: n.id, deliveryStatus: 'pending' as const };
}

/** A new signing secret; the old one keeps signing beside it for 24 hours so receivers can switch. */
export async function regenerateWebhookSecret(ctx: AppContext, user: UserRow) {
  const now = ctx.now();
  const until = new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS);
  const webhookSecret = newWebhookSecret();
  await repo.setUserSecrets(ctx.db, user.id, {
    webhookSecret,
    webhookSecretPrev: user.webhookSecret,
    webhookSecretPrevUntil: until,
    version: newVersion(),
  });
  return { webhookSecret, previousSecretValidUntil: until.toISOString() };
}
