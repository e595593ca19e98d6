import {
  INVITE_MSG,
  MSG,
  PRICING,
  TRACKING_STATUSES,
  centsToDollars,
  type Dashboard,
  type Profile,
  type SessionPayload,
  type UserInfo,
  type Alert,
  signupRequest,
  updateRequest,
  isTimeZone,
} from '@shiptrail/contract';
import type { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/client.ts';
import { AppError, badRequest, conflict, tooMany, unauthorized } from '../../lib/errors.ts';
import { decrypt, encrypt, randomAlnum } from '../../lib/crypto.ts';
import { forgetAttempts, releaseAttempt, sweepAttempts, takeBackoff, takeWindow } from '../../lib/attempts.repository.ts';
import { balanceCents, credit, spentCents } from '../billing/billing.service.ts';
import * as alertsSvc from '../alerts/alerts.service.ts';
import * as mail from './mails.ts';
import * as repo from './accounts.repository.ts';
import type { UserRow } from './accounts.repository.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { hashToken, newApiKey, newEmailKey, newSessionToken, newVersion } from './tokens.ts';
import { googleExchange } from './google.ts';
import {
  initialSettings,
  mergeSettings,
  newWebhookSecret,
  checkWebhookAtSave,
  releaseHeldCustomerMessages,
  settingsView,
  type StoredSettings,
} from '../notifications/notifications.service.ts';

const VERIFY_TTL_MS = 48 * 3600 * 1000;
const RESET_TTL_MS = 3600 * 1000;

// What other modules may use of accounts (the boundary lint rule allows only this file and auth.plugin.ts).
export { raiseAlert, type NewAlert } from '../alerts/alerts.service.ts';
export { newVersion } from './tokens.ts';
export type { UserRow } from './accounts.repository.ts';

export interface RequestMeta {
  ip: string;
  userAgent?: string;
}

// ------------------------------------------------------------------ views
/**
 * The stored API key, decrypted for its owner. If SESSION_SECRET changed since the key was made it can no
 * longer be shown (it still works); the profile then shows '' and the user regenerates it.
 */
function readApiKey(ctx: AppContext, u: UserRow): string {
  try {
    return decrypt(ctx.config.sessionSecret, u.apiKeyEnc);
  } catch {
    ctx.log.warn({ uid: u.uid }, 'API key cannot be decrypted (SESSION_SECRET changed?)');
    return '';
  }
}

export function profileView(ctx: AppContext, u: UserRow, balance: number): Profile {
  return {
    uid: u.uid,
    token: readApiKey(ctx, u),
    role: u.role as Profile['role'],
    userType: u.userType as Profile['userType'],
    firstName: u.firstName,
    lastName: u.lastName,
    email: u.email,
    emailVerified: u.emailVerified,
    phone: u.phone,
    image: u.image,
    balance: centsToDollars(balance),
    showWizard: u.showWizard,
    company: u.company,
    companyUrl: u.companyUrl,
    InvoiceExtraInfo: u.invoiceExtraInfo,
    timeZone: u.timeZone,
    referralCode: u.referralCode,
    createdAt: u.createdAt.toISOString(),
  };
}

async function dashboard(db: Queryable, u: UserRow): Promise<Dashboard> {
  const rows = await repo.trackingCountsByStatus(db, u.id);
  const d = Object.fromEntries(TRACKING_STATUSES.map((s) => [s, 0])) as Record<(typeof TRACKING_STATUSES)[number], number>;
  let total = 0;
  for (const r of rows) {
    if (r.status in d) d[r.status as keyof typeof d] += Number(r.n);
    total += Number(r.n);
  }
  // A company counts its own shipments; a courier, the shipments assigned to them.
  const shm = await repo.countShipments(db, u.role === 'courier' ? { courierId: u.id } : { companyId: u.id });
  return { Shipments: total, ...d, Cost: centsToDollars(await spentCents(db, u.id)), shmShipments: shm };
}

export async function userInfo(ctx: AppContext, u: UserRow): Promise<UserInfo> {
  const [balance, dash, stored] = await Promise.all([balanceCents(ctx.db, u.id), dashboard(ctx.db, u), alertsSvc.listAlerts(ctx.db, u.id)]);
  const general: Alert[] = [];
  const payment: Alert[] = [];
  if (!u.emailVerified) {
    general.push({
      id: 'emailIsNotVerifed',
      date: u.createdAt.toISOString(),
      name: 'emailIsNotVerifed',
      message: 'Your email address is not verified yet. Check your inbox or resend the activation email.',
      level: 'warning',
    });
  }
  for (const a of stored) {
    const view: Alert = { id: a.id, date: a.createdAt.toISOString(), name: a.name, message: a.message, level: a.level as Alert['level'] };
    (a.group === 'payment' ? payment : general).push(view);
  }
  return {
    profile: profileView(ctx, u, balance),
    dashboard: dash,
    settings: settingsView(u.settings as StoredSettings, u.webhookSecret),
    alerts: { general, payment },
    version: u.version,
  };
}

async function startSession(ctx: AppContext, u: UserRow, meta: RequestMeta): Promise<SessionPayload> {
  const token = newSessionToken();
  const expires = new Date(ctx.now().getTime() + ctx.config.SESSION_TTL_DAYS * 86400_000);
  // A new version on every login (product rules §3): the web app refetches user info.
  const user = await repo.updateUser(ctx.db, u.id, { version: newVersion() });
  await repo.insertSession(ctx.db, u.id, token, expires, meta);
  return { profile: profileView(ctx, user, await balanceCents(ctx.db, u.id)), sessionToken: token, version: user.version };
}

// ------------------------------------------------------------------ sign up
type SignupInput = z.output<typeof signupRequest>;

async function createAccount(
  ctx: AppContext,
  input: {
    email: string;
    firstName?: string;
    lastName?: string;
    userType: 'person' | 'company';
    company?: string;
    password: string | null;
    timeZone?: string;
    promocode?: string;
    referrer?: string;
    googleSub?: string;
    emailVerified?: boolean;
    image?: string;
    signupIp?: string;
  },
): Promise<UserRow> {
  if (await repo.findUserByEmail(ctx.db, input.email)) throw conflict(MSG.emailTaken);
  const inviter = input.referrer ? await repo.findUserByReferral(ctx.db, input.referrer) : undefined;
  const apiKey = newApiKey();
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  // Two sign-ups with one address can both pass the check above; the unique index decides, and the
  // loser gets the same 409 as a sequential second sign-up.
  const user = await ctx.db
    .transaction(async (tx) => {
      const u = await repo.insertUser(tx, {
        uid: randomAlnum(12).toLowerCase(),
        email: input.email,
        passwordHash,
        googleSub: input.googleSub ?? null,
        userType: input.userType,
        // A company's name signs its customers' mails and its public pages; a person has none.
        company: input.userType === 'company' ? (input.company ?? '') : '',
        firstName: input.firstName ?? '',
        lastName: input.lastName ?? '',
        image: input.image ?? '',
        timeZone: input.timeZone && isTimeZone(input.timeZone) ? input.timeZone : 'UTC',
        emailVerified: input.emailVerified ?? false,
        apiKeyHash: hashToken(apiKey),
        apiKeyEnc: encrypt(ctx.config.sessionSecret, apiKey),
        webhookSecret: newWebhookSecret(),
        referralCode: randomAlnum(10),
        referredBy: inviter?.id ?? null,
        promocode: input.promocode ?? null,
        // A referral from the inviter's own address earns nothing (decision 110).
        signupIp: input.signupIp ?? null,
        settings: initialSettings(),
        version: newVersion(),
      });
      // The sign-up bonus is booked with the account: both exist or neither (product rules §9).
      await credit(tx, u.id, PRICING.signupBonusCents, 'signup_bonus', 'signup', 'Sign-up bonus');
      if (inviter) {
        await repo.linkReferral(tx, inviter.id, u.email, u.id);
      }
      return u;
    })
    .catch((err: unknown) => {
      if (isUniqueViolation(err)) throw conflict(MSG.emailTaken);
      throw err;
    });
  return user;
}

function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e.code === '23505') return true;
  }
  return false;
}

