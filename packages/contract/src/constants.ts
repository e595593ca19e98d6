// Business constants of product rules §9 and the enums of product rules §3-4. Money is integer cents everywhere.
export const TRACKING_STATUSES = [
  'InfoReceived',
  'InTransit',
  'OutForDelivery',
  'FailAttempt',
  'Delivered',
  'Exception',
  'Expired',
  'Pending',
] as const;
export type TrackingStatus = (typeof TRACKING_STATUSES)[number];

/** Dashboard order of product rules §9. */
export const DASHBOARD_STATUS_ORDER: readonly TrackingStatus[] = [
  'Delivered',
  'Exception',
  'Expired',
  'FailAttempt',
  'InTransit',
  'InfoReceived',
  'OutForDelivery',
  'Pending',
];

export const STATUS_LABELS: Record<TrackingStatus, string> = {
  InfoReceived: 'Info Received',
  InTransit: 'In Transit',
  OutForDelivery: 'Out For Delivery',
  FailAttempt: 'Fail Attempt',
  Delivered: 'Delivered',
  Exception: 'Exception',
  Expired: 'Expired',
  Pending: 'Pending',
};

/**
 * The notification triggers of product rules §3, and FailAttempt ("Attempt failed": the courier could not deliver),
 * which the original lacked (decision 100). Pending is not a trigger.
 */
export const TRIGGER_EVENTS = [
  'Delivered',
  'Exception',
  'Expired',
  'FailAttempt',
  'InTransit',
  'InfoReceived',
  'OutForDelivery',
  'EstimateChanged',
  'LikelyLate',
  'CourierNear',
  'CourierArriving',
] as const;
export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

/**
 * The triggers that are news of the estimated delivery rather than a status (issue 32, decision 123):
 * EstimateChanged, the carrier revised its date or window; LikelyLate, the promised window is over and the parcel
 * is not out for delivery, or the carrier moved its date past its first promise.
 */
export const ESTIMATE_TRIGGERS = ['EstimateChanged', 'LikelyLate'] as const;
export type EstimateTrigger = (typeof ESTIMATE_TRIGGERS)[number];

/** How the settings and the notification log name each trigger. */
export const TRIGGER_LABELS: Record<TriggerEvent, string> = {
  Delivered: 'Delivered',
  Exception: 'Exception',
  Expired: 'Expired',
  FailAttempt: 'Attempt failed',
  InTransit: 'In Transit',
  InfoReceived: 'Info Received',
  OutForDelivery: 'Out For Delivery',
  EstimateChanged: 'Estimated date changed',
  LikelyLate: 'Likely late',
  CourierNear: 'Courier a few stops away',
  CourierArriving: 'Courier arriving now',
};

/**
 * The triggers that are news of the courier's approach to a shipment that is out for delivery (issue 31,
 * decision 129): CourierNear, about N stops (M minutes) away; CourierArriving, within the company's distance.
 * Each fires at most once per shipment.
 */
export const APPROACH_TRIGGERS = ['CourierNear', 'CourierArriving'] as const;
export type ApproachTrigger = (typeof APPROACH_TRIGGERS)[number];

/** A company's approach settings when it has not set them (decision 129), and their bounds. */
export const APPROACH_DEFAULTS = { stops: 3, meters: 150 } as const;
export const APPROACH_LIMITS = { stops: { min: 1, max: 20 }, meters: { min: 25, max: 5000 } } as const;

/**
 * A courier's position goes to recipients' pages (and is checked for approach notifications) at most this often
 * (decision 128): reports in between still update the company's couriers map.
 */
export const POSITION_SHARE_EVERY_MS = 15_000;
/** A courier position older than this is not shown to a recipient, nor used for "arriving now" (decision 128). */
export const POSITION_FRESH_MS = 5 * 60_000;
/**
 * The positions a courier's phone keeps without signal and sends in one batch (decision 149): at most this many
 * (the oldest dropped first), one per the phone's sharing interval, so about four hours at 30 s.
 */
export const POSITION_TRAIL_MAX = 500;
/** How long the server keeps a courier's trail of positions (the couriers map's "where they went"). */
export const POSITION_TRAIL_KEEP_DAYS = 30;

