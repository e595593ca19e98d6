import type { z } from 'zod';
import {
  POSITION_FRESH_MS,
  POSITION_SHARE_EVERY_MS,
  POSITION_TRAIL_KEEP_DAYS,
  type MemberView,
  type addMemberRequest,
  type deleteMemberRequest,
  type updateMemberRequest,
} from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/client.ts';
import { forbidden, notFound } from '../../lib/errors.ts';
import { createMemberAccount, updateMemberAccount, type UserRow } from '../accounts/accounts.service.ts';
import * as repo from './members.repository.ts';
import { publishLive } from '../live/live.service.ts';
import { offerClaim } from './invitations.service.ts';

export const MEMBER_NOT_FOUND = 'This courier is not one of your members';
import { requireCompany } from './guards.ts';
export { COMPANY_ONLY, requireCompany } from './guards.ts';

function geoOf(m: UserRow): MemberView['geo'] {
  const lat = m.geoLat == null ? NaN : Number(m.geoLat);
  const lng = m.geoLng == null ? NaN : Number(m.geoLng);
  return Number.isFinite(lat) && Number.isFinite(lng) ? { lat, lng } : null;
}

export function memberView(m: UserRow, open = 0): MemberView {
  return {
    uid: m.uid,
    email: m.email,
    role: 'courier',
    firstName: m.firstName,
    lastName: m.lastName,
    phone: m.phone,
    geo: geoOf(m),
    geoAt: m.geoAt?.toISOString() ?? null,
    openShipments: open,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

export async function listMembers(ctx: AppContext, company: UserRow): Promise<MemberView[]> {
  requireCompany(company);
  const rows = await repo.listMembers(ctx.db, company.id);
  const open = await repo.openShipmentCounts(
    ctx.db,
    rows.map((r) => r.id),
  );
  return rows.map((m) => memberView(m, open.get(m.id) ?? 0));
}

export async function addMember(ctx: AppContext, company: UserRow, input: z.output<typeof addMemberRequest>): Promise<MemberView> {
  requireCompany(company);
  // The old API keeps working (the courier signs in with this password at once), but the account is unverified
  // and its address is mailed a link to take it over or release it (docs/decisions/097-owner-made-courier-accounts.md).
  const m = await createMemberAccount(ctx, company, {
    email: input.email,
    firstName: input.firstName,
    lastName: input.lastName,
    phone: input.phone,
    password: input.password,
    verified: false,
  });
  await offerClaim(ctx, m, { force: true });
  await publishLive(ctx.db, { kind: 'members', accountId: company.id });
  return memberView(m);
}

export async function updateMember(ctx: AppContext, company: UserRow, input: z.output<typeof updateMemberRequest>): Promise<MemberView> {
  requireCompany(company);
  const m = await repo.findMember(ctx.db, company.id, input.uid ? { uid: input.uid } : { email: input.email });
  if (!m) throw notFound(MEMBER_NOT_FOUND);
  const updated = await updateMemberAccount(ctx, m, {
    email: input.email,
    firstName: input.firstName,
    lastName: input.lastName,
    phone: input.phone,
  });
  if (updated.email !== m.email) await offerClaim(ctx, updated, { force: true });
  await publishLive(ctx.db, { kind: 'members', accountId: company.id });
  const open = await repo.openShipmentCounts(ctx.db, [m.id]);
  return memberView(updated, open.get(m.id) ?? 0);
}

export async function deleteMember(ctx: AppContext, company: UserRow, input: z.output<typeof deleteMemberRequest>): Promise<void> {
  requireCompany(company);
  const m = await repo.findMember(ctx.db, company.id, 'uid' in input && input.uid ? { uid: input.uid } : { email: input.email });
  await ctx.db.transaction(async (tx) => {
    if (!m || !(await repo.deleteMember(tx, company.id, m.id))) throw notFound(MEMBER_NOT_FOUND);
    await publishLive(tx, { kind: 'members', accountId: company.id });
  });
}

/** A courier's last known position (the couriers map); set by their checkpoints with coordinates too. */
/**
 * A courier's position, taken at `takenAt` (now when not given; a phone's clock ahead of the server's counts as
 * now). A fix older than POSITION_FRESH_MS is stored for the map only if it is the newest, and is never shared
 * with recipients: it says nothing of where the courier is now (decision 128).
 */
export async function setPosition(
  ctx: AppContext,
  user: UserRow,
  lat: number,
  lng: number,
  takenAt?: Date,
  db: Queryable = ctx.db,
): Promise<{ shared: boolean; at: Date }> {
  if (user.role !== 'courier') throw forbidden('Only couriers report a position');
  const now = ctx.now();
  const at = takenAt && takenAt < now ? takenAt : now;
  const shareable = now.getTime() - at.getTime() <= POSITION_FRESH_MS;
  const { stored, shared } = await repo.setPosition(db, user.id, lat, lng, { takenAt: at, now, shareable }, POSITION_SHARE_EVERY_MS);
  if (stored && user.companyId) await publishLive(db, { kind: 'position', accountId: user.companyId, courierId: user.id });
  return { shared, at };
}

/** The most positions one trail answer holds (a day at one every 30 s is under 3,000). */
export const TRAIL_READ_MAX = 5000;

/**
 * Add a courier's positions to their trail, each with the time it was taken (a time ahead of the server's clock
 * counts as now, as for the last position); resolves with how many were new and the newest (decision 149).
 */
export async function addToTrail(
  ctx: AppContext,
  user: UserRow,
  fixes: Array<{ lat: number; lng: number; takenAt?: Date }>,
  db: Queryable = ctx.db,
): Promise<{ added: number; newest: { lat: number; lng: number; takenAt: Date } | null }> {
  if (user.role !== 'courier') throw forbidden('Only couriers report a position');
  const now = ctx.now();
  const kept = fixes
    .map((f) => ({ lat: f.lat, lng: f.lng, takenAt: f.takenAt && f.takenAt < now ? f.takenAt : now }))
    .sort((a, b) => a.takenAt.getTime() - b.takenAt.getTime());
  // The same time twice in one batch is one fix (the first), as it would be across two batches.
  const once = kept.filter((f, i) => i === 0 || f.takenAt.getTime() !== kept[i - 1]!.takenAt.getTime());
  const added = await repo.addToTrail(db, user.id, once);
  await repo.pruneTrail(db, user.id, new Date(now.getTime() - POSITION_TRAIL_KEEP_DAYS * 86_400_000));
  return { added, newest: once.at(-1) ?? null };
}

/** The courier's last position as stored (the newest by the time it was taken). */
export const lastPositionOf = (ctx: AppContext, user: UserRow, db: Queryable = ctx.db) => repo.lastPositionOf(db, user.id);

/** Where one of the company's couriers went since `since` (the last 24 hours by default), oldest first. */
export async function trailOf(ctx: AppContext, owner: UserRow, uid: string, since?: Date) {
  requireCompany(owner);
  const m = await repo.findMember(ctx.db, owner.id, { uid });
  if (!m) throw notFound(MEMBER_NOT_FOUND);
  const from = since ?? new Date(ctx.now().getTime() - 86_400_000);
  const rows = await repo.trailOf(ctx.db, m.id, from, TRAIL_READ_MAX);
  return rows.map((r) => ({ lat: r.lat, lng: r.lng, takenAt: r.takenAt.toISOString() }));
}

/** The members module's answer to "which member of this company has this email?" (shipments assign by email). */
export async function findCourierByEmail(ctx: AppContext, companyId: string, email: string): Promise<UserRow | undefined> {
  return repo.findMember(ctx.db, companyId, { email });
}

/** The company's couriers, oldest first (Plan the day plans for them). */
export async function couriersOf(ctx: AppContext, companyId: string, db: Queryable = ctx.db): Promise<UserRow[]> {
  return repo.listMembers(db, companyId);
}
