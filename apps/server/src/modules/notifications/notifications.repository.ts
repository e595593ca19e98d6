import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { rowsOf, type Queryable } from '../../db/client.ts';
import { announceUserChanged } from '../../lib/auth-signal.ts';
import { notifications, shipments, trackingEvents, trackings, users, webhookAttempts } from '../../db/schema.ts';

export type NotificationRow = typeof notifications.$inferSelect;

/**
 * Statuses after which a delivery has nothing left to do. 'held' (a customer message of an unverified account)
 * and 'limited' (over a customer-message limit) never have a job: a held one is moved back to pending, with its
 * job, when the account is verified (releaseHeld), so no delivery may take it before that.
 */
export const SETTLED_STATUSES = ['sent', 'delivered', 'failed', 'skipped_balance', 'disabled', 'held', 'limited'] as const;
const settledSql = sql.raw(SETTLED_STATUSES.map((x) => `'${x}'`).join(', '));
export type NewNotification = typeof notifications.$inferInsert;

/** The event with its tracking (or a company's shipment) and owner, as the fan-out needs them. */
export async function findEventWithContext(db: Queryable, eventId: string) {
  return (await findEventsWithContext(db, [eventId]))[0];
}

/** Events with their context, in the order of `eventIds` (ids not found are left out). */
export async function findEventsWithContext(db: Queryable, eventIds: string[]) {
  const rows = await db
    .select({ event: trackingEvents, tracking: trackings, shipment: shipments, user: users })
    .from(trackingEvents)
    .leftJoin(trackings, eq(trackings.id, trackingEvents.trackingId))
    .leftJoin(shipments, eq(shipments.id, trackingEvents.shipmentId))
    .innerJoin(users, eq(users.id, trackingEvents.userId))
    .where(inArray(trackingEvents.id, eventIds));
  const byId = new Map(rows.map((r) => [r.event.id, r]));
  return eventIds.flatMap((id) => byId.get(id) ?? []);
}

/** The account a status event belongs to, read in the event's transaction (the fan-out's rules and channels). */
export async function findEventAccount(db: Queryable, userId: string) {
  const [u] = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  return u;
}

/** Insert the rows that are new; (event, channel, recipient) is unique, so a repeat inserts nothing. */
export async function insertNotifications(db: Queryable, rows: NewNotification[]) {
  if (rows.length === 0) return [];
  return db
    .insert(notifications)
    .values(rows)
    .onConflictDoNothing()
    .returning({ id: notifications.id, eventId: notifications.eventId, channel: notifications.channel, status: notifications.status });
}

/**
 * Customer messages (audience 'send') of an account that count against its limits: every one written in the last
 * `windowMinutes`, but those refused as over a limit. With `same`, only those to that recipient on that channel
 * about the same status of the same tracking or shipment.
 */
export async function countCustomerMessages(
  db: Queryable,
  userId: string,
  windowMinutes: number,
  same?: { channel: string; recipient: string; toStatus: string; trackingId: string | null; shipmentId: string | null },
): Promise<number> {
  const subject = same?.trackingId ? sql`e.tracking_id = ${same.trackingId}` : sql`e.shipment_id = ${same?.shipmentId ?? null}`;
  const r = await db.execute<{ n: number | string }>(sql`
    select count(*)::int as n from ${notifications} n
    ${same ? sql`join ${trackingEvents} e on e.id = n.event_id` : sql``}
    where n.user_id = ${userId} and n.audience = 'send' and n.status <> 'limited'
      and n.created_at > now() - make_interval(secs => ${windowMinutes * 60}::float8)
      ${same ? sql`and n.channel = ${same.channel} and n.recipient = ${same.recipient} and e.to_status = ${same.toStatus} and ${subject}` : sql``}`);
  return Number(rowsOf<{ n: number | string }>(r)[0]?.n ?? 0);
}

