import { sql, type SQL } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import type { EstimatedDeliveryView } from '@shiptrail/contract';

/** Binary columns (proof-of-delivery images): Buffers in and out, on PGlite and PostgreSQL alike. */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v)),
});

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const createdAt = () => ts('created_at').notNull().defaultNow();

// ---------------------------------------------------------------- accounts
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Public id used in /track/{uid}/{tid}; not secret, not guessable in sequence. */
    uid: text('uid').notNull(),
    email: text('email').notNull(),
    passwordHash: text('password_hash'),
    googleSub: text('google_sub'),
    userType: text('user_type').notNull().default('person'),
    role: text('role').notNull().default('owner'),
    /** For couriers: the company account they belong to. */
    companyId: uuid('company_id'),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    phone: text('phone').notNull().default(''),
    image: text('image').notNull().default(''),
    company: text('company').notNull().default(''),
    companyUrl: text('company_url').notNull().default(''),
    invoiceExtraInfo: text('invoice_extra_info').notNull().default(''),
    timeZone: text('time_zone').notNull().default('UTC'),
    emailVerified: boolean('email_verified').notNull().default(false),
    showWizard: boolean('show_wizard').notNull().default(true),
    /** SHA-256 of the API key, for lookup; the key itself is kept encrypted so the owner can view it. */
    apiKeyHash: text('api_key_hash').notNull(),
    apiKeyEnc: text('api_key_enc').notNull(),
    settings: jsonb('settings')
      .notNull()
      .default(sql`'{}'::jsonb`),
    /** Standard Webhooks signing secret (whsec_...), and the previous one during rotation. */
    webhookSecret: text('webhook_secret').notNull(),
    webhookSecretPrev: text('webhook_secret_prev'),
    webhookSecretPrevUntil: ts('webhook_secret_prev_until'),
    referralCode: text('referral_code').notNull(),
    referredBy: uuid('referred_by'),
    promocode: text('promocode'),
    /** The client address of the sign-up: a referral from the inviter's own address earns nothing (decision 110). */
    signupIp: text('signup_ip'),
    /** Bumped on every successful save: the web app refetches info when it changes (product rules §3 Session). */
    version: text('version').notNull(),
    geoLat: text('geo_lat'),
    geoLng: text('geo_lng'),
    /** When the position above was reported (the couriers map shows the fix's age). */
    geoAt: ts('geo_at'),
    /** When a position of this courier last went to recipients' pages: at most every 15 s (decision 128). */
    geoSharedAt: ts('geo_shared_at'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_email_uq').on(t.email),
    uniqueIndex('users_uid_uq').on(t.uid),
    uniqueIndex('users_api_key_uq').on(t.apiKeyHash),
    uniqueIndex('users_referral_code_uq').on(t.referralCode),
    uniqueIndex('users_google_sub_uq').on(t.googleSub),
    index('users_company_idx').on(t.companyId),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** SHA-256 of the session token; the token is only ever in the client's hands. */
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    userAgent: text('user_agent'),
    ip: text('ip'),
  },
  (t) => [uniqueIndex('sessions_token_uq').on(t.tokenHash), index('sessions_user_idx').on(t.userId)],
);

/** Single-use keys sent by email: verify (email verification) and reset (password reset). */
export const emailKeys = pgTable(
  'email_keys',
  {
    keyHash: text('key_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose').notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [index('email_keys_user_idx').on(t.userId, t.purpose)],
);

/** OAuth state and PKCE verifier of a Google sign-in in progress. */
export const oauthStates = pgTable('oauth_states', {
  state: text('state').primaryKey(),
  codeVerifier: text('code_verifier').notNull(),
  mode: text('mode').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  createdAt: createdAt(),
});

export const alerts = pgTable(
  'alerts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    group: text('grp').notNull(),
    name: text('name').notNull(),
    message: text('message').notNull(),
    level: text('level').notNull().default('info'),
    /** Same dedupeKey → one alert (e.g. one 'low balance' alert, not one per SMS). */
    dedupeKey: text('dedupe_key'),
    dismissedAt: ts('dismissed_at'),
    createdAt: createdAt(),
  },
  (t) => [index('alerts_user_idx').on(t.userId), uniqueIndex('alerts_dedupe_uq').on(t.userId, t.dedupeKey)],
);