export async function signup(ctx: AppContext, input: SignupInput, meta: RequestMeta): Promise<SessionPayload> {
  // An address a company took for a courier account without the owner's word can be claimed (decision 097):
  // the mailbox gets the link that releases it, and the reply says so instead of a bare "already exists".
  const held = await repo.findUserByEmail(ctx.db, input.email);
  if (held && isUnclaimedCourier(held)) {
    await offerClaim(ctx, held);
    throw conflict(INVITE_MSG.addressHeldByCourier);
  }
  const user = await createAccount(ctx, { ...input, password: input.password, signupIp: meta.ip });
  await sendVerification(ctx, user);
  return startSession(ctx, user, meta);
}

async function sendVerification(ctx: AppContext, user: UserRow) {
  const key = newEmailKey();
  await repo.insertEmailKey(ctx.db, user.id, 'verify', key, new Date(ctx.now().getTime() + VERIFY_TTL_MS));
  const link = `${ctx.config.publicUrl}/verify/${key}`;
  await ctx.mailer.send({ to: user.email, ...mail.verifyEmail(user.firstName, link) });
}

// ------------------------------------------------------------------ log in
/**
 * Login throttling (docs/decisions/008-login-throttling.md):
 * - per (account, client IP): LOGIN_MAX_ATTEMPTS free attempts, then exponential backoff from one
 *   minute, doubling up to LOGIN_WINDOW_MINUTES between attempts; a success clears it. An attacker's
 *   guesses from one address do not slow the owner down at another.
 * - per account, from all addresses together: a looser ceiling (3 x LOGIN_MAX_ATTEMPTS per window)
 *   against guessing from many addresses. When it is reached, only an address the account already had a
 *   session from gets through, so a distributed attack cannot lock the owner out of their usual device.
 * - per client IP, across accounts: 5 x LOGIN_MAX_ATTEMPTS per window (password spraying).
 * Every attempt is reserved before the password hash is verified, each in one statement on the shared
 * table (lib/attempts.repository.ts), so parallel requests, on one api process or several, cannot all pass the
 * check; a successful login gives its reservation back.
 */