/** Whether the account's email is verified, read with a share lock on its row (held until the caller commits). */
export async function emailVerifiedForShare(db: Queryable, userId: string): Promise<boolean> {
  const r = await db.execute<{ v: boolean }>(sql`select email_verified as v from ${users} where id = ${userId} for share`);
  return rowsOf<{ v: boolean }>(r)[0]?.v === true;
}

/** Move an account's held customer messages to pending: the ones moved, for their jobs. */
export async function releaseHeld(db: Queryable, userId: string) {
  return db
    .update(notifications)
    .set({ status: 'pending', updatedAt: new Date() })
    .where(and(eq(notifications.userId, userId), eq(notifications.status, 'held')))
    .returning({ id: notifications.id, channel: notifications.channel, status: notifications.status });
}

export async function findNotification(db: Queryable, id: string): Promise<NotificationRow | undefined> {
  const [n] = await db.select().from(notifications).where(eq(notifications.id, id)).limit(1);
  return n;
}
export async function findUserNotification(db: Queryable, userId: string, id: string): Promise<NotificationRow | undefined> {
  const [n] = await db
    .select()
    .from(notifications)
    .where(and(eq(notifications.id, id), eq(notifications.userId, userId)))
    .limit(1);
  return n;
}

export async function updateNotification(db: Queryable, id: string, values: Partial<NewNotification>) {
  await db
    .update(notifications)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(notifications.id, id));
}

/** Count an attempt as started (email, SMS). */
export async function markSending(db: Queryable, id: string) {
  await db
    .update(notifications)
    .set({ status: 'sending', attempts: sql`${notifications.attempts} + 1`, updatedAt: new Date() })
    .where(eq(notifications.id, id));
}

/** Record that the provider accepted the message; only the first acceptance counts. */
export async function markAccepted(db: Queryable, id: string, providerId: string, now: Date, status: 'sent' | 'delivered' = 'sent') {
  await db
    .update(notifications)
    .set({ status, acceptedAt: now, providerId, lastError: null, nextAttemptAt: null, leaseUntil: null, updatedAt: now })
    .where(and(eq(notifications.id, id), isNull(notifications.acceptedAt)));
}

/**
 * Settle a webhook attempt, but only if no other worker settled attempt `attempt` first (a resend and
 * a scheduled retry may race): returns false when the row had moved on.
 */
export async function settleWebhookAttempt(db: Queryable, id: string, attempt: number, values: Partial<NewNotification>): Promise<boolean> {
  const r = await db
    .update(notifications)
    .set({ ...values, attempts: attempt + 1, leaseUntil: null, updatedAt: new Date() })
    .where(and(eq(notifications.id, id), eq(notifications.attempts, attempt)))
    .returning({ id: notifications.id });
  return r.length > 0;
}

export type LeaseResult = { held: true; until: string } | { held: false; done: true } | { held: false; done: false; waitMs: number };

/**
 * Take the notification for one delivery attempt, for `seconds` (on the database's clock, shared by every
 * process). It is refused while another attempt's lease runs (waitMs says how long it has left) and when
 * there is nothing left to do (done: settled, accepted, or, for a webhook, the attempt already made).
 */
export async function takeLease(db: Queryable, id: string, seconds: number, attempt: number | null): Promise<LeaseResult> {
  // Mail and SMS are done once accepted; a webhook is sent again on a resend (accepted_at stays), so its attempt decides.
  const settled = sql`${notifications.status} in (${settledSql})`;
  const finished = attempt === null ? sql`(${settled} or ${notifications.acceptedAt} is not null)` : settled;
  const sameAttempt = attempt === null ? sql`true` : sql`${notifications.attempts} = ${attempt}`;
  type Row = { until: string | null; done: boolean; wait_ms: number | string | null };
  const r = await db.execute<Row>(sql`
    with took as (
      update ${notifications} set lease_until = now() + make_interval(secs => ${seconds})
      where ${notifications.id} = ${id} and not ${finished} and ${sameAttempt}
        and (${notifications.leaseUntil} is null or ${notifications.leaseUntil} <= now())
      returning lease_until::text as until
    ), cur as (
      select ${finished} or not (${sameAttempt}) as done,
             greatest(0, extract(epoch from (${notifications.leaseUntil} - now())) * 1000) as wait_ms
      from ${notifications} where ${notifications.id} = ${id}
    )
    select (select until from took) as until, coalesce((select done from cur), true) as done, (select wait_ms from cur) as wait_ms`);
  const row = rowsOf<Row>(r)[0];
  if (row?.until) return { held: true, until: row.until };
  if (!row || row.done) return { held: false, done: true };
  return { held: false, done: false, waitMs: Math.max(1, Math.ceil(Number(row.wait_ms ?? 1))) };
}