/**
 * A company's invitation to a courier (docs/decisions/096-courier-invitations.md). The link's token is only in
 * the mail and SMS; its SHA-256 is kept. Resend replaces the hash (the old link stops working); accept, revoke
 * and decline settle it. `memberId` is set for the confirmation of an account made by addmember with an
 * owner-chosen password (docs/decisions/097-owner-made-courier-accounts.md): accepting sets the courier's own
 * password on that account, declining releases the address.
 */
export const courierInvitations = pgTable(
  'courier_invitations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    memberId: uuid('member_id').references(() => users.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    phone: text('phone').notNull().default(''),
    tokenHash: text('token_hash').notNull(),
    /** pending, accepted, revoked or declined; a pending one past expires_at is expired. */
    state: text('state').notNull().default('pending'),
    sentAt: ts('sent_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    sends: integer('sends').notNull().default(1),
    settledAt: ts('settled_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('courier_invitations_token_uq').on(t.tokenHash),
    index('courier_invitations_company_idx').on(t.companyId, t.createdAt),
    // One open invitation per address and company: inviting again is a resend.
    uniqueIndex('courier_invitations_pending_uq')
      .on(t.companyId, t.email)
      .where(sql`state = 'pending'`),
  ],
);

export const referrals = pgTable(
  'referrals',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    inviterId: uuid('inviter_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    invitedUserId: uuid('invited_user_id'),
    rewardedAt: ts('rewarded_at'),
    /**
     * The friend's payment that reached the reward, and when the reward may be paid: it is held for the settle
     * window (REFERRAL_SETTLE_HOURS) and checked again by the billing sweep (decision 110).
     */
    rewardPaymentId: uuid('reward_payment_id'),
    rewardDueAt: ts('reward_due_at'),
    /** Why no reward was paid (same card, same address, payment reversed): for support. */
    rewardRefusal: text('reward_refusal'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('referrals_inviter_email_uq').on(t.inviterId, t.email)],
);

/** Contact-form and support messages: kept, and mailed to the support inbox. */
export const messages = pgTable('messages', {
  id: uuid('id').primaryKey().defaultRandom(),
  kind: text('kind').notNull(),
  userId: uuid('user_id'),
  name: text('name'),
  email: text('email'),
  phone: text('phone'),
  message: text('message').notNull(),
  createdAt: createdAt(),
});

// ---------------------------------------------------------------- billing
/**
 * The balance is the sum of an account's entries (cents, signed). (kind, ref) is unique, so a retried
 * charge for the same thing (a tracking, an SMS, a payment) can never be booked twice.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    amountCents: integer('amount_cents').notNull(),
    kind: text('kind').notNull(),
    ref: text('ref').notNull(),
    description: text('description').notNull().default(''),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('ledger_kind_ref_uq').on(t.userId, t.kind, t.ref), index('ledger_user_idx').on(t.userId, t.createdAt)],
);

/**
 * An account's billing state. The balance is kept here in the same statement or transaction as every ledger
 * entry, so it always equals the sum of the account's entries and reading it never scans the ledger. The
 * row is created by the first entry. It also holds the vaulted card (a gateway token, never a card number)
 * and the auto-recharge setting with its failure count and retry time.
 */
export const billingAccounts = pgTable('billing_accounts', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  balanceCents: bigint('balance_cents', { mode: 'number' }).notNull().default(0),
  gateway: text('gateway'),
  customerId: text('customer_id'),
  paymentMethodToken: text('payment_method_token'),
  cardholderName: text('cardholder_name'),
  cardType: text('card_type'),
  last4: text('last4'),
  maskedNumber: text('masked_number'),
  expirationMonth: text('expiration_month'),
  expirationYear: text('expiration_year'),
  imageUrl: text('image_url'),
  autoRechargeCents: integer('auto_recharge_cents'),
  minimumBalanceCents: integer('minimum_balance_cents'),
  rechargeFailures: integer('recharge_failures').notNull().default(0),
  rechargeRetryAt: ts('recharge_retry_at'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * Card payments: top-ups and automatic recharges, each a gateway sale whose order id is the row's id (a
 * retried sale with the same order id is the same sale). A succeeded payment is credited to the ledger with
 * ref = this id, so it can never be credited twice. At most one automatic recharge per account is pending.
 */
export const payments = pgTable(
  'payments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull().default('USD'),
    status: text('status').notNull(),
    idempotencyKey: text('idempotency_key'),
    gateway: text('gateway').notNull(),
    transactionId: text('transaction_id'),
    cardType: text('card_type'),
    maskedNumber: text('masked_number'),
    cardholderName: text('cardholder_name'),
    processorResponseText: text('processor_response_text').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('payments_idempotency_uq').on(t.userId, t.idempotencyKey),
    index('payments_user_idx').on(t.userId, t.createdAt),
    uniqueIndex('payments_one_recharge_uq')
      .on(t.userId)
      .where(sql`kind = 'auto_recharge' and status in ('pending', 'processing')`),
  ],
);

/**
 * The built-in sandbox gateway's sales by order id, so a sale repeated with the same order id answers the
 * first one also after a restart or from another process, as the reconciliation of a lost top-up needs.
 */
export const sandboxSales = pgTable('sandbox_sales', {
  orderId: text('order_id').primaryKey(),
  transactionId: text('transaction_id').notNull().unique(),
  transaction: jsonb('transaction').notNull(),
  createdAt: createdAt(),
});

// ---------------------------------------------------------------- mail (dev outbox)
/** Mail and SMS kept for development when no SMTP_URL / Twilio is configured (never in a deployment). */
export const devOutbox = pgTable(
  'dev_outbox',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    channel: text('channel').notNull(),
    to: text('to_addr').notNull(),
    subject: text('subject').notNull().default(''),
    text: text('text').notNull(),
    html: text('html'),
    createdAt: createdAt(),
  },
  (t) => [index('dev_outbox_created_idx').on(t.createdAt)],
);

// ---------------------------------------------------------------- trackings
/**
 * The region of a place as the carriers write it ("Austin, TX 78701" -> TX, "Toronto, ON M5V 2T6, CA" -> ON, "Lyon, FR"
 * -> FR): the first word of two or three letters right after a comma (a state or province before a country), upper
 * case; '' when there is none (decision 133). A stored generated column of trackings (decision 136).
 */
const regionOf = (column: string): SQL => sql.raw(`coalesce(upper(substring("${column}" from ',\\s*([A-Za-z]{2,3})\\y')), '')`);

export const trackings = pgTable(
  'trackings',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tid: text('tid').notNull(),
    courier: text('courier').notNull(),
    title: text('title').notNull().default(''),
    orderId: text('order_id').notNull().default(''),
    customer: text('customer').notNull().default(''),
    notifyEmail: text('notify_email').notNull().default(''),
    notifyPhone: text('notify_phone').notNull().default(''),
    note: text('note').notNull().default(''),
    origin: text('origin').notNull().default(''),
    destination: text('destination').notNull().default(''),
    /** The carrier's name of the service ("UPS Ground"): from its answers, else from the number at the add; null unknown (decision 158). */
    service: text('service'),
    status: text('status').notNull().default('Pending'),
    expected: ts('expected'),
    /** The estimate shown (decision 122): the carrier's, or predicted when it gives none; null when neither. */
    estimatedDelivery: jsonb('estimated_delivery').$type<EstimatedDeliveryView>(),
    /** The end of the carrier's first promise (its window's end, else the end of its day): "likely late" compares to it. */
    promisedBy: ts('promised_by'),
    /** The estimate (date and window end) already announced as likely late, so each is announced once. */
    lateFor: text('late_for'),
    lastCheckPoint: jsonb('last_checkpoint'),
    /** Refresh engine state. null nextCheckAt = not refreshed any more (Delivered, Expired, deleted). */
    nextCheckAt: ts('next_check_at'),
    lastCheckedAt: ts('last_checked_at'),
    lastCarrierDataAt: ts('last_carrier_data_at'),
    /** When a carrier last pushed an event for this tracking (docs/carriers.md "Push"); null = only polled. */
    lastPushedAt: ts('last_pushed_at'),
    failures: integer('failures').notNull().default(0),
    lastError: text('last_error'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    // The delivery summary (decision 136): kept from the tracking's checkpoints by the database itself (the
    // checkpoints_summary triggers of migration 0020, for every statement that writes scans), read by the delivery
    // performance figures so that each reads one row per parcel of the period instead of its scans.
    /** The oldest scan's time; null with no scan. */
    firstScanAt: ts('first_scan_at'),
    /** The newest scan's time (stalled parcels); null with no scan. */
    newestScanAt: ts('newest_scan_at'),
    /** The newest Delivered scan's time (the period a delivered parcel counts in); null with none. */
    deliveredAt: ts('delivered_at'),
    /** Whether any scan is a failed attempt (first-attempt success). */
    failedAttempt: boolean('failed_attempt').notNull().default(false),
    /** The oldest and newest Exception scan's time: which parcels have exception scans in a period. */
    firstExceptionAt: ts('first_exception_at'),
    lastExceptionAt: ts('last_exception_at'),
    /** The lane's regions of the places the carrier gave (decision 133), kept by the database from origin/destination. */
    originRegion: text('origin_region').notNull().generatedAlwaysAs(regionOf('origin')),
    destinationRegion: text('destination_region').notNull().generatedAlwaysAs(regionOf('destination')),
    /**
     * When the parcel was last heard of: its newest scan, else (no scan yet) its adding; kept by the database. A plain
     * column, so that the stalled parcels are counted from trackings_user_open_heard_idx alone (decision 142).
     */
    lastHeardAt: ts('last_heard_at')
      .notNull()
      .generatedAlwaysAs(sql`coalesce("newest_scan_at", "created_at")`),
  },
  (t) => [
    uniqueIndex('trackings_user_tid_uq').on(t.userId, t.tid),
    index('trackings_user_status_idx').on(t.userId, t.status),
    index('trackings_due_idx').on(t.nextCheckAt),
    // Keyset paging of GET /v1/trackings/get: newest first, id breaks ties (read backwards by the planner).
    index('trackings_user_created_idx').on(t.userId, t.createdAt, t.id),
    // A pushed carrier event names a number, not an account: find every tracking of it.
    index('trackings_tid_idx').on(t.tid),
    // Delivery performance (decision 136): an account's parcels delivered in a period, its open parcels by their
    // newest scan (else their adding: last_heard_at, decision 142), and its parcels with exception scans, each read from the account's own rows.
    // The delivered index carries every column the transit statement reads, so it is answered from the index alone
    // (an index-only scan: no heap page per parcel, once the table's pages are marked all-visible by a vacuum).
    index('trackings_user_delivered_idx')
      .on(t.userId, t.deliveredAt, t.courier, t.originRegion, t.destinationRegion, t.firstScanAt, t.promisedBy, t.failedAttempt, t.service)
      .where(sql`${t.status} = 'Delivered'`),
    index('trackings_user_open_heard_idx')
      .on(t.userId, t.lastHeardAt)
      .where(sql`${t.status} not in ('Delivered', 'Expired')`),
  ],
);

/**
 * The delivered parcels of each account per UTC day of their delivery scan, carrier, lane and whole hour of transit
 * (decision 142): how many, with a promise, on time by it, without a failed attempt. Kept by the database from the
 * delivery summary of `trackings` (the trackings_delivery_days triggers of migration 0023, in the writer's
 * statement); read by the transit figures of long periods, whose whole days it answers without one row per parcel.
 * `transit_hour` is floor((delivery scan - first scan) / 1 hour); -1 for a parcel with no first scan.
 */
export const deliveryDays = pgTable(
  'delivery_days',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    courier: text('courier').notNull(),
    originRegion: text('origin_region').notNull(),
    destinationRegion: text('destination_region').notNull(),
    /** The tracking's service, '' when unknown (a key column cannot be null; decision 158). */
    service: text('service').notNull().default(''),
    transitHour: integer('transit_hour').notNull(),
    delivered: integer('delivered').notNull(),
    promised: integer('promised').notNull(),
    onTime: integer('on_time').notNull(),
    firstAttempt: integer('first_attempt').notNull(),
  },
  (t) => [
    primaryKey({
      name: 'delivery_days_pk',
      columns: [t.userId, t.day, t.courier, t.originRegion, t.destinationRegion, t.service, t.transitHour],
    }),
    // Every column the transit statement reads, so a period's whole days are an index-only range (decision 157): the
    // primary key's range visited a heap page per few rows (10,458 rows, 1,191 pages for 90 days at 1M trackings).
    index('delivery_days_read_idx').on(
      t.userId,
      t.day,
      t.courier,
      t.originRegion,
      t.destinationRegion,
      t.service,
      t.transitHour,
      t.delivered,
      t.promised,
      t.onTime,
      t.firstAttempt,
    ),
  ],
);