export const LOGIN_CEILING_FACTOR = 3;
const loginKeys = (email: string, ip: string) => ({
  pair: `login:pair:${email}\n${ip}`,
  account: `login:account:${email}`,
  ip: `login:ip:${ip}`,
});
/** Expired login counters are swept now and then by the logins themselves (a bounded table, no job). */
const SWEEP_EVERY_LOGINS = 200;
let loginsSinceSweep = 0;

export async function login(ctx: AppContext, email: string, password: string, meta: RequestMeta): Promise<SessionPayload> {
  const windowMs = ctx.config.LOGIN_WINDOW_MINUTES * 60_000;
  const max = ctx.config.LOGIN_MAX_ATTEMPTS;
  const now = ctx.now();
  const keys = loginKeys(email, meta.ip);
  const refuse = (waitMs: number) => tooMany(MSG.tooManyAttempts, waitMs / 1000);
  if (++loginsSinceSweep >= SWEEP_EVERY_LOGINS) {
    loginsSinceSweep = 0;
    await sweepAttempts(ctx.db);
  }
  // Reserve before the password is checked: each take counts and checks in one statement.
  const pair = await takeBackoff(
    ctx.db,
    keys.pair,
    { free: max, baseMs: Math.min(60_000, windowMs), maxDelayMs: windowMs, forgetMs: Math.max(windowMs, 24 * 3600_000) },
    now,
  );
  if (!pair.ok) throw refuse(pair.waitMs);
  const ip = await takeWindow(ctx.db, keys.ip, max * 5, windowMs, now);
  if (!ip.ok) {
    await releaseAttempt(ctx.db, keys.pair);
    throw refuse(ip.waitMs);
  }
  const account = await takeWindow(ctx.db, keys.account, max * LOGIN_CEILING_FACTOR, windowMs, now);
  const user = await repo.findUserByEmail(ctx.db, email);
  if (!account.ok && !(user && (await repo.hadSessionFrom(ctx.db, user.id, meta.ip)))) {
    await releaseAttempt(ctx.db, keys.pair);
    await releaseAttempt(ctx.db, keys.ip);
    throw refuse(account.waitMs);
  }
  const ok = await verifyPassword(user?.passwordHash ?? null, password);
  if (!user || !ok) throw unauthorized(MSG.invalidCredentials);
  await forgetAttempts(ctx.db, keys.pair);
  await releaseAttempt(ctx.db, keys.ip);
  if (account.ok) await releaseAttempt(ctx.db, keys.account);
  return startSession(ctx, user, meta);
}