/** Give back a lease this attempt holds (`until` from takeLease), unless another attempt has taken it since. */
export async function releaseLease(db: Queryable, id: string, until: string) {
  await db.execute(
    sql`update ${notifications} set lease_until = null where ${notifications.id} = ${id} and lease_until = ${until}::timestamptz`,
  );
}

/** A webhook notification whose lease a batch took, with what its delivery needs. */
export interface WebhookClaim {
  id: string;
  eventId: string;
  userId: string;
  channel: string;
  recipient: string;
  payload: unknown;
  createdAt: Date;
  attempt: number;
  /** The lease's end, as takeLease returns it (for releaseLease). */
  until: string;
  secrets: { webhookSecret: string; webhookSecretPrev: string | null; webhookSecretPrevUntil: Date | null };
}

const asDate = (v: unknown): Date | null => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(String(v)));

/**
 * takeLease for a batch of webhook deliveries in one statement, with the account's signing secrets. Each item is
 * (notification, attempt); the notifications returned are held for this attempt. One not returned is settled, past
 * that attempt, or held by another live attempt: the caller runs those one at a time (deliverWebhook waits out a
 * live lease or finds nothing to do).
 */
export async function takeWebhookLeases(
  db: Queryable,
  items: Array<{ id: string; attempt: number }>,
  seconds: number,
): Promise<WebhookClaim[]> {
  if (items.length === 0) return [];
  const values = items.map((i) => sql`(${i.id}::uuid, ${i.attempt}::int)`);
  type Row = {
    id: string;
    event_id: string;
    user_id: string;
    channel: string;
    recipient: string;
    payload: unknown;
    created_at: unknown;
    attempt: number;
    until: string;
    webhook_secret: string;
    webhook_secret_prev: string | null;
    webhook_secret_prev_until: unknown;
  };
  const r = await db.execute<Row>(sql`
    update ${notifications} n set lease_until = now() + make_interval(secs => ${seconds})
    from (values ${sql.join(values, sql`, `)}) as j(id, attempt), ${users} u
    where n.id = j.id and n.attempts = j.attempt and u.id = n.user_id
      and n.status not in (${settledSql})
      and (n.lease_until is null or n.lease_until <= now())
    returning n.id, n.event_id, n.user_id, n.channel, n.recipient, n.payload, n.created_at, j.attempt, n.lease_until::text as until,
      u.webhook_secret, u.webhook_secret_prev, u.webhook_secret_prev_until`);
  return rowsOf<Row>(r).map((x) => ({
    id: x.id,
    eventId: x.event_id,
    userId: x.user_id,
    channel: x.channel,
    recipient: x.recipient,
    payload: x.payload,
    createdAt: asDate(x.created_at)!,
    attempt: Number(x.attempt),
    until: x.until,
    secrets: {
      webhookSecret: x.webhook_secret,
      webhookSecretPrev: x.webhook_secret_prev,
      webhookSecretPrevUntil: asDate(x.webhook_secret_prev_until),
    },
  }));
}

/**
 * Settle many answered webhook attempts (2xx) in one statement: each attempt is logged, and each notification still
 * at that attempt becomes delivered (settleWebhookAttempt's rule). Returns the ids it settled.
 */