/**
 * The open parcels of each account (status not Delivered nor Expired, as the stalled count selects them) per UTC day
 * of `last_heard_at` (decision 157): how many. Kept by the database from `trackings` (the open_heard_days triggers of
 * migration 0029, in the writer's statement and transaction); read by the stalled count, whose whole days before the
 * cut-off it answers with one row per day instead of one index entry per parcel.
 */
export const openHeardDays = pgTable(
  'open_heard_days',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    parcels: integer('parcels').notNull(),
  },
  (t) => [primaryKey({ name: 'open_heard_days_pk', columns: [t.userId, t.day] })],
);

/**
 * Carrier push subscriptions (docs/carriers.md "Push"): one per carrier and number, whatever the number of
 * accounts tracking it. `active` rows are subscribed until `expiresAt`, renewed from `renewAt`; `refused` rows are
 * numbers the carrier would not subscribe, offered again from `renewAt`; `pending` rows are being subscribed by a
 * worker whose claim runs until `renewAt`.
 */
export const carrierSubscriptions = pgTable(
  'carrier_subscriptions',
  {
    courier: text('courier').notNull(),
    tid: text('tid').notNull(),
    state: text('state').notNull(),
    /** The carrier's id for it (USPS), when it has one. */
    subscriptionId: text('subscription_id'),
    expiresAt: ts('expires_at').notNull(),
    renewAt: ts('renew_at').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.courier, t.tid] }), index('carrier_subscriptions_renew_idx').on(t.renewAt)],
);