/**
 * What a new account tells its customers by email from the start (decision 100): the moments a recipient acts on.
 * SMS starts off (each one is charged); the account's own alerts start off as before.
 */
export const DEFAULT_CUSTOMER_EMAIL_TRIGGERS: readonly TriggerEvent[] = ['OutForDelivery', 'FailAttempt', 'Delivered', 'Exception'];

export const COURIER_SLUGS = ['ups', 'usps', 'fedex', 'canadapost'] as const;
export type CourierSlug = (typeof COURIER_SLUGS)[number];
export const COURIER_NAMES: Record<CourierSlug, string> = {
  ups: 'UPS',
  usps: 'USPS',
  fedex: 'FedEx',
  canadapost: 'Canada Post',
};

export const USER_TYPES = ['person', 'company'] as const;
export type UserType = (typeof USER_TYPES)[number];
export const ROLES = ['owner', 'courier'] as const;
export type Role = (typeof ROLES)[number];

export const THEME_IDS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'] as const;
export type ThemeId = (typeof THEME_IDS)[number];

export const PRICING = {
  signupBonusCents: 1000,
  trackingCents: 5,
  /** A company's own shipment (SHM number) costs what a tracking does (decision 042), and says so (pricing). */
  shipmentCents: 5,
  smsCents: 4,
  referralRewardCents: 1000,
  currency: 'USD',
} as const;

export const LIMITS = {
  trackingsPerPage: 100,
  maxTrackingsPerPage: 500,
  signupPasswordMin: 8,
  loginPasswordMin: 6,
  versionTokenLength: 30,
  newRowHighlightMs: 3000,
  supportRows: 8,
} as const;

/**
 * The longest tracking number accepted, counted without spaces and dashes: the longest barcode form the
 * carrier detection knows, a USPS IMpb scan with its routing prefix (420 + ZIP + up to 34 digits, 42 in all).
 * FedEx barcodes have 34 digits, UPS numbers 18, Canada Post PINs 16.
 */
export const TRACKING_NUMBER_MAX = 42;

export const AUTO_RECHARGE = { quickAmounts: [5, 10, 20, 50], defaultAmount: 20, defaultMinimum: 5 } as const;

/**
 * The prices as GET /v1/info/pricing shows them (dollars), and what the web app shows until it answers: one object,
 * so the two never differ. Plain arithmetic (not common.ts' centsToDollars), so the landing page's first load does
 * not pull zod in; the cents are whole, so the result is the same.
 */
export const PRICING_VIEW = {
  currency: PRICING.currency,
  signupBonus: PRICING.signupBonusCents / 100,
  perTracking: PRICING.trackingCents / 100,
  perShipment: PRICING.shipmentCents / 100,
  perSms: PRICING.smsCents / 100,
  referralReward: PRICING.referralRewardCents / 100,
  autoRecharge: {
    quickAmounts: [...AUTO_RECHARGE.quickAmounts],
    defaultAmount: AUTO_RECHARGE.defaultAmount,
    defaultMinimum: AUTO_RECHARGE.defaultMinimum,
  },
};

/** Header that carries an API key or a web session token (ARCHITECTURE §4). */
export const API_TOKEN_HEADER = 'sm-api-token';
/**
 * Every /v1 reply is an envelope with HTTP status 200, the real result in its `code` (as the original API
 * answered, and as its SDK expects). A client that wants real HTTP status codes sends this header with the
 * value `real`.
 */
export const HTTP_STATUS_HEADER = 'sm-http-status';
export const HTTP_STATUS_REAL = 'real';

/**
 * Numbers the built-in carrier sandbox moves (docs/carriers.md "Journeys"): for each carrier, one that is
 * delivered in a few minutes and one with a failed attempt on the way. The README and the add-tracking form of a
 * deployment whose carriers run on the sandbox offer these, never a number that the sandbox never finds.
 */
export const SANDBOX_EXAMPLES: Record<CourierSlug, { delivered: string; failAttempt: string }> = {
  ups: { delivered: '1Z5R89390350075608', failAttempt: '1Z5R89390350075626' },
  usps: { delivered: '9400111206206406260015', failAttempt: '9400111206206406260008' },
  fedex: { delivered: '986578788800', failAttempt: '986578788855' },
  canadapost: { delivered: '0073938000549204', failAttempt: '0073938000549211' },
};