export async function settleDeliveredWebhooks(
  db: Queryable,
  rows: Array<{ id: string; attempt: number; httpStatus: number; durationMs: number; responseBody: string | null }>,
  now: Date,
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const values = rows.map(
    (x) => sql`(${x.id}::uuid, ${x.attempt}::int, ${x.httpStatus}::int, ${x.durationMs}::int, ${x.responseBody}::text)`,
  );
  const r = await db.execute<{ id: string }>(sql`
    with j(id, attempt, http_status, duration_ms, response_body) as (values ${sql.join(values, sql`, `)}),
    logged as (
      insert into ${webhookAttempts} (notification_id, http_status, duration_ms, response_body)
      select id, http_status, duration_ms, response_body from j
    )
    update ${notifications} n set status = 'delivered', accepted_at = ${now.toISOString()}::timestamptz, provider_id = 'http-' || j.http_status,
      last_error = null, next_attempt_at = null, attempts = j.attempt + 1, lease_until = null, updated_at = ${now.toISOString()}::timestamptz
    from j where n.id = j.id and n.attempts = j.attempt
    returning n.id`);
  return new Set(rowsOf<{ id: string }>(r).map((x) => x.id));
}

export async function insertWebhookAttempt(db: Queryable, v: typeof webhookAttempts.$inferInsert) {
  await db.insert(webhookAttempts).values(v);
}

export async function findUserSecrets(db: Queryable, userId: string) {
  const [u] = await db
    .select({
      webhookSecret: users.webhookSecret,
      webhookSecretPrev: users.webhookSecretPrev,
      webhookSecretPrevUntil: users.webhookSecretPrevUntil,
    })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  return u;
}

export async function setUserSecrets(
  db: Queryable,
  userId: string,
  values: { webhookSecret: string; webhookSecretPrev: string | null; webhookSecretPrevUntil: Date | null; version: string },
) {
  await db
    .update(users)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(users.id, userId));
  await announceUserChanged(db, userId);
}

/**
 * Turn off the account's webhook triggers, but only while the endpoint is still the URL that answered
 * 410 (the user may have saved a new one meanwhile). One statement, so a concurrent settings save is
 * never overwritten with stale settings. Returns whether it changed anything.
 */
export async function disableWebhookEndpoint(db: Queryable, userId: string, url: string, version: string): Promise<boolean> {
  const r = await db
    .update(users)
    .set({
      settings: sql`jsonb_set(${users.settings}, '{receiveNotification,webhook,triggers}', '{}'::jsonb)`,
      version,
      updatedAt: new Date(),
    })
    .where(and(eq(users.id, userId), sql`${users.settings} #>> '{receiveNotification,webhook,endpoint}' = ${url}`))
    .returning({ id: users.id });
  if (r.length > 0) await announceUserChanged(db, userId);
  return r.length > 0;
}

/** The account's notifications, newest first, with what the log shows beside them. */
export async function listUserNotifications(db: Queryable, userId: string, limit: number) {
  return db
    .select({
      n: notifications,
      tid: sql<string>`coalesce(${trackings.tid}, ${shipments.tid}, '')`,
      fromStatus: trackingEvents.fromStatus,
      toStatus: trackingEvents.toStatus,
    })
    .from(notifications)
    .innerJoin(trackingEvents, eq(trackingEvents.id, notifications.eventId))
    .leftJoin(trackings, eq(trackings.id, trackingEvents.trackingId))
    .leftJoin(shipments, eq(shipments.id, trackingEvents.shipmentId))
    .where(eq(notifications.userId, userId))
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(limit);
}

export async function listAttempts(db: Queryable, notificationIds: string[]) {
  if (notificationIds.length === 0) return [];
  return db.select().from(webhookAttempts).where(inArray(webhookAttempts.notificationId, notificationIds)).orderBy(webhookAttempts.id);
}