export const checkpoints = pgTable(
  'checkpoints',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    trackingId: uuid('tracking_id')
      .notNull()
      .references(() => trackings.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    location: text('location'),
    message: text('message').notNull(),
    time: ts('time').notNull(),
    /** Hash of (time, status, message, location): a re-fetch never inserts the same checkpoint twice. */
    fingerprint: text('fingerprint').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('checkpoints_fp_uq').on(t.trackingId, t.fingerprint),
    // Also each parcel's exception scans of a period (delivery performance, decision 136: the summary finds the parcels).
    index('checkpoints_tracking_time_idx').on(t.trackingId, t.time),
  ],
);

/** How many characters of an exception scan's message `exception_scans.cause` keeps (decision 147). */
export const EXCEPTION_CAUSE_CHARS = 200;

/**
 * One row per `Exception` scan (decision 147): its account, parcel, time and the carrier's words, trimmed and cut to
 * EXCEPTION_CAUSE_CHARS characters. Kept by the database from `checkpoints` (the checkpoints_exception_scans triggers
 * of migration 0025, in the writer's statement; removed with its scan by the foreign key), read by the exception
 * figures of a period: `exception_scans_user_time_idx` holds every column they read, so a period is one index range,
 * with no visit to the wide `checkpoints` rows. The cut keeps every index entry far below btree's size limit whatever
 * a carrier sends (a full message in an index would make storing a long one fail).
 */