export async function googleLogin(
  ctx: AppContext,
  input: { code: string; state: string; userType?: 'person' | 'company'; promocode?: string; referrer?: string; timeZone?: string },
  meta: RequestMeta,
): Promise<SessionPayload> {
  const { profile } = await googleExchange(ctx, input.code, input.state);
  let user = (await repo.findUserByGoogleSub(ctx.db, profile.sub)) ?? (await repo.findUserByEmail(ctx.db, profile.email));
  if (user) {
    // Google vouching for the address must not land its owner in a company's unclaimed courier account (decision 097).
    if (isUnclaimedCourier(user)) {
      await offerClaim(ctx, user);
      throw conflict(INVITE_MSG.addressHeldByCourier);
    }
    // Link the Google identity to an existing account only when Google vouches for the address.
    if (!user.googleSub) {
      if (!profile.emailVerified) throw badRequest(MSG.googleFailed);
      user = await repo.updateUser(ctx.db, user.id, { googleSub: profile.sub, emailVerified: true });
      await releaseHeldCustomerMessages(ctx, user.id);
    }
  } else {
    // Log in and sign up both work for a new Google user: a first "Log in with Google" creates the account.
    user = await createAccount(ctx, {
      email: profile.email,
      firstName: profile.firstName,
      lastName: profile.lastName,
      image: profile.picture,
      userType: input.userType ?? 'person',
      password: null,
      googleSub: profile.sub,
      emailVerified: profile.emailVerified,
      timeZone: input.timeZone,
      promocode: input.promocode,
      referrer: input.referrer,
      signupIp: meta.ip,
    });
    if (!user.emailVerified) await sendVerification(ctx, user);
  }
  return startSession(ctx, user, meta);
}

/** Ends a web session. An API key is not a session: saying "Signed out" for one would be untrue. */
export const API_KEY_LOGOUT_MESSAGE =
  'An API key is not a session and cannot be signed out: it stays valid until you generate a new one (Settings, or POST /v1/user/general/generatenewtoken)';
export async function logout(ctx: AppContext, sessionId: string | null) {
  if (!sessionId) throw badRequest(API_KEY_LOGOUT_MESSAGE);
  await repo.revokeSession(ctx.db, sessionId, ctx.now());
}

/** The members module's claim offer for an unclaimed courier (FeatureResources.offerCourierClaim). */
async function offerClaim(ctx: AppContext, member: UserRow): Promise<void> {
  if (!ctx.resources.offerCourierClaim) throw new Error('offerCourierClaim is not set: buildApp sets it from the members module');
  await ctx.resources.offerCourierClaim(ctx, member, { force: false });
}

// ------------------------------------------------------------------ email keys
export async function verifyEmail(ctx: AppContext, key: string, meta: RequestMeta): Promise<SessionPayload> {
  const userId = await repo.consumeEmailKey(ctx.db, 'verify', key, ctx.now());
  if (!userId) throw badRequest(MSG.verificationFailed);
  const user = await repo.updateUser(ctx.db, userId, { emailVerified: true, version: newVersion() });
  // Messages to the company's customers waited for this (decision 109).
  await releaseHeldCustomerMessages(ctx, userId);
  return startSession(ctx, user, meta);
}

export async function resendVerification(ctx: AppContext, user: UserRow) {
  if (user.emailVerified) throw badRequest(MSG.alreadyVerified);
  await repo.expireEmailKeys(ctx.db, user.id, 'verify', ctx.now());
  await sendVerification(ctx, user);
}

/**
 * Resend by address (no session): like recoverInBackground, the caller has already answered the same words
 * whatever happens here. Only an account that exists and still waits for activation gets a mail.
 */
export function resendVerificationInBackground(ctx: AppContext, email: string): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve))
    .then(async () => {
      const user = await repo.findUserByEmail(ctx.db, email);
      if (!user || user.emailVerified) return;
      await repo.expireEmailKeys(ctx.db, user.id, 'verify', ctx.now());
      await sendVerification(ctx, user);
    })
    .catch((err: unknown) => ctx.log.error({ err }, 'resending the activation email failed'));
}

/**
 * Same answer, in the same time, whether or not the account exists: the caller replies first and the
 * work (lookup, key, mail) runs after, so neither the message nor the timing tells who has an account.
 */
export function recoverInBackground(ctx: AppContext, email: string): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => recover(ctx, email))
    .catch((err: unknown) => ctx.log.error({ err }, 'password recovery failed'));
}

