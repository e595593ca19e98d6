import {
  APPROACH_TRIGGERS,
  THEME_PRIMARY_COLORS,
  ESTIMATE_TRIGGERS,
  ESTIMATE_WEBHOOK_EVENT_TYPES,
  cleanBrandUrl,
  cleanText,
  TRIGGER_EVENTS,
  WEBHOOK_EVENT_TYPE,
  WEBHOOK_PAYLOAD_VERSION,
  normalizeUsPhone,
  toE164,
  estimateView,
  likelyLateOf,
  likelyLateReason,
  type ApproachTrigger,
  type EstimateTrigger,
  type EstimateWebhookEvent,
  type NotificationChannel,
  type TriggerEvent,
  type WebhookEvent,
} from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import type { shipments, trackings, trackingEvents, users } from '../../db/schema.ts';
import { plannedWindow } from '../planning/plan-window.service.ts';
import { effectiveEndpoint, settingsView, type StoredSettings } from './settings.ts';
import * as repo from './notifications.repository.ts';
import { notifyQueues } from './queues.ts';
import { enqueueMany } from '../../jobs/define.ts';
import { estimateEmail, estimateSms, statusEmail, statusSms, type StatusMessageInput } from './templates.ts';

type TrackingRow = typeof trackings.$inferSelect;
type ShipmentRow = typeof shipments.$inferSelect;
type EventRow = typeof trackingEvents.$inferSelect;
type UserRow = typeof users.$inferSelect;

interface Planned {
  channel: NotificationChannel;
  audience: 'receive' | 'send';
  recipient: string;
}

const isTrigger = (s: string): s is TriggerEvent => (TRIGGER_EVENTS as readonly string[]).includes(s);
const isEstimateTrigger = (s: string): s is EstimateTrigger => (ESTIMATE_TRIGGERS as readonly string[]).includes(s);
const e164 = (phone: string) => {
  const n = phone ? normalizeUsPhone(phone) : null;
  return n ? toE164(n) : '';
};

/**
 * Who hears about a status change (product rules §3-4): the account's own channels (receiveNotification), and
 * the tracking's notify email and phone, i.e. the account's customer (sendNotification; persons too, decision 100). Email and phone of the account default to the profile's when left empty.
 */