export const exceptionScans = pgTable(
  'exception_scans',
  {
    checkpointId: bigint('checkpoint_id', { mode: 'number' })
      .primaryKey()
      .references(() => checkpoints.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull(),
    trackingId: uuid('tracking_id').notNull(),
    time: ts('time').notNull(),
    cause: text('cause').notNull(),
  },
  (t) => [index('exception_scans_user_time_idx').on(t.userId, t.time, t.trackingId, t.cause)],
);

/** A status change, written in the same transaction as the change; notifications fan out from it. */
export const trackingEvents = pgTable(
  'tracking_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The tracking, or (for a company's own shipment) null with shipmentId set: exactly one of the two. */
    trackingId: uuid('tracking_id').references(() => trackings.id, { onDelete: 'cascade' }),
    shipmentId: uuid('shipment_id').references((): AnyPgColumn => shipments.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull(),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    checkpoint: jsonb('checkpoint'),
    createdAt: createdAt(),
  },
  (t) => [
    index('tracking_events_tracking_idx').on(t.trackingId),
    index('tracking_events_user_idx').on(t.userId, t.createdAt),
    index('tracking_events_shipment_idx').on(t.shipmentId),
    // The courier's approach is news once per shipment (decision 129): a second position, a retry or a racing
    // process finds the row there and notifies nobody.
    uniqueIndex('tracking_events_approach_uq')
      .on(t.shipmentId, t.toStatus)
      .where(sql`${t.toStatus} in ('CourierNear', 'CourierArriving')`),
    check('tracking_events_subject_ck', sql`(${t.trackingId} is null) <> (${t.shipmentId} is null)`),
  ],
);