export async function recover(ctx: AppContext, email: string) {
  const user = await repo.findUserByEmail(ctx.db, email);
  if (!user) return;
  // A reset would hand the mailbox's owner an account of a company they may not know: they get the link that
  // either sets their own password as that courier or releases the address (decision 097).
  if (isUnclaimedCourier(user)) return offerClaim(ctx, user);
  await repo.expireEmailKeys(ctx.db, user.id, 'reset', ctx.now());
  const key = newEmailKey();
  await repo.insertEmailKey(ctx.db, user.id, 'reset', key, new Date(ctx.now().getTime() + RESET_TTL_MS));
  await ctx.mailer.send({ to: user.email, ...mail.resetPassword(`${ctx.config.publicUrl}/password/reset/${key}`) });
}

export async function resetPassword(ctx: AppContext, key: string, password: string) {
  const userId = await repo.consumeEmailKey(ctx.db, 'reset', key, ctx.now());
  if (!userId) throw badRequest(MSG.resetLinkInvalid);
  // A reset proves control of the mailbox: the address counts as verified. Whoever knew the old password
  // could read the API key in Settings, so every session ends and the API key is replaced too
  // (docs/decisions/009-sessions-and-api-key.md).
  const apiKey = newApiKey();
  await repo.updateUser(ctx.db, userId, {
    passwordHash: await hashPassword(password),
    emailVerified: true,
    apiKeyHash: hashToken(apiKey),
    apiKeyEnc: encrypt(ctx.config.sessionSecret, apiKey),
    version: newVersion(),
  });
  await repo.revokeUserSessions(ctx.db, userId, ctx.now());
  await releaseHeldCustomerMessages(ctx, userId);
}

/** A password change ends every other session of the account; the one that made the change stays. */
export async function updatePassword(ctx: AppContext, user: UserRow, current: string, next: string, currentSessionId: string | null) {
  if (!(await verifyPassword(user.passwordHash, current)))
    throw badRequest(MSG.currentPasswordWrong, { password: MSG.currentPasswordWrong });
  await repo.updateUser(ctx.db, user.id, { passwordHash: await hashPassword(next), version: newVersion() });
  await repo.revokeUserSessions(ctx.db, user.id, ctx.now(), currentSessionId);
}

// ------------------------------------------------------------------ profile and settings
export async function update(ctx: AppContext, user: UserRow, input: z.output<typeof updateRequest>): Promise<UserInfo> {
  const values: Partial<repo.NewUser> = { version: newVersion() };
  const p = input.profile;
  if (p) {
    if (p.email && p.email !== user.email)
      throw badRequest('The email address cannot be changed here', { email: 'The email address cannot be changed here' });
    if (p.firstName !== undefined) values.firstName = p.firstName;
    if (p.lastName !== undefined) values.lastName = p.lastName;
    if (p.phone !== undefined) values.phone = p.phone;
    if (p.image !== undefined) values.image = p.image;
    if (p.timeZone !== undefined) values.timeZone = p.timeZone;
    if (p.showWizard !== undefined) values.showWizard = p.showWizard;
    if (p.userType !== undefined && p.userType !== user.userType) {
      // A user that already has a company cannot change the account type (product rules §6); couriers never can.
      if (user.role === 'courier' || (user.userType === 'company' && user.company)) throw badRequest('The account type cannot be changed');
      values.userType = p.userType;
    }
    const isCompany = (values.userType ?? user.userType) === 'company';
    if (isCompany) {
      if (p.company !== undefined) values.company = p.company;
      if (p.companyUrl !== undefined) values.companyUrl = p.companyUrl;
      if (p.InvoiceExtraInfo !== undefined) values.invoiceExtraInfo = p.InvoiceExtraInfo;
    }
  }
  if (input.settings) {
    const s = input.settings;
    // SSRF guard at save (ARCHITECTURE §5); delivery checks again after its own DNS lookup.
    const hook = s.receiveNotification?.webhook?.endpoint;
    if (hook) await checkWebhookAtSave(ctx, hook);
    // A person's customers are told too (the email and phone set on a tracking; decision 100). Couriers never get
    // here (the route is owner-only).
    values.settings = mergeSettings(user.settings as StoredSettings, {
      themeid: s.themeid,
      sendNotification: s.sendNotification as StoredSettings['sendNotification'],
      receiveNotification: s.receiveNotification as StoredSettings['receiveNotification'],
      approach: s.approach,
    });
  }
  const updated = await repo.updateUser(ctx.db, user.id, values);
  return userInfo(ctx, updated);
}

