import {
  INVITATION_SENDS_PER_HOUR,
  INVITATION_TTL_DAYS,
  INVITE_MSG,
  MSG,
  PRICING,
  toE164,
  type InvitationState,
  type InvitationView,
  type PublicInvitation,
  type SessionPayload,
  type acceptInvitationRequest,
  type createInvitationRequest,
} from '@shiptrail/contract';
import type { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/client.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';
import { badRequest, conflict, notFound, tooMany } from '../../lib/errors.ts';
import { takeWindow } from '../../lib/attempts.repository.ts';
import {
  claimMemberAccount,
  createMemberAccount,
  isUnclaimedCourier,
  startInvitedSession,
  type RequestMeta,
  type UserRow,
} from '../accounts/accounts.service.ts';
import { charge, credit, InsufficientBalanceError } from '../billing/billing.service.ts';
import { raiseAlert } from '../alerts/alerts.service.ts';
import { publishLive } from '../live/live.service.ts';
import { smsGateway } from '../sms/sms.service.ts';
import { courierInvitation, courierInvitationSms } from './invitation-mails.ts';
import * as repo from './invitations.repository.ts';
import * as members from './members.repository.ts';
import { requireCompany } from './guards.ts';

// Courier invitations: docs/decisions/096-courier-invitations.md; accounts made by addmember: 097.

const TTL_MS = INVITATION_TTL_DAYS * 86400_000;
const HOUR_MS = 3600_000;
/** A sign-up or password recovery on an unclaimed courier address re-sends its link at most this often. */
const CLAIM_RESEND_MS = 10 * 60_000;

const stateOf = (row: repo.InvitationRow, now: Date): InvitationState =>
  row.state === 'pending' && row.expiresAt.getTime() <= now.getTime() ? 'expired' : (row.state as InvitationState);

export function invitationView(row: repo.InvitationRow, now: Date): InvitationView {
  return {
    id: row.id,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    phone: row.phone,
    state: stateOf(row, now),
    sentAt: row.sentAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    sends: row.sends,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The name that signs the invitation: the company's name, else its owner's. */
export const companyName = (c: UserRow): string => c.company.trim() || `${c.firstName} ${c.lastName}`.trim() || c.email;

const newToken = () => {
  const token = randomToken(32);
  return { token, tokenHash: sha256(token) };
};

function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e.code === '23505') return true;
  }
  return false;
}

/** Invitation mails and SMS a company sends are limited per hour (new invitations and resends together). */
async function takeSend(ctx: AppContext, companyId: string): Promise<{ ok: true } | { ok: false; waitMs: number }> {
  return takeWindow(ctx.db, `invite:company:${companyId}`, INVITATION_SENDS_PER_HOUR, HOUR_MS, ctx.now());
}
async function requireSend(ctx: AppContext, companyId: string) {
  const t = await takeSend(ctx, companyId);
  if (!t.ok) throw tooMany(INVITE_MSG.tooMany, t.waitMs / 1000);
}

export interface SendOutcome {
  /** null: no phone given; true: the SMS went out; false: not sent (the note says why). */
  sms: boolean | null;
  note: string | null;
}

/**
 * Mail the link, and text it when there is a phone. The SMS costs the company $0.04 like every SMS it sends
 * (notifications/delivery.ts): charged before the send, refunded if the provider refuses it; with too little
 * balance the mail still goes and the reply says the SMS did not.
 */
async function deliver(ctx: AppContext, company: UserRow, row: repo.InvitationRow, token: string): Promise<SendOutcome> {
  const link = `${ctx.config.publicUrl}/invite/${token}`;
  const name = companyName(company);
  await ctx.mailer.send({
    to: row.email,
    ...courierInvitation({ company: name, firstName: row.firstName, link, days: INVITATION_TTL_DAYS, existing: !!row.memberId }),
  });
  if (!row.phone) return { sms: null, note: null };
  const to = toE164(row.phone);
  const ref = `invitation:${row.id}:${row.sends}`;
  try {
    await ctx.db.transaction((tx) => charge(tx, company.id, PRICING.smsCents, 'sms', ref, `SMS to ${to} (courier invitation)`));
  } catch (err) {
    if (!(err instanceof InsufficientBalanceError)) throw err;
    return { sms: false, note: INVITE_MSG.smsNoBalance };
  }
  try {
    await smsGateway(ctx).send({ to, body: courierInvitationSms(name, link, INVITATION_TTL_DAYS) });
    return { sms: true, note: null };
  } catch (err) {
    ctx.log.warn({ err, invitation: row.id }, 'courier invitation SMS not sent');
    await credit(ctx.db, company.id, PRICING.smsCents, 'refund', ref, `SMS to ${to} not sent`);
    return { sms: false, note: 'The SMS could not be sent (refunded); the mail went out' };
  }
}