export function planRecipients(user: UserRow, tracking: Pick<TrackingRow, 'notifyEmail' | 'notifyPhone'>, status: TriggerEvent): Planned[] {
  const s = settingsView(user.settings as StoredSettings, '');
  const out: Planned[] = [];
  const recv = s.receiveNotification;
  if (recv.email.triggers[status]) {
    const to = effectiveEndpoint('email', recv.email.endpoint, user).toLowerCase();
    if (to) out.push({ channel: 'email', audience: 'receive', recipient: to });
  }
  if (recv.phone.triggers[status]) {
    const to = e164(effectiveEndpoint('phone', recv.phone.endpoint, user));
    if (to) out.push({ channel: 'sms', audience: 'receive', recipient: to });
  }
  if (recv.webhook.triggers[status]) {
    const url = effectiveEndpoint('webhook', recv.webhook.endpoint, user);
    if (url) out.push({ channel: 'webhook', audience: 'receive', recipient: url });
  }
  // Companies and persons alike tell the customer named on the tracking (decision 100).
  const send = s.sendNotification;
  const email = tracking.notifyEmail.trim().toLowerCase();
  if (send.email.triggers[status] && email) out.push({ channel: 'email', audience: 'send', recipient: email });
  const phone = e164(tracking.notifyPhone);
  if (send.phone.triggers[status] && phone) out.push({ channel: 'sms', audience: 'send', recipient: phone });
  // The same address twice (a company that is its own customer) gets one message: the unique index
  // would drop the second row anyway; keep the first, the account's own.
  const seen = new Set<string>();
  return out.filter((p) => {
    const k = `${p.channel} ${p.recipient}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);
type Cp = { status?: string; location?: string | null; message?: string; time?: string | Date } | null | undefined;
function checkpointView(c: Cp): WebhookEvent['data']['checkpoint'] {
  if (!c || typeof c !== 'object') return null;
  return { status: String(c.status ?? ''), location: c.location ?? null, message: String(c.message ?? ''), time: iso(c.time) ?? '' };
}

/** A company's look in its customers' messages: the primary colour of its theme and its logo (profile image). */
export function brandStyleOf(user: UserRow, publicUrl?: string): { color: string; logo: string } {
  const themeid = ((user.settings as { themeid?: string } | null)?.themeid ?? 'A') as keyof typeof THEME_PRIMARY_COLORS;
  // An uploaded logo is stored as a path on this deployment (/v1/brand/logo/...): a mail needs it whole.
  const image = cleanBrandUrl(user.image);
  const logo = publicUrl && image.startsWith('/') ? `${publicUrl}${image}` : image;
  return { color: THEME_PRIMARY_COLORS[themeid] ?? THEME_PRIMARY_COLORS.A, logo };
}

/** The name that signs a company's messages to its customers, cleaned of control and bidi characters (decision 109). */
export const senderNameOf = (user: Pick<UserRow, 'company' | 'firstName' | 'lastName'>): string | null =>
  cleanText(user.company) || cleanText([user.firstName, user.lastName].filter(Boolean).join(' ')) || null;

export const publicTrackingUrl = (ctx: AppContext, user: Pick<UserRow, 'uid'>, tid: string) =>
  `${ctx.config.publicUrl}/track/${encodeURIComponent(user.uid)}/${encodeURIComponent(tid)}`;

/** The webhook body: fixed at fan-out, so every retry and resend sends the same bytes under the same id. */
export function webhookEvent(ctx: AppContext, user: UserRow, tracking: TrackingRow, event: EventRow): WebhookEvent {
  return {
    type: WEBHOOK_EVENT_TYPE,
    version: WEBHOOK_PAYLOAD_VERSION,
    timestamp: event.createdAt.toISOString(),
    data: {
      tracking: {
        tid: tracking.tid,
        courier: tracking.courier,
        title: tracking.title,
        orderId: tracking.orderId,
        customer: tracking.customer,
        notify: { email: tracking.notifyEmail, phone: tracking.notifyPhone },
        note: tracking.note,
        origin: tracking.origin,
        destination: tracking.destination,
        status: (isEstimateTrigger(event.toStatus) ? tracking.status : event.toStatus) as WebhookEvent['data']['status'],
        expected: iso(tracking.expected),
        estimatedDelivery: estimateView(tracking.estimatedDelivery),
        lastCheckPoint: checkpointView((tracking.lastCheckPoint as Cp) ?? (event.checkpoint as Cp)),
        url: publicTrackingUrl(ctx, user, tracking.tid),
        createdAt: tracking.createdAt.toISOString(),
        updatedAt: tracking.updatedAt.toISOString(),
      },
      checkpoint: checkpointView(event.checkpoint as Cp),
      previousStatus: (event.fromStatus as WebhookEvent['data']['previousStatus']) ?? null,
      status: event.toStatus as WebhookEvent['data']['status'],
    },
  };
}

/** The body of an estimate webhook (decision 123): the tracking as it is, the estimate, the first promise's end. */
export function estimateWebhookEvent(ctx: AppContext, user: UserRow, tracking: TrackingRow, event: EventRow): EstimateWebhookEvent {
  const base = webhookEvent(ctx, user, tracking, event);
  return {
    type: ESTIMATE_WEBHOOK_EVENT_TYPES[event.toStatus as EstimateTrigger],
    timestamp: base.timestamp,
    data: {
      tracking: base.data.tracking,
      estimatedDelivery: estimateView(tracking.estimatedDelivery),
      likelyLate: likelyLateOf(tracking.lateFor, estimateView(tracking.estimatedDelivery)),
      promisedBy: iso(tracking.promisedBy),
      status: base.data.tracking.status,
    },
  };
}

/**
 * The one gate of messages to a company's customers (audience 'send'; decision 109), whatever planned them:
 * - over a limit, a message is written as 'limited' and never sent (the delivery log shows it): one per recipient
 *   and channel per status of a tracking or shipment in CUSTOMER_NOTIFY_REPEAT_MINUTES, and at most
 *   CUSTOMER_NOTIFY_DAILY a day per account (CUSTOMER_NOTIFY_NEW_DAILY in its first CUSTOMER_NOTIFY_NEW_DAYS);
 * - within the limits, an account whose email is not verified has it written as 'held': no job until the
 *   address is verified (releaseHeldCustomerMessages), so a throwaway sign-up cannot mail or text strangers
 *   in its name. Held ones count against the limits, so verifying cannot release a flood.
 * The account's own channels (audience 'receive') are not touched.
 */
async function gateCustomerMessages(
  tx: Tx,
  ctx: AppContext,
  user: UserRow,
  event: EventRow,
  rows: repo.NewNotification[],
  accountReadHere: boolean,
): Promise<void> {
  const customer = rows.filter((r) => r.audience === 'send');
  if (customer.length === 0) return;
  const c = ctx.config;
  const isNew = ctx.now().getTime() - user.createdAt.getTime() < c.CUSTOMER_NOTIFY_NEW_DAYS * 86_400_000;
  const dailyCap = isNew ? c.CUSTOMER_NOTIFY_NEW_DAILY : c.CUSTOMER_NOTIFY_DAILY;
  let today = dailyCap > 0 ? await repo.countCustomerMessages(tx, user.id, 24 * 60) : 0;
  // Read under a share lock: a verification committing meanwhile either is seen here, or waits for this
  // transaction, and then its release finds the rows held here. A user row the caller handed over (the request's,
  // decision 148) may predate a change of address that unverified it: then it is always read here.
  let isVerified: boolean | undefined = (accountReadHere && user.emailVerified) || undefined;
  const verified = async () => (isVerified ??= await repo.emailVerifiedForShare(tx, user.id));
  for (const r of customer) {
    const repeated =
      c.CUSTOMER_NOTIFY_REPEAT_MINUTES > 0 &&
      (await repo.countCustomerMessages(tx, user.id, c.CUSTOMER_NOTIFY_REPEAT_MINUTES, {
        channel: r.channel,
        recipient: r.recipient,
        toStatus: event.toStatus,
        trackingId: event.trackingId,
        shipmentId: event.shipmentId,
      })) > 0;
    if (repeated || (dailyCap > 0 && today >= dailyCap)) {
      r.status = 'limited';
      r.lastError = repeated
        ? `Not sent: this customer already had this status by ${r.channel === 'sms' ? 'SMS' : 'email'} in the last ${c.CUSTOMER_NOTIFY_REPEAT_MINUTES} minutes`
        : `Not sent: the account reached its ${dailyCap} messages to customers in 24 hours`;
      continue;
    }
    today++;
    if (!(await verified())) {
      r.status = 'held';
      r.lastError = 'Held until the account email address is verified';
    }
  }
}

/**
 * Write the notifications and their jobs in the status change's transaction, and log one line that ties the
 * change (eventId, and the request or job that made it: lib/log-context.ts) to each notification's id; every
 * delivery logs that notification id and its own job id (delivery.ts). Customer messages pass the gate first.
 */
async function queueNotifications(
  tx: Tx,
  ctx: AppContext,
  user: UserRow,
  event: EventRow,
  rows: repo.NewNotification[],
  subject: { trackingId?: string; shipmentId?: string },
  accountReadHere = true,
): Promise<void> {
  await gateCustomerMessages(tx, ctx, user, event, rows, accountReadHere);
  logQueued(ctx, event, subject, await writeQueued(tx, ctx, rows));
}

/** Notifications written, and a delivery job for each pending one, in the caller's transaction. */
async function writeQueued(tx: Tx, ctx: AppContext, rows: repo.NewNotification[]) {
  const inserted = await repo.insertNotifications(tx, rows);
  await enqueueDeliveries(
    tx,
    ctx,
    inserted.filter((n) => n.status === 'pending'),
  );
  return inserted;
}

/** The line an operator follows from a status change to its notifications (a pending one is listed without a status). */
function logQueued(
  ctx: AppContext,
  event: EventRow,
  subject: { trackingId?: string; shipmentId?: string },
  inserted: Array<{ id: string; channel: string; status: string }>,
): void {
  ctx.log.info(
    {
      eventId: event.id,
      ...subject,
      fromStatus: event.fromStatus,
      toStatus: event.toStatus,
      notifications: inserted.map((n) => ({ id: n.id, channel: n.channel, ...(n.status !== 'pending' ? { status: n.status } : {}) })),
    },
    'status change: notifications queued',
  );
}

/** One delivery job per notification, a statement per channel, in the transaction that wrote them. */
async function enqueueDeliveries(tx: Tx, ctx: AppContext, notifications: Array<{ id: string; channel: string }>): Promise<void> {
  for (const channel of Object.keys(notifyQueues) as NotificationChannel[]) {
    const ids = notifications.filter((n) => n.channel === channel).map((n) => n.id);
    await enqueueMany(
      ctx,
      notifyQueues[channel],
      ids.map((notificationId) => ({ v: 1, notificationId, attempt: 0 })),
      { tx },
    );
  }
}

/**
 * The account's email was verified: its held customer messages go out now, in one transaction with their jobs
 * (decision 109). Called by accounts when an address is verified (the verify link, a password reset).
 */
export async function releaseHeldCustomerMessages(ctx: AppContext, userId: string): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const released = await repo.releaseHeld(tx, userId);
    await enqueueDeliveries(tx, ctx, released);
    if (released.length)
      ctx.log.info(
        { userId, notifications: released.map((n) => ({ id: n.id, channel: n.channel })) },
        'email verified: held customer messages released',
      );
    return released.length;
  });
}

/**
 * A tracking's status event as the transaction that records it has just written it: the event row, the tracking row
 * as that transaction left it (after its update) and, when the caller holds it, the account (the request's signed-in
 * user). The fan-out then reads nothing back (or only the account): on the embedded database every statement of a
 * status change holds the single connection (decision 148).
 */
export interface WrittenStatusEvent {
  event: EventRow;
  tracking: TrackingRow;
  user?: UserRow;
}

/**
 * Called by the trackings module inside the transaction that records a status event: enqueues each
 * due notification (event, channel, recipient) exactly once, committing with the event. The rows and
 * their jobs are written through `tx`, so a rolled-back status change notifies nobody, and the unique
 * index makes a second call for the same event a no-op. Given the event's id, it reads the event with its
 * tracking (or shipment) and account; given the rows the caller wrote (WrittenStatusEvent), only the account.
 */
export async function fanOutStatusEvent(tx: Tx, ctx: AppContext, event: string | WrittenStatusEvent): Promise<void> {
  if (typeof event === 'string') {
    const found = await repo.findEventWithContext(tx, event);
    if (found) await fanOutFound(tx, ctx, found);
    return;
  }
  const held = event.user?.id === event.event.userId ? event.user : undefined;
  const user = held ?? (await repo.findEventAccount(tx, event.event.userId));
  if (user) await fanOutFound(tx, ctx, { event: event.event, tracking: event.tracking, shipment: null, user }, !held);
}

/** fanOutStatusEvent for many events of one transaction (the refresh engine's batch): read and written at once. */
export async function fanOutStatusEvents(tx: Tx, ctx: AppContext, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await fanOutBatch(tx, ctx, await repo.findEventsWithContext(tx, eventIds));
}

/** `accountReadHere`: the user row was read in this transaction (not handed over by the caller): see gateCustomerMessages. */
async function fanOutFound(
  tx: Tx,
  ctx: AppContext,
  found: NonNullable<Awaited<ReturnType<typeof repo.findEventWithContext>>>,
  accountReadHere = true,
  batch?: Batched[],
): Promise<void> {
  const eventId = found.event.id;
  if (found.shipment) return fanOutShipmentEvent(tx, ctx, eventId, found.event, found.shipment, found.user);
  const { event, tracking, user } = found;
  if (!tracking) return;
  if (!isTrigger(event.toStatus) || event.fromStatus === event.toStatus) return;
  const planned = planRecipients(user, tracking, event.toStatus);
  if (planned.length === 0) return;

  const link = publicTrackingUrl(ctx, user, tracking.tid);
  const cp = checkpointView(event.checkpoint as Cp);
  const message = (brand: string | null): StatusMessageInput => ({
    tid: tracking.tid,
    title: tracking.title,
    courier: tracking.courier,
    status: event.toStatus,
    previousStatus: event.fromStatus,
    checkpoint: cp,
    link,
    brand,
    timeZone: user.timeZone,
    ...(brand ? { brandStyle: brandStyleOf(user, ctx.config.publicUrl) } : {}),
  });
  const brandOf = (p: Planned) => (p.audience === 'send' ? senderNameOf(user) : null);
  // Estimate news (decision 123): its own words and webhook type; the status it carries is the tracking's.
  const kind = isEstimateTrigger(event.toStatus) ? event.toStatus : null;
  const estimateMessage = (brand: string | null) => ({
    ...message(brand),
    status: tracking.status,
    kind: kind!,
    estimate: estimateView(tracking.estimatedDelivery),
    lateReason: likelyLateReason(likelyLateOf(tracking.lateFor, estimateView(tracking.estimatedDelivery))),
  });
  let webhookBody: string | undefined;
  const rows: repo.NewNotification[] = planned.map((p) => {
    let payload: unknown;
    if (p.channel === 'email') payload = kind ? estimateEmail(estimateMessage(brandOf(p))) : statusEmail(message(brandOf(p)));
    else if (p.channel === 'sms') payload = { body: kind ? estimateSms(estimateMessage(brandOf(p))) : statusSms(message(brandOf(p))) };
    else
      payload = {
        body: (webhookBody ??= JSON.stringify(
          kind ? estimateWebhookEvent(ctx, user, tracking, event) : webhookEvent(ctx, user, tracking, event),
        )),
      };
    return { eventId, userId: user.id, channel: p.channel, audience: p.audience, recipient: p.recipient, payload };
  });

  // Only the account's own channels: written with the batch's other events (fanOutBatch); customer messages pass the gate.
  if (batch && rows.every((r) => r.audience !== 'send')) return void batch.push({ user, event, rows, trackingId: tracking.id });
  await queueNotifications(tx, ctx, user, event, rows, { trackingId: tracking.id }, accountReadHere);
}

/** A status event's notifications to the account's own channels, planned and not yet written (fanOutBatch). */
interface Batched {
  user: UserRow;
  event: EventRow;
  rows: repo.NewNotification[];
  trackingId: string;
}

/**
 * The fan-out of many status events in one transaction (the refresh engine's batch, decision 177): the notifications
 * of every event that reaches only the account's own channels are written together, one insert and one job statement
 * per channel, instead of those three statements for each event. On the embedded database each statement of the batch
 * is a round trip between the threads while the transaction holds PGlite's only session, and a person's list waits for
 * it: 10 events made 36 statements, now 9. An event with messages to customers still goes alone through the gate
 * (customer limits), which counts only customer messages, so the order between the two kinds does not matter.
 */
async function fanOutBatch(tx: Tx, ctx: AppContext, found: Array<NonNullable<Awaited<ReturnType<typeof repo.findEventWithContext>>>>) {
  const batch: Batched[] = [];
  for (const f of found) await fanOutFound(tx, ctx, f, true, batch);
  if (batch.length === 0) return;
  const inserted = await writeQueued(
    tx,
    ctx,
    batch.flatMap((b) => b.rows),
  );
  for (const b of batch)
    logQueued(
      ctx,
      b.event,
      { trackingId: b.trackingId },
      inserted.filter((n) => n.eventId === b.event.id),
    );
}

// ------------------------------------------------------------------ a company's own shipments
export const SHIPMENT_WEBHOOK_EVENT_TYPE = 'shipment.status_changed';
/** The courier's approach to a shipment's destination (decision 129); `data.status` is the shipment's, unchanged. */
export const SHIPMENT_APPROACH_WEBHOOK_EVENT_TYPES: Record<ApproachTrigger, string> = {
  CourierNear: 'shipment.courier_near',
  CourierArriving: 'shipment.courier_arriving',
};
const isApproachTrigger = (s: string): s is ApproachTrigger => (APPROACH_TRIGGERS as readonly string[]).includes(s);
function approachFacts(c: unknown): { message: string; stopsAway: number | null; minutesAway: number | null; meters: number | null } {
  const o = c && typeof c === 'object' ? (c as Record<string, unknown>) : {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return { message: text(o.message), stopsAway: num(o.stopsAway), minutesAway: num(o.minutesAway), meters: num(o.meters) };
}

const addr = (a: unknown) => (a && typeof a === 'object' ? (a as Record<string, unknown>) : {});
const text = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * A shipment's status change reaches the same channels as a tracking's: the company's receive triggers,
 * and its send triggers to the customer at the destination's email and phone, signed with the company's
 * name and linking to the public page. The webhook body is a `shipment.status_changed` event.
 */
async function fanOutShipmentEvent(
  tx: Tx,
  ctx: AppContext,
  eventId: string,
  event: EventRow,
  shipment: ShipmentRow,
  user: UserRow,
): Promise<void> {
  if (!isTrigger(event.toStatus) || event.fromStatus === event.toStatus) return;
  const dest = addr(shipment.destination);
  const planned = planRecipients(user, { notifyEmail: text(dest.email), notifyPhone: text(dest.phone) }, event.toStatus);
  if (planned.length === 0) return;
  const link = publicTrackingUrl(ctx, user, shipment.tid);
  const cp = checkpointView(event.checkpoint as Cp);
  const brand = senderNameOf(user);
  // Out for delivery on a planned day: the customer is told the hour (decision 118).
  const expectedWindow = event.toStatus === 'OutForDelivery' ? await plannedWindow(tx, shipment.id, ctx.now()) : null;
  // The courier's approach (decision 129): its words and facts are in the event's checkpoint.
  const approach = isApproachTrigger(event.toStatus) ? approachFacts(event.checkpoint) : null;
  const message = (b: string | null): StatusMessageInput => ({
    tid: shipment.tid,
    window: expectedWindow,
    title: shipment.orderId ? `Order ${shipment.orderId}` : '',
    courier: 'shm',
    status: event.toStatus,
    previousStatus: event.fromStatus,
    checkpoint: approach ? null : cp,
    ...(approach ? { approach: approach.message } : {}),
    link,
    brand: b,
    timeZone: user.timeZone,
    ...(b ? { brandStyle: brandStyleOf(user, ctx.config.publicUrl) } : {}),
  });
  let webhookBody: string | undefined;
  const rows: repo.NewNotification[] = planned.map((p) => {
    const b = p.audience === 'send' ? brand : null;
    let payload: unknown;
    if (p.channel === 'email') payload = statusEmail(message(b));
    else if (p.channel === 'sms') payload = { body: statusSms(message(b)) };
    else
      payload = {
        body: (webhookBody ??= JSON.stringify({
          type: approach ? SHIPMENT_APPROACH_WEBHOOK_EVENT_TYPES[event.toStatus as ApproachTrigger] : SHIPMENT_WEBHOOK_EVENT_TYPE,
          version: WEBHOOK_PAYLOAD_VERSION,
          timestamp: event.createdAt.toISOString(),
          data: {
            shipment: {
              tid: shipment.tid,
              status: event.toStatus,
              orderId: shipment.orderId,
              message: shipment.message,
              courier: shipment.courier,
              courierEmail: shipment.courierEmail,
              origin: shipment.origin,
              destination: shipment.destination,
              expected: iso(shipment.expected),
              metadata: shipment.metadata,
              url: link,
              createdAt: shipment.createdAt.toISOString(),
            },
            ...(approach
              ? {
                  approach: {
                    message: approach.message,
                    stopsAway: approach.stopsAway,
                    minutesAway: approach.minutesAway,
                    meters: approach.meters,
                  },
                  checkpoint: null,
                  previousStatus: event.fromStatus ?? null,
                  status: shipment.status,
                }
              : { checkpoint: cp, previousStatus: event.fromStatus ?? null, status: event.toStatus }),
          },
        })),
      };
    return { eventId, userId: user.id, channel: p.channel, audience: p.audience, recipient: p.recipient, payload };
  });
  await queueNotifications(tx, ctx, user, event, rows, { shipmentId: shipment.id });
}