/**
 * Idempotency-Key replay store: a retried request returns the first response, byte for byte (the reply text
 * as sent, not JSON that would come back in another key order); a reuse of the key for another request is
 * refused (the hash of the canonical request differs).
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: uuid('user_id').notNull(),
    key: text('key').notNull(),
    route: text('route').notNull(),
    statusCode: integer('status_code').notNull(),
    body: text('body').notNull(),
    /** SHA-256 of the canonical request; '' for keys stored before it was recorded (not compared). */
    requestHash: text('request_hash').notNull().default(''),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('idempotency_uq').on(t.userId, t.route, t.key)],
);

// ---------------------------------------------------------------- notifications
/** One row per (event, channel, recipient); delivery state is recorded before a job is acknowledged. */
export const notifications = pgTable(
  'notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    eventId: uuid('event_id')
      .notNull()
      .references(() => trackingEvents.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull(),
    channel: text('channel').notNull(),
    audience: text('audience').notNull(),
    recipient: text('recipient').notNull(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    acceptedAt: ts('accepted_at'),
    providerId: text('provider_id'),
    lastError: text('last_error'),
    payload: jsonb('payload'),
    nextAttemptAt: ts('next_attempt_at'),
    /** Until when a live delivery attempt holds this notification (delivery.ts): another run waits for it. */
    leaseUntil: ts('lease_until'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('notifications_event_channel_recipient_uq').on(t.eventId, t.channel, t.recipient),
    index('notifications_user_idx').on(t.userId, t.createdAt),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    notificationId: uuid('notification_id')
      .notNull()
      .references(() => notifications.id, { onDelete: 'cascade' }),
    httpStatus: integer('http_status'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
    responseBody: text('response_body'),
    createdAt: createdAt(),
  },
  (t) => [index('webhook_attempts_notification_idx').on(t.notificationId)],
);

// ---------------------------------------------------------------- shipments (a company's own, SHM numbers)
/**
 * A company's own shipment. `tid` (an SHM number) is unique across the platform. The assigned courier is a
 * member row (`courierId`); `courier`/`courierEmail` keep what was given, so a shipment whose courier is not
 * a member, or whose member was deleted, still says who carries it.
 */
export const shipments = pgTable(
  'shipments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tid: text('tid').notNull(),
    status: text('status').notNull().default('InfoReceived'),
    orderId: text('order_id').notNull().default(''),
    message: text('message').notNull().default(''),
    expected: ts('expected'),
    metadata: jsonb('metadata')
      .notNull()
      .default(sql`'{}'::jsonb`),
    /** Address objects as the contract's address view (name, company, address1, ..., lat, long, email, phone). */
    origin: jsonb('origin').notNull(),
    destination: jsonb('destination').notNull(),
    courierId: uuid('courier_id').references(() => users.id, { onDelete: 'set null' }),
    courier: text('courier').notNull().default(''),
    courierEmail: text('courier_email').notNull().default(''),
    lastCheckPoint: jsonb('last_checkpoint'),
    /** The customer's delivery window, HH:MM in the company's time zone (Plan the day keeps to it; decision 118). */
    windowFrom: text('window_from'),
    windowTo: text('window_to'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('shipments_tid_uq').on(t.tid),
    // Keyset paging of getshipments and getassigned: newest first, id breaks ties.
    index('shipments_company_created_idx').on(t.companyId, t.createdAt, t.id),
    index('shipments_courier_created_idx').on(t.courierId, t.createdAt, t.id),
    // The map's markers, paged by tid within a company (listMarkers): read in order, no sort of every shipment.
    index('shipments_company_tid_idx').on(t.companyId, t.tid),
  ],
);

/**
 * A company's plan of a day (issue 30, decision 118): the settings it was made with and what could not be
 * planned; its stops are in plan_stops. One per company and day: planning again replaces it.
 */
export const deliveryPlans = pgTable(
  'delivery_plans',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The day, YYYY-MM-DD in timeZone. */
    date: text('date').notNull(),
    timeZone: text('time_zone').notNull(),
    /** serviceMinutes, seconds, shiftStart, shiftEnd, capacity, depot, couriers (ids). */
    settings: jsonb('settings').notNull(),
    /** [{ shipmentId, reason }]: the open shipments of the day the plan could not fit. */
    unplanned: jsonb('unplanned')
      .notNull()
      .default(sql`'[]'::jsonb`),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('delivery_plans_company_date_uq').on(t.companyId, t.date)],
);

/** A planned stop: one shipment at a place in one courier's route of a plan. */
export const planStops = pgTable(
  'plan_stops',
  {
    planId: uuid('plan_id')
      .notNull()
      .references(() => deliveryPlans.id, { onDelete: 'cascade' }),
    shipmentId: uuid('shipment_id')
      .notNull()
      .references(() => shipments.id, { onDelete: 'cascade' }),
    courierId: uuid('courier_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** 1 first. */
    position: integer('position').notNull(),
    eta: ts('eta').notNull(),
    windowFrom: ts('window_from').notNull(),
    windowTo: ts('window_to').notNull(),
    locked: boolean('locked').notNull().default(false),
    /** Moved by hand to where it misses its window or the shift. */
    late: boolean('late').notNull().default(false),
    /**
     * When the courier was there: delivered or a failed attempt (decision 137). A done stop heads its route, is
     * not planned again, and the rest of the route is timed from it.
     */
    doneAt: ts('done_at'),
  },
  (t) => [primaryKey({ columns: [t.planId, t.shipmentId] }), index('plan_stops_shipment_idx').on(t.shipmentId)],
);

/**
 * A company's uploaded logo, re-encoded as a PNG (decision 099). Served from our own origin at
 * /v1/brand/logo/{uid}.png; the brand's logo (users.image) points there with a version.
 */
export const companyLogos = pgTable('company_logos', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  png: bytea('png').notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export const shipmentParcels = pgTable(
  'shipment_parcels',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    shipmentId: uuid('shipment_id')
      .notNull()
      .references(() => shipments.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    ref: text('ref').notNull().default(''),
    quantity: integer('quantity').notNull().default(1),
    name: text('name').notNull(),
    length: doublePrecision('length').notNull(),
    width: doublePrecision('width').notNull(),
    height: doublePrecision('height').notNull(),
    weight: doublePrecision('weight').notNull(),
    distanceUnit: text('distance_unit').notNull().default('in'),
    weightUnit: text('weight_unit').notNull().default('lb'),
    metadata: jsonb('metadata')
      .notNull()
      .default(sql`'{}'::jsonb`),
  },
  (t) => [index('shipment_parcels_shipment_idx').on(t.shipmentId, t.position)],
);

/**
 * A checkpoint of a shipment, added by the company or its assigned courier. Proof of delivery (the
 * recipient's name, the signature PNG and an optional downscaled photo) is stored with it, in the database,
 * so every process sees it.
 */
export const shipmentCheckpoints = pgTable(
  'shipment_checkpoints',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    shipmentId: uuid('shipment_id')
      .notNull()
      .references(() => shipments.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    location: text('location').notNull().default(''),
    message: text('message').notNull().default(''),
    lat: doublePrecision('lat'),
    long: doublePrecision('long'),
    time: ts('time').notNull(),
    byUserId: uuid('by_user_id'),
    byRole: text('by_role').notNull(),
    byName: text('by_name').notNull().default(''),
    podRecipientName: text('pod_recipient_name'),
    podSignature: bytea('pod_signature'),
    podPhoto: bytea('pod_photo'),
    podPhotoType: text('pod_photo_type'),
    createdAt: createdAt(),
  },
  (t) => [
    index('shipment_checkpoints_shipment_time_idx').on(t.shipmentId, t.time),
    // A courier's scans of a day: the courier_days triggers count a (company, courier, day) again from them (decision 152).
    index('shipment_checkpoints_courier_time_idx').on(t.byUserId, t.time),
  ],
);

/**
 * The company's own couriers' figures per local day (decision 152): one row per company, courier and day of the
 * company's time zone on which the courier made a scan (`by_role = 'courier'`), with the day's stops (deliveries and
 * failed attempts), deliveries, deliveries the day the shipment went out (an OutForDelivery scan of the same shipment
 * that local day, by anyone) and failed attempts. Kept by the database (migration 0028's triggers on
 * shipment_checkpoints, shipments.company_id and users.time_zone: the rows of the days a change touches are counted
 * again from the scans, in the writer's statement); read by the couriers' figures for the whole days of a period.
 */
export const courierDays = pgTable(
  'courier_days',
  {
    companyId: uuid('company_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    courierId: uuid('courier_id').notNull(),
    /** The local day in the company's time zone (users.time_zone). */
    day: date('day', { mode: 'string' }).notNull(),
    /** The largest by_name of the courier's scans that day (the name shown when the courier is no longer a user). */
    byName: text('by_name'),
    stops: integer('stops').notNull(),
    delivered: integer('delivered').notNull(),
    onTime: integer('on_time').notNull(),
    failed: integer('failed').notNull(),
  },
  (t) => [
    primaryKey({ name: 'courier_days_pk', columns: [t.companyId, t.day, t.courierId] }),
    index('courier_days_courier_day_idx').on(t.courierId, t.day),
  ],
);

// ---------------------------------------------------------------- shared rate limits
/**
 * One row per grant a limited key may hold at once (`slot` 0..limit-1): a request takes the slot whose last
 * grant is older than the window, so no window of that length ever holds more than `limit` grants, whatever
 * the number of processes. Carrier quotas use it (one budget per carrier and credential).
 */
export const rateLimitSlots = pgTable(
  'rate_limit_slots',
  {
    key: text('key').notNull(),
    slot: integer('slot').notNull(),
    grantedAt: ts('granted_at').notNull(),
  },
  (t) => [uniqueIndex('rate_limit_slots_key_slot_idx').on(t.key, t.slot), index('rate_limit_slots_key_granted_idx').on(t.key, t.grantedAt)],
);

/**
 * A fixed-window counter per key (requests per IP for the route limits), and pauses a carrier asked for
 * (Retry-After), shared by every process.
 */
export const rateLimitWindows = pgTable('rate_limit_windows', {
  key: text('key').primaryKey(),
  count: integer('count').notNull(),
  resetAt: ts('reset_at').notNull(),
});

/**
 * Where a courier went: each position their phone reported, with the time it was taken (decision 149). A phone
 * without signal keeps its fixes and sends them later: the time is `taken_at`, the arrival `received_at`. One row
 * per courier and time, so a resent fix is not kept twice. Kept POSITION_TRAIL_KEEP_DAYS; the last position shown
 * (users.geo_*) is the newest by time.
 */
export const courierPositions = pgTable(
  'courier_positions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    courierId: uuid('courier_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    lat: doublePrecision('lat').notNull(),
    lng: doublePrecision('lng').notNull(),
    takenAt: ts('taken_at').notNull(),
    receivedAt: ts('received_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('courier_positions_courier_taken_uq').on(t.courierId, t.takenAt)],
);
