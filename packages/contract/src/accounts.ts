import { z } from 'zod';
import { MSG } from './messages.ts';
import { APPROACH_LIMITS, LIMITS, THEME_IDS, TRIGGER_EVENTS, USER_TYPES, ROLES, TRACKING_STATUSES } from './constants.ts';
import {
  brandUrlField,
  emailField,
  optionalString,
  optionalUsPhone,
  requiredString,
  requiredText,
  saneText,
  timeZoneField,
} from './common.ts';

const password = (min: number, minMessage: string) =>
  requiredText(MSG.passwordRequired).min(1, MSG.passwordRequired).min(min, minMessage).max(200);

// --- Log in (product rules §7: email+password; or code; or an action) -------------------------------------
export const loginPasswordRequest = z.object({
  email: requiredText(MSG.emailRequired).pipe(emailField),
  password: password(LIMITS.loginPasswordMin, MSG.passwordMin6),
  recaptcha: z.string().optional(),
});
export const loginCodeRequest = z.object({
  code: z.string().min(1).max(2048),
  state: z.string().min(1).max(200),
  userType: z.enum(USER_TYPES).optional(),
  recaptcha: z.string().optional(),
  promocode: optionalString(64),
  referrer: optionalString(64),
  timeZone: optionalString(64),
});
export const GOOGLE_ACTIONS = ['generate-google-auth-url', 'generate-google-signup-url'] as const;
export const loginActionRequest = z.object({
  action: z.enum(GOOGLE_ACTIONS),
  /** Where Google sends the browser back to; must be on this site. */
  redirectUri: z.string().url().optional(),
});
export type LoginPasswordRequest = z.input<typeof loginPasswordRequest>;

// --- Sign up ------------------------------------------------------------------------------------------
export const signupRequest = z
  .object({
    email: requiredText(MSG.emailRequired).pipe(emailField),
    firstName: saneText(100, MSG.nameInvalid),
    lastName: saneText(100, MSG.nameInvalid),
    promocode: optionalString(64),
    userType: z.enum(USER_TYPES).default('person'),
    /** A company account's name (shown to its customers); ignored for a person. */
    company: saneText(200, MSG.companyInvalid),
    password: password(LIMITS.signupPasswordMin, MSG.passwordMin8),
    repassword: requiredText(MSG.passwordsMismatch),
    terms: z.literal(true, { error: MSG.termsRequired }),
    timeZone: optionalString(64),
    recaptcha: z.string().optional(),
    referrer: optionalString(64),
  })
  .refine((v) => v?.password === v?.repassword, { message: MSG.passwordsMismatch, path: ['repassword'], when: () => true });
export type SignupRequest = z.input<typeof signupRequest>;

export const recoverParams = z.object({ email: requiredText(MSG.emailRequired).pipe(emailField) });
/** Resend activation without a session (the verification page of a signed-out visitor): the address to send to. */
export const resendActivationQuery = z.object({ email: requiredText(MSG.emailRequired).pipe(emailField) });

// A reset chooses a new password, so it keeps the sign-up rule (8), not the spec's 6 (decision 103): otherwise a
// reset could set a password that sign-up and the password change refuse.
export const passwordResetRequest = z.object({
  password: password(LIMITS.signupPasswordMin, MSG.passwordMin8),
  verifycode: requiredText(MSG.resetLinkInvalid).min(1, MSG.resetLinkInvalid).max(200),
});
/** The web form adds a confirmation field; the API takes password and verifycode (product rules §7). */
export const passwordResetForm = z
  .object({ password: password(LIMITS.signupPasswordMin, MSG.passwordMin8), repassword: z.string() })
  .refine((v) => v?.password === v?.repassword, { message: MSG.passwordsMismatch, path: ['repassword'], when: () => true });

export const passwordUpdateRequest = z.object({
  password: requiredText(MSG.currentPasswordRequired).min(1, MSG.currentPasswordRequired).min(6, MSG.passwordMin6),
  newpassword: password(LIMITS.signupPasswordMin, MSG.passwordMin8),
});
export const passwordUpdateForm = passwordUpdateRequest
  .extend({ repassword: z.string() })
  .refine((v) => v?.newpassword === v?.repassword, { message: MSG.passwordsMismatch, path: ['repassword'], when: () => true });

export const getInTouchRequest = z.object({
  name: requiredString(MSG.fullNameRequired, 120),
  email: requiredText(MSG.emailRequired).pipe(emailField),
  phone: optionalUsPhone(MSG.phoneInvalid),
  message: requiredString(MSG.messageRequired, 5000),
  recaptcha: z.string().optional(),
});
export const supportRequest = z.object({ message: requiredString(MSG.messageRequired, 5000) });
export const inviteRequest = z.object({ email: requiredText(MSG.emailRequired).pipe(emailField) });

