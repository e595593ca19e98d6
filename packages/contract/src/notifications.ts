import { z } from 'zod';
import { TRACKING_STATUSES } from './constants.ts';
import { estimatedDeliverySchema, likelyLateSchema, trackingViewSchema } from './trackings.ts';

// --- Notifications (product rules §1, §3, §4; ARCHITECTURE §5) ------------------------------------------------------

export const NOTIFICATION_CHANNELS = ['email', 'sms', 'webhook'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/** receive: the account's own endpoints; send: a company's customer (the tracking's notify email/phone). */
export const NOTIFICATION_AUDIENCES = ['receive', 'send'] as const;
export type NotificationAudience = (typeof NOTIFICATION_AUDIENCES)[number];

/**
 * pending → sending → sent (email, SMS: the provider accepted it) or delivered (webhook: a 2xx);
 * retrying between attempts; failed when retries are exhausted or the provider refused for good;
 * skipped_balance (SMS with too little balance); disabled (the webhook endpoint answered 410 Gone);
 * held (a message to a customer of an account whose email is not verified yet: sent once it is) and limited
 * (a message to a customer over a sending limit, never sent); decision 109.
 */
export const NOTIFICATION_STATUSES = [
  'pending',
  'sending',
  'retrying',
  'sent',
  'delivered',
  'failed',
  'skipped_balance',
  'disabled',
  'held',
  'limited',
] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

export const WEBHOOK_EVENT_TYPE = 'tracking.status_changed';
/**
 * The version of the webhook body's shape, in every body as `version`. It goes up only when a field is removed,
 * renamed or changes meaning; new fields are added without a new version (receivers ignore what they do not know).
 */
export const WEBHOOK_PAYLOAD_VERSION = 1;

const status = z.enum(TRACKING_STATUSES);
export const webhookCheckpointSchema = z.object({
  status: z.string(),
  location: z.string().nullable().optional(),
  message: z.string(),
  time: z.string(),
});

/**
 * The tracking as a webhook shows it (product rules §3 Tracking, without checkpoints history): the tracking view's
 * fields, but for the courier (any slug a receiver has seen, not only today's four), an estimate that bodies written
 * before decision 122 lack, the last checkpoint in the webhook's own shape, and the public page's url.
 */
export const webhookTrackingSchema = trackingViewSchema
  .pick({
    tid: true,
    title: true,
    orderId: true,
    customer: true,
    notify: true,
    note: true,
    origin: true,
    destination: true,
    status: true,
    expected: true,
    createdAt: true,
    updatedAt: true,
  })
  .extend({
    courier: z.string(),
    /** The estimate with its window (decision 122); absent in bodies written before it existed. */
    estimatedDelivery: estimatedDeliverySchema.nullable().optional(),
    lastCheckPoint: webhookCheckpointSchema.nullable(),
    url: z.string(),
  });

/**
 * The JSON body of every webhook (Standard Webhooks: type, timestamp, data). The headers webhook-id,
 * webhook-timestamp and webhook-signature carry the id and the signature; docs/notifications.md shows
 * how to verify them.
 */
export const webhookEventSchema = z.object({
  type: z.literal(WEBHOOK_EVENT_TYPE),
  version: z.literal(WEBHOOK_PAYLOAD_VERSION),
  timestamp: z.string(),
  data: z.object({
    tracking: webhookTrackingSchema,
    checkpoint: webhookCheckpointSchema.nullable(),
    previousStatus: status.nullable(),
    status,
  }),
});
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

/** The webhook types of the estimate triggers (decision 123): EstimateChanged and LikelyLate. */
export const ESTIMATE_WEBHOOK_EVENT_TYPES = { EstimateChanged: 'tracking.estimate_changed', LikelyLate: 'tracking.likely_late' } as const;

/**
 * The body of an estimate webhook: the tracking as it is now (its status unchanged), the estimate, and for
 * LikelyLate the end of the carrier's first promise (ISO-8601 UTC) that the parcel will likely miss.
 */
export const estimateWebhookEventSchema = z.object({
  type: z.enum([ESTIMATE_WEBHOOK_EVENT_TYPES.EstimateChanged, ESTIMATE_WEBHOOK_EVENT_TYPES.LikelyLate]),
  timestamp: z.string(),
  data: z.object({
    tracking: webhookTrackingSchema,
    estimatedDelivery: estimatedDeliverySchema.nullable(),
    /** For LikelyLate, who says so: the carrier's dates or our delivery history (decision 151). */
    likelyLate: likelyLateSchema.nullable(),
    promisedBy: z.string().nullable(),
    status,
  }),
});
export type EstimateWebhookEvent = z.infer<typeof estimateWebhookEventSchema>;

export const notificationLogQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const deliveryAttemptSchema = z.object({
  at: z.string(),
  httpStatus: z.number().nullable(),
  durationMs: z.number(),
  error: z.string().nullable(),
  responseBody: z.string().nullable(),
});

export const notificationLogItemSchema = z.object({
  id: z.string(),
  eventId: z.string(),
  tid: z.string(),
  previousStatus: z.string().nullable(),
  status: z.string(),
  channel: z.enum(NOTIFICATION_CHANNELS),
  audience: z.enum(NOTIFICATION_AUDIENCES),
  recipient: z.string(),
  deliveryStatus: z.enum(NOTIFICATION_STATUSES),
  attempts: z.number(),
  acceptedAt: z.string().nullable(),
  providerId: z.string().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  /** Webhooks: the exact JSON body that was (or will be) sent. */
  body: z.string().nullable(),
  deliveries: z.array(deliveryAttemptSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type NotificationLogItem = z.infer<typeof notificationLogItemSchema>;
export const notificationLogSchema = z.array(notificationLogItemSchema);

export const resendParams = z.object({ id: z.uuid({ message: 'Not found' }) });
export const resendResponseSchema = z.object({ id: z.string(), deliveryStatus: z.enum(NOTIFICATION_STATUSES) });
export const webhookSecretSchema = z.object({
  webhookSecret: z.string(),
  /** Until then, deliveries are also signed with the previous secret. */
  previousSecretValidUntil: z.string().nullable(),
});
