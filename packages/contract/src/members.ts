import { z } from 'zod';
import { MSG } from './messages.ts';
import { LIMITS, POSITION_TRAIL_MAX } from './constants.ts';
import { emailField, normalizeUsPhone, optionalString, requiredString, requiredText } from './common.ts';

// Members of a company account (couriers): the four member calls and the member view.

/** The only member role a company can add today. */
export const MEMBER_ROLES = ['courier'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

const memberEmail = requiredText(MSG.emailRequired).pipe(emailField);
const memberRole = z.enum(MEMBER_ROLES, {
  error: (issue) => (issue.input === undefined || issue.input === '' ? MSG.roleRequired : 'A member is a courier (role "courier")'),
});

/** US phone, required for a member (the company calls its couriers). */
const memberPhone = requiredText(MSG.phoneRequired)
  .trim()
  .min(1, MSG.phoneRequired)
  .max(40, MSG.phoneInvalid)
  .transform((v, ctx) => {
    const n = normalizeUsPhone(v);
    if (!n) {
      ctx.addIssue({ code: 'custom', message: MSG.phoneInvalid });
      return z.NEVER;
    }
    return n;
  });

const memberFields = {
  email: memberEmail,
  role: memberRole,
  firstName: requiredString(MSG.firstNameRequired, 100),
  lastName: requiredString(MSG.lastNameRequired, 100),
  phone: memberPhone,
};

/** POST /v1/user/general/addmember: the courier signs in with this email and password. */
export const addMemberRequest = z.object({
  ...memberFields,
  password: requiredText(MSG.passwordRequired).min(1, MSG.passwordRequired).min(LIMITS.signupPasswordMin, MSG.passwordMin8).max(200),
});
export type AddMemberRequest = z.input<typeof addMemberRequest>;

/**
 * POST /v1/user/general/updatemember: the same fields without the password. The member is found by `uid`
 * when given (then the email may change), otherwise by `email`.
 */
export const updateMemberRequest = z.object({
  uid: optionalString(64),
  ...memberFields,
});
export type UpdateMemberRequest = z.input<typeof updateMemberRequest>;

/** POST /v1/user/general/deletemember: by email (or uid). */
export const deleteMemberRequest = z
  .object({ uid: optionalString(64), email: z.string().pipe(emailField).optional() })
  .refine((v) => !!(v?.uid || v?.email), { message: MSG.emailRequired, path: ['email'] });
export type DeleteMemberRequest = z.input<typeof deleteMemberRequest>;

export const geoSchema = z.object({ lat: z.number(), lng: z.number() });

export const memberViewSchema = z.object({
  uid: z.string(),
  email: z.string(),
  role: z.enum(MEMBER_ROLES),
  firstName: z.string(),
  lastName: z.string(),
  phone: z.string(),
  /** Last known position (from the courier's latest checkpoint with coordinates); null until one. */
  geo: geoSchema.nullable(),
  /** When `geo` was reported (ISO time), null when never. */
  geoAt: z.string().nullable(),
  /** Shipments assigned to the member that are not Delivered or Expired yet. */
  openShipments: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type MemberView = z.infer<typeof memberViewSchema>;
export const memberListSchema = z.array(memberViewSchema);

/** POST /v1/user/general/position: a courier reports where they are (for the couriers map). */
export const positionRequest = z.object({
  lat: z.number({ error: 'lat must be a number' }).min(-90).max(90),
  lng: z.number({ error: 'lng must be a number' }).min(-180).max(180),
  /**
   * When the phone took this fix, for one sent late (queued without signal); left out, now. A fix older than a few
   * minutes updates the couriers map only if it is the newest, and never reaches recipients (decision 128).
   */
  takenAt: z
    .string()
    .trim()
    .pipe(z.iso.datetime({ offset: true, error: 'takenAt must be a date and time with its UTC offset, e.g. 2019-01-19T15:04:08Z' }))
    .optional(),
});

const takenAtField = z
  .string({ error: MSG.positionTakenAtRequired })
  .trim()
  .pipe(z.iso.datetime({ offset: true, error: 'takenAt must be a date and time with its UTC offset, e.g. 2019-01-19T15:04:08Z' }));

/** One position of a courier's trail: where they were, and when the phone took the fix. */
export const trailFixSchema = z.object({
  lat: z.number({ error: 'lat must be a number' }).min(-90).max(90),
  lng: z.number({ error: 'lng must be a number' }).min(-180).max(180),
  takenAt: takenAtField,
});
export type TrailFix = z.infer<typeof trailFixSchema>;

/**
 * POST /v1/user/general/positions: the positions a courier's phone kept without signal, sent together when it is
 * back (decision 149), under an optional Idempotency-Key. Each is kept once (a fix the server has, by its time, is
 * not added again); the newest becomes the courier's last position only if it is newer than the one stored.
 */
export const positionsRequest = z.object({
  positions: z
    .array(trailFixSchema, { error: MSG.positionsRequired })
    .min(1, MSG.positionsRequired)
    .max(POSITION_TRAIL_MAX, MSG.positionsTooMany),
});
export type PositionsRequest = z.infer<typeof positionsRequest>;
export const positionsResultSchema = z.object({
  /** How many of the positions were new to the server (a resent one is not counted again). */
  added: z.number().int(),
  /** The courier's last position after the batch: the newest by takenAt, whichever arrived last. */
  last: z.object({ lat: z.number(), lng: z.number(), takenAt: z.string() }).nullable(),
});

/** POST /v1/user/general/trail: where one of the company's couriers went, oldest first (the owner's). */
export const trailRequest = z.object({
  uid: requiredString(MSG.trailCourierRequired, 64),
  /** From when (ISO with offset); the last 24 hours when left out. */
  since: z
    .string()
    .trim()
    .pipe(z.iso.datetime({ offset: true, error: 'since must be a date and time with its UTC offset, e.g. 2019-01-19T15:04:08Z' }))
    .optional(),
});
export const trailSchema = z.array(z.object({ lat: z.number(), lng: z.number(), takenAt: z.string() }));
