import { z } from 'zod';
import { MSG } from './messages.ts';
import { LIMITS } from './constants.ts';
import { emailField, optionalUsPhone, requiredString, requiredText } from './common.ts';

// Courier invitations (docs/decisions/096-courier-invitations.md): a company invites a courier by email (and SMS
// when a phone is given); the courier opens the link and sets their own password.

/** How long an invitation link works. */
export const INVITATION_TTL_DAYS = 7;
/** Invitation mails and SMS a company may send (new invitations and resends together) per hour. */
export const INVITATION_SENDS_PER_HOUR = 30;

export const INVITATION_STATES = ['pending', 'accepted', 'expired', 'revoked', 'declined'] as const;
export type InvitationState = (typeof INVITATION_STATES)[number];

export const INVITE_MSG = {
  sent: 'Invitation sent',
  resent: 'Invitation sent again',
  revoked: 'Invitation revoked: its link no longer works',
  alreadyInvited: 'This address already has an open invitation: resend it from the list',
  notFound: 'This invitation is not one of yours',
  notPending: 'This invitation is no longer open',
  linkInvalid: 'This invitation link is not valid. Check that you copied the whole link from the mail.',
  expired: 'This invitation has expired. Ask the company to send you a new one.',
  used: 'This invitation was already accepted. Log in with your email and password.',
  withdrawn: 'This invitation was withdrawn by the company.',
  declined: 'This invitation was declined.',
  accepted: 'Welcome aboard: you are signed in as a courier',
  declinedNow: 'Done: this address is no longer a courier of the company',
  tooMany: 'Too many invitations sent in the last hour. Please wait and try again.',
  /** Sign-up on an address a company made a courier account with, never confirmed (decision 097). */
  addressHeldByCourier:
    'A company made a courier account with this address. We sent it a link: open it to release the address (or to keep the account and set your own password), then sign up.',
  smsNoBalance: 'The SMS was not sent: your balance is too low',
} as const;

/** POST /v1/user/invitations/create */
export const createInvitationRequest = z.object({
  email: requiredText(MSG.emailRequired).pipe(emailField),
  firstName: requiredString(MSG.firstNameRequired, 100),
  lastName: requiredString(MSG.lastNameRequired, 100),
  /** US phone: the link goes by SMS too ($0.04, as every SMS). */
  phone: optionalUsPhone(MSG.phoneInvalid),
});
export type CreateInvitationRequest = z.input<typeof createInvitationRequest>;

/** POST /v1/user/invitations/resend and /revoke */
export const invitationIdRequest = z.object({ id: requiredText('Invitation id is required').uuid('Invitation id is required') });
export type InvitationIdRequest = z.input<typeof invitationIdRequest>;

const token = requiredText(INVITE_MSG.linkInvalid).min(1, INVITE_MSG.linkInvalid).max(200, INVITE_MSG.linkInvalid);

/** POST /v1/invitations/accept: the same password rules as sign-up (8+ characters, repeated). */
export const acceptInvitationRequest = z
  .object({
    token,
    password: requiredText(MSG.passwordRequired).min(1, MSG.passwordRequired).min(LIMITS.signupPasswordMin, MSG.passwordMin8).max(200),
    repassword: requiredText(MSG.passwordsMismatch),
  })
  .refine((v) => v?.password === v?.repassword, { message: MSG.passwordsMismatch, path: ['repassword'], when: () => true });
export type AcceptInvitationRequest = z.input<typeof acceptInvitationRequest>;
/** The web form: the token comes from the URL. */
export const acceptInvitationForm = z
  .object({
    password: requiredText(MSG.passwordRequired).min(1, MSG.passwordRequired).min(LIMITS.signupPasswordMin, MSG.passwordMin8).max(200),
    repassword: z.string(),
  })
  .refine((v) => v?.password === v?.repassword, { message: MSG.passwordsMismatch, path: ['repassword'], when: () => true });

/** POST /v1/invitations/decline */
export const declineInvitationRequest = z.object({ token });

export const invitationViewSchema = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  phone: z.string(),
  state: z.enum(INVITATION_STATES),
  /** When the current link was sent (the last resend). */
  sentAt: z.string(),
  expiresAt: z.string(),
  /** How many times it was sent (1 + resends). */
  sends: z.number().int(),
  createdAt: z.string(),
});
export type InvitationView = z.infer<typeof invitationViewSchema>;
export const invitationListSchema = z.array(invitationViewSchema);

/** What the courier sees on the accept page (public, by token). */
export const publicInvitationSchema = z.object({
  company: z.string(),
  email: z.string(),
  firstName: z.string(),
  state: z.enum(INVITATION_STATES),
  expiresAt: z.string(),
  /** Why the invitation cannot be accepted, in words; null while it can. */
  reason: z.string().nullable(),
  /** True when the address already has a courier account that the company made (decision 097). */
  existingAccount: z.boolean(),
});
export type PublicInvitation = z.infer<typeof publicInvitationSchema>;