export async function generateNewToken(ctx: AppContext, user: UserRow): Promise<string> {
  const key = newApiKey();
  await repo.updateUser(ctx.db, user.id, {
    apiKeyHash: hashToken(key),
    apiKeyEnc: encrypt(ctx.config.sessionSecret, key),
    version: newVersion(),
  });
  return key;
}

export async function dismissAlert(ctx: AppContext, user: UserRow, id: string) {
  if (!/^[0-9a-f-]{36}$/i.test(id) || !(await alertsSvc.dismissAlert(ctx.db, user.id, id, ctx.now())))
    throw new AppError(404, MSG.notFound, 'not_found');
}

// ------------------------------------------------------------------ members (a company's couriers)
/** What the members module may change on a member's account row. */
export interface MemberAccountInput {
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
}

/**
 * A courier's own account, bound to the company: they sign in with this email and password. No sign-up bonus
 * and no wizard (a courier has no balance or settings of their own). `verified` only when the courier proved
 * the address (an accepted invitation).
 */
export async function createMemberAccount(
  ctx: AppContext,
  company: UserRow,
  input: MemberAccountInput & { password: string; verified: boolean },
  db: Queryable = ctx.db,
): Promise<UserRow> {
  if (await repo.findUserByEmail(db, input.email)) throw conflict(MSG.emailTaken);
  const apiKey = newApiKey();
  try {
    return await repo.insertUser(db, {
      uid: randomAlnum(12).toLowerCase(),
      email: input.email,
      passwordHash: await hashPassword(input.password),
      userType: 'person',
      role: 'courier',
      companyId: company.id,
      firstName: input.firstName,
      lastName: input.lastName,
      phone: input.phone,
      timeZone: company.timeZone,
      // Only an accepted invitation proves the address is the courier's; an account made with a password the
      // owner chose starts unverified and its address can be claimed (docs/decisions/097-owner-made-courier-accounts.md).
      emailVerified: input.verified,
      showWizard: false,
      apiKeyHash: hashToken(apiKey),
      apiKeyEnc: encrypt(ctx.config.sessionSecret, apiKey),
      webhookSecret: newWebhookSecret(),
      referralCode: randomAlnum(10),
      version: newVersion(),
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(MSG.emailTaken);
    throw err;
  }
}

/**
 * Change a member's name, phone or email (the email must stay unique across accounts). A new address is the
 * owner's word only, so it is unverified again (decision 097).
 */
export async function updateMemberAccount(ctx: AppContext, member: UserRow, input: MemberAccountInput): Promise<UserRow> {
  const moved = input.email !== member.email;
  if (moved) {
    const other = await repo.findUserByEmail(ctx.db, input.email);
    if (other && other.id !== member.id) throw conflict(MSG.emailTaken);
  }
  try {
    return await repo.updateUser(ctx.db, member.id, { ...input, ...(moved ? { emailVerified: false } : {}), version: newVersion() });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(MSG.emailTaken);
    throw err;
  }
}

/**
 * A courier takes their account over through an invitation link (decision 097): their own password, the address
 * verified, and, since the owner knew the old password, every session ended and the API key replaced.
 */
export async function claimMemberAccount(ctx: AppContext, db: Queryable, memberId: string, password: string): Promise<UserRow> {
  const apiKey = newApiKey();
  const user = await repo.updateUser(db, memberId, {
    passwordHash: await hashPassword(password),
    emailVerified: true,
    apiKeyHash: hashToken(apiKey),
    apiKeyEnc: encrypt(ctx.config.sessionSecret, apiKey),
    version: newVersion(),
  });
  await repo.revokeUserSessions(db, memberId, ctx.now());
  return user;
}

/** A courier who accepted an invitation is signed in, as after a login. */
export const startInvitedSession = (ctx: AppContext, u: UserRow, meta: RequestMeta): Promise<SessionPayload> => startSession(ctx, u, meta);

/** An account a company made on this address with a password it chose, never confirmed by the address's owner. */
export const isUnclaimedCourier = (u: UserRow): boolean => u.role === 'courier' && !u.emailVerified && !!u.companyId;