// --- Settings (product rules §3, §5) ---------------------------------------------------------------------------
export const triggersSchema = z
  .object(
    Object.fromEntries(TRIGGER_EVENTS.map((t) => [t, z.boolean().optional()])) as Record<
      (typeof TRIGGER_EVENTS)[number],
      z.ZodOptional<z.ZodBoolean>
    >,
  )
  .partial();
export type Triggers = Partial<Record<(typeof TRIGGER_EVENTS)[number], boolean>>;

const anyTrigger = (t: Triggers | undefined) => !!t && Object.values(t).some(Boolean);
const isFalseLike = (v: unknown) => v === undefined || v === null || v === '' || v === 'false' || v === false;

const URL_PATTERN = /^https?:\/\/[^\s/$.?#][^\s]*$/i;

/** A channel: triggers and an endpoint. Endpoint rules apply only when a trigger is ticked (product rules §5). */
const channel = (check: (endpoint: string, ctx: z.RefinementCtx) => string | undefined, required: string) =>
  z
    .object({ triggers: triggersSchema.default({}), endpoint: z.union([z.string(), z.boolean(), z.null()]).optional() })
    .transform((v, ctx) => {
      const endpoint = isFalseLike(v.endpoint) ? '' : String(v.endpoint).trim();
      if (endpoint === '') {
        if (anyTrigger(v.triggers) && required) ctx.addIssue({ code: 'custom', message: required, path: ['endpoint'] });
        return { triggers: v.triggers, endpoint: '' };
      }
      const normalized = check(endpoint, ctx);
      return { triggers: v.triggers, endpoint: normalized ?? endpoint };
    });

const emailChannel = (required: string) =>
  channel((e, ctx) => {
    const r = z.email().safeParse(e);
    if (!r.success) ctx.addIssue({ code: 'custom', message: MSG.emailInvalid, path: ['endpoint'] });
    return e.toLowerCase();
  }, required);
const phoneChannel = (required: string) =>
  channel((e, ctx) => {
    const r = optionalUsPhone(MSG.phoneNumberInvalid).safeParse(e);
    if (!r.success) {
      ctx.addIssue({ code: 'custom', message: MSG.phoneNumberInvalid, path: ['endpoint'] });
      return undefined;
    }
    return r.data;
  }, required);
const webhookChannel = channel((e, ctx) => {
  if (!URL_PATTERN.test(e) || !URL.canParse(e)) ctx.addIssue({ code: 'custom', message: MSG.urlInvalid, path: ['endpoint'] });
  return e;
}, MSG.urlRequired);

/**
 * Email and phone endpoints may be left empty: they then default to the profile's email and phone
 * (product rules §4), so an empty endpoint with a ticked trigger is valid for them. The web form still asks.
 */
export const receiveNotificationSchema = z.object({
  email: emailChannel('').optional(),
  phone: phoneChannel('').optional(),
  webhook: webhookChannel.optional(),
});
export const sendNotificationSchema = z.object({
  email: emailChannel('').optional(),
  phone: phoneChannel('').optional(),
});
export type ReceiveNotification = z.output<typeof receiveNotificationSchema>;
export type SendNotification = z.output<typeof sendNotificationSchema>;

/**
 * When a customer hears that the courier is coming (decision 129): "about N stops away" once the shipment is
 * within `stops` of the courier's remaining stops, "arriving now" within `meters` of the destination.
 */
export const approachSettingsSchema = z.object({
  stops: z
    .number({ error: MSG.approachStopsInvalid })
    .int(MSG.approachStopsInvalid)
    .min(APPROACH_LIMITS.stops.min, MSG.approachStopsInvalid)
    .max(APPROACH_LIMITS.stops.max, MSG.approachStopsInvalid),
  meters: z
    .number({ error: MSG.approachMetersInvalid })
    .int(MSG.approachMetersInvalid)
    .min(APPROACH_LIMITS.meters.min, MSG.approachMetersInvalid)
    .max(APPROACH_LIMITS.meters.max, MSG.approachMetersInvalid),
});
export type ApproachSettings = z.infer<typeof approachSettingsSchema>;

export const settingsUpdateSchema = z.object({
  themeid: z.enum(THEME_IDS).optional(),
  approach: approachSettingsSchema.partial().optional(),
  sendNotification: sendNotificationSchema.optional(),
  receiveNotification: receiveNotificationSchema.optional(),
  emailContent: z.null().optional(),
});

export const profileUpdateSchema = z.object({
  // The email is read-only in the form (product rules §5); when sent it must be valid and equal the account's.
  email: z.string().pipe(emailField).optional(),
  // The names sign the company's mails and SMS to its customers, the logo and site go out with its brand in
  // the public tracking API: one line of plain text, https addresses (docs/decisions/109-customer-messages-held-and-limited.md).
  firstName: saneText(100, MSG.nameInvalid),
  lastName: saneText(100, MSG.nameInvalid),
  phone: optionalUsPhone(MSG.phoneInvalid),
  image: brandUrlField(2048),
  userType: z.enum(USER_TYPES).optional(),
  company: saneText(200, MSG.companyInvalid),
  companyUrl: brandUrlField(500),
  InvoiceExtraInfo: optionalString(2000),
  timeZone: timeZoneField(MSG.timeZoneInvalid),
  showWizard: z.boolean().optional(),
  token: z.string().optional(),
});

/**
 * Empty strings are dropped before validation (product rules §5), so '' never overwrites a stored value. Deeper
 * than any real update (a few levels), values are left as they are: the schema refuses them, and a
 * hostile body cannot overflow the stack.
 */
export function dropEmptyStrings<T>(value: T, depth = 0): T {
  if (depth > 16) return value;
  if (Array.isArray(value)) return value.map((v) => dropEmptyStrings(v, depth + 1)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === '') continue;
      out[k] = dropEmptyStrings(v, depth + 1);
    }
    return out as T;
  }
  return value;
}