// ------------------------------------------------------------------ the owner's calls
export async function createInvitation(
  ctx: AppContext,
  company: UserRow,
  input: z.output<typeof createInvitationRequest>,
): Promise<{ view: InvitationView; outcome: SendOutcome }> {
  requireCompany(company);
  const existing = await members.findUserByEmail(ctx.db, input.email);
  if (existing) {
    if (existing.companyId === company.id && existing.role === 'courier') throw conflict('This address is already one of your couriers');
    throw conflict(MSG.emailTaken);
  }
  const now = ctx.now();
  await repo.settleExpired(ctx.db, company.id, input.email, now);
  await requireSend(ctx, company.id);
  const { token, tokenHash } = newToken();
  let row: repo.InvitationRow;
  try {
    row = await repo.insertInvitation(ctx.db, {
      companyId: company.id,
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      phone: input.phone ?? '',
      tokenHash,
      sentAt: now,
      expiresAt: new Date(now.getTime() + TTL_MS),
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(INVITE_MSG.alreadyInvited);
    throw err;
  }
  const outcome = await deliver(ctx, company, row, token);
  await publishLive(ctx.db, { kind: 'members', accountId: company.id });
  return { view: invitationView(row, now), outcome };
}

export async function listInvitations(ctx: AppContext, company: UserRow): Promise<InvitationView[]> {
  requireCompany(company);
  const now = ctx.now();
  return (await repo.listInvitations(ctx.db, company.id)).map((r) => invitationView(r, now));
}

/** A new link and a new expiry; the old link stops working. An expired invitation may be resent too. */
export async function resendInvitation(
  ctx: AppContext,
  company: UserRow,
  id: string,
): Promise<{ view: InvitationView; outcome: SendOutcome }> {
  requireCompany(company);
  const row = await repo.findInvitation(ctx.db, company.id, id);
  if (!row) throw notFound(INVITE_MSG.notFound);
  if (row.state !== 'pending') throw conflict(INVITE_MSG.notPending);
  await requireSend(ctx, company.id);
  const now = ctx.now();
  const { token, tokenHash } = newToken();
  const renewed = await repo.renewToken(ctx.db, row.id, tokenHash, now, new Date(now.getTime() + TTL_MS));
  if (!renewed) throw conflict(INVITE_MSG.notPending);
  const outcome = await deliver(ctx, company, renewed, token);
  await publishLive(ctx.db, { kind: 'members', accountId: company.id });
  return { view: invitationView(renewed, now), outcome };
}

export async function revokeInvitation(ctx: AppContext, company: UserRow, id: string): Promise<InvitationView> {
  requireCompany(company);
  const row = await repo.findInvitation(ctx.db, company.id, id);
  if (!row) throw notFound(INVITE_MSG.notFound);
  const now = ctx.now();
  const settled = await repo.settle(ctx.db, row.id, 'revoked', now);
  if (!settled) throw conflict(INVITE_MSG.notPending);
  await publishLive(ctx.db, { kind: 'members', accountId: company.id });
  return invitationView(settled, now);
}

// ------------------------------------------------------------------ the courier's side (public, by token)
function reasonOf(state: InvitationState): string | null {
  switch (state) {
    case 'pending':
      return null;
    case 'expired':
      return INVITE_MSG.expired;
    case 'accepted':
      return INVITE_MSG.used;
    case 'revoked':
      return INVITE_MSG.withdrawn;
    case 'declined':
      return INVITE_MSG.declined;
  }
}

async function byToken(db: Queryable, token: string, forUpdate = false): Promise<repo.InvitationRow> {
  const row = token.length <= 200 ? await repo.findByTokenHash(db, sha256(token), forUpdate) : undefined;
  if (!row) throw notFound(INVITE_MSG.linkInvalid);
  return row;
}

export async function viewInvitation(ctx: AppContext, token: string): Promise<PublicInvitation> {
  const row = await byToken(ctx.db, token);
  const company = await repo.findAccount(ctx.db, row.companyId);
  const state = stateOf(row, ctx.now());
  return {
    company: company ? companyName(company) : '',
    email: row.email,
    firstName: row.firstName,
    state,
    expiresAt: row.expiresAt.toISOString(),
    reason: reasonOf(state),
    existingAccount: !!row.memberId,
  };
}

/** Accept: the courier sets their password and is signed in; the address counts as verified (the link came by mail). */
export async function acceptInvitation(
  ctx: AppContext,
  input: z.output<typeof acceptInvitationRequest>,
  meta: RequestMeta,
): Promise<SessionPayload> {
  const now = ctx.now();
  const { user, companyId } = await ctx.db
    .transaction(async (tx) => {
      const row = await byToken(tx, input.token, true);
      const state = stateOf(row, now);
      if (state !== 'pending') throw badRequest(reasonOf(state)!, { token: reasonOf(state)! });
      const company = await repo.findAccount(tx, row.companyId);
      if (!company || company.userType !== 'company') throw badRequest(INVITE_MSG.withdrawn, { token: INVITE_MSG.withdrawn });
      await repo.settle(tx, row.id, 'accepted', now);
      const user = row.memberId
        ? await claimMemberAccount(ctx, tx, row.memberId, input.password)
        : await createMemberAccount(
            ctx,
            company,
            {
              email: row.email,
              firstName: row.firstName,
              lastName: row.lastName,
              phone: row.phone,
              password: input.password,
              verified: true,
            },
            tx,
          );
      return { user, companyId: company.id };
    })
    .catch((err: unknown) => {
      if (isUniqueViolation(err)) throw conflict(MSG.emailTaken);
      throw err;
    });
  await publishLive(ctx.db, { kind: 'members', accountId: companyId });
  return startInvitedSession(ctx, user, meta);
}

/**
 * Decline. For an account the company made on this address (decision 097) this releases the address: the
 * account is deleted (its shipments stay with the company, unassigned) and the company is told why.
 */
export async function declineInvitation(ctx: AppContext, token: string): Promise<void> {
  const now = ctx.now();
  const companyId = await ctx.db.transaction(async (tx) => {
    const row = await byToken(tx, token, true);
    const state = stateOf(row, now);
    // An expired confirmation still releases an unclaimed address: the owner of the mailbox asked.
    if (state !== 'pending' && !(state === 'expired' && row.memberId)) throw badRequest(reasonOf(state)!, { token: reasonOf(state)! });
    await repo.settle(tx, row.id, 'declined', now);
    if (row.memberId) {
      const member = await repo.findAccount(tx, row.memberId);
      if (member && isUnclaimedCourier(member)) {
        await members.deleteMember(tx, row.companyId, member.id);
        await raiseAlert(tx, row.companyId, {
          group: 'general',
          name: 'courierReleased',
          level: 'warning',
          message: `${row.email} said they are not your courier: the courier account you made for that address was removed and its shipments are unassigned. Invite your courier by email instead.`,
        });
      }
    }
    return row.companyId;
  });
  await publishLive(ctx.db, { kind: 'members', accountId: companyId });
}

// ------------------------------------------------------------------ accounts made by addmember (decision 097)
/**
 * Mail the address of a courier account the company made with its own password: set your own password, or
 * "this is not me" to release the address. `force` is false when a stranger's sign-up or recovery asks: then
 * at most one mail per CLAIM_RESEND_MS per account.
 */
export async function offerClaim(ctx: AppContext, member: UserRow, opts: { force: boolean }): Promise<void> {
  if (!isUnclaimedCourier(member)) return;
  const company = await repo.findAccount(ctx.db, member.companyId!);
  if (!company) return;
  const now = ctx.now();
  const open = await repo.findPendingForMember(ctx.db, member.id);
  if (open && open.email !== member.email) await repo.settle(ctx.db, open.id, 'revoked', now);
  const current = open && open.email === member.email ? open : undefined;
  if (current && !opts.force && now.getTime() - current.sentAt.getTime() < CLAIM_RESEND_MS) return;
  // The owner's calls (addmember, updatemember) count against the company's hourly sends but keep working when
  // it is spent; the address can still be claimed later through sign-up or recovery, which do not count (a
  // stranger must not spend the company's budget) and are bounded by CLAIM_RESEND_MS instead.
  if (opts.force && !(await takeSend(ctx, company.id)).ok) {
    ctx.log.warn({ company: company.id }, 'courier claim mail skipped: invitation sends per hour reached');
    return;
  }
  const { token, tokenHash } = newToken();
  const row = current
    ? await repo.renewToken(ctx.db, current.id, tokenHash, now, new Date(now.getTime() + TTL_MS))
    : await repo.insertInvitation(ctx.db, {
        companyId: company.id,
        memberId: member.id,
        email: member.email,
        firstName: member.firstName,
        lastName: member.lastName,
        tokenHash,
        sentAt: now,
        expiresAt: new Date(now.getTime() + TTL_MS),
      });
  if (!row) return;
  // Mail only: an SMS would charge the company for a stranger's request.
  await deliver(ctx, company, { ...row, phone: '' }, token);
}