export const updateRequest = z.object({
  profile: profileUpdateSchema.optional(),
  settings: settingsUpdateSchema.optional(),
});
export type UpdateRequest = z.input<typeof updateRequest>;

// --- Responses ------------------------------------------------------------------------------------------
export const profileSchema = z.object({
  uid: z.string(),
  token: z.string(),
  role: z.enum(ROLES),
  userType: z.enum(USER_TYPES),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string(),
  emailVerified: z.boolean(),
  phone: z.string(),
  image: z.string(),
  balance: z.number(),
  showWizard: z.boolean(),
  company: z.string(),
  companyUrl: z.string(),
  InvoiceExtraInfo: z.string(),
  timeZone: z.string(),
  referralCode: z.string(),
  createdAt: z.string(),
});
export type Profile = z.infer<typeof profileSchema>;

const channelOut = z.object({ triggers: z.record(z.string(), z.boolean()), endpoint: z.string() });
export const settingsSchema = z.object({
  themeid: z.enum(THEME_IDS),
  sendNotification: z.object({ email: channelOut, phone: channelOut }),
  receiveNotification: z.object({ email: channelOut, phone: channelOut, webhook: channelOut }),
  /** The approach notifications' thresholds, defaults filled in (decision 129). */
  approach: approachSettingsSchema,
  emailContent: z.null(),
  webhookSecret: z.string(),
});
export type Settings = z.infer<typeof settingsSchema>;

export const dashboardSchema = z.object({
  Shipments: z.number(),
  ...(Object.fromEntries(TRACKING_STATUSES.map((s) => [s, z.number()])) as Record<(typeof TRACKING_STATUSES)[number], z.ZodNumber>),
  Cost: z.number(),
  shmShipments: z.number(),
});
export type Dashboard = z.infer<typeof dashboardSchema>;

export const alertSchema = z.object({
  id: z.string(),
  date: z.string(),
  name: z.string(),
  message: z.string(),
  level: z.enum(['info', 'warning', 'danger']),
});
export type Alert = z.infer<typeof alertSchema>;
export const alertsSchema = z.object({ general: z.array(alertSchema), payment: z.array(alertSchema) });

export const userInfoSchema = z.object({
  profile: profileSchema,
  dashboard: dashboardSchema,
  settings: settingsSchema,
  alerts: alertsSchema,
  version: z.string(),
});
export type UserInfo = z.infer<typeof userInfoSchema>;

export const sessionPayloadSchema = z.object({
  profile: profileSchema,
  sessionToken: z.string(),
  version: z.string(),
});
export type SessionPayload = z.infer<typeof sessionPayloadSchema>;

export const pricingSchema = z.object({
  currency: z.string(),
  signupBonus: z.number(),
  perTracking: z.number(),
  /** A delivery company's own shipment (an SHM number), booked like a tracking. */
  perShipment: z.number(),
  perSms: z.number(),
  referralReward: z.number(),
  autoRecharge: z.object({ quickAmounts: z.array(z.number()), defaultAmount: z.number(), defaultMinimum: z.number() }),
});
