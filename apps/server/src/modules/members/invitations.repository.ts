import { and, desc, eq, isNull, lte, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { courierInvitations, users } from '../../db/schema.ts';

export type InvitationRow = typeof courierInvitations.$inferSelect;
export type NewInvitation = typeof courierInvitations.$inferInsert;

export async function insertInvitation(db: Queryable, v: NewInvitation): Promise<InvitationRow> {
  const [row] = await db.insert(courierInvitations).values(v).returning();
  return row!;
}

/** A company's invitations to new couriers (not the confirmations of accounts made by addmember), newest first. */
export async function listInvitations(db: Queryable, companyId: string): Promise<InvitationRow[]> {
  return db
    .select()
    .from(courierInvitations)
    .where(and(eq(courierInvitations.companyId, companyId), isNull(courierInvitations.memberId)))
    .orderBy(desc(courierInvitations.createdAt), desc(courierInvitations.id))
    .limit(500);
}

export async function findInvitation(db: Queryable, companyId: string, id: string): Promise<InvitationRow | undefined> {
  const [row] = await db
    .select()
    .from(courierInvitations)
    .where(and(eq(courierInvitations.id, id), eq(courierInvitations.companyId, companyId), isNull(courierInvitations.memberId)));
  return row;
}

export async function findByTokenHash(db: Queryable, tokenHash: string, forUpdate = false): Promise<InvitationRow | undefined> {
  const q = db.select().from(courierInvitations).where(eq(courierInvitations.tokenHash, tokenHash));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row;
}

/** The open confirmation of a member account (decision 097), if any. */
export async function findPendingForMember(db: Queryable, memberId: string): Promise<InvitationRow | undefined> {
  const [row] = await db
    .select()
    .from(courierInvitations)
    .where(and(eq(courierInvitations.memberId, memberId), eq(courierInvitations.state, 'pending')))
    .orderBy(desc(courierInvitations.createdAt))
    .limit(1);
  return row;
}

/** Pending invitations of this company and address whose link has expired: settled as expired, so a new one may open. */
export async function settleExpired(db: Queryable, companyId: string, email: string, now: Date): Promise<void> {
  await db
    .update(courierInvitations)
    .set({ state: 'expired', settledAt: now })
    .where(
      and(
        eq(courierInvitations.companyId, companyId),
        eq(courierInvitations.email, email),
        eq(courierInvitations.state, 'pending'),
        lte(courierInvitations.expiresAt, now),
      ),
    );
}

/** A new link for a pending invitation: the old hash is replaced, so the old link stops working. */
export async function renewToken(
  db: Queryable,
  id: string,
  tokenHash: string,
  now: Date,
  expiresAt: Date,
): Promise<InvitationRow | undefined> {
  const [row] = await db
    .update(courierInvitations)
    .set({ tokenHash, sentAt: now, expiresAt, sends: sql`${courierInvitations.sends} + 1` })
    .where(and(eq(courierInvitations.id, id), eq(courierInvitations.state, 'pending')))
    .returning();
  return row;
}

/** pending -> accepted / revoked / declined, once: returns the row only when this call settled it. */
export async function settle(
  db: Queryable,
  id: string,
  state: 'accepted' | 'revoked' | 'declined',
  now: Date,
): Promise<InvitationRow | undefined> {
  const [row] = await db
    .update(courierInvitations)
    .set({ state, settledAt: now })
    .where(and(eq(courierInvitations.id, id), eq(courierInvitations.state, 'pending')))
    .returning();
  return row;
}

export async function findAccount(db: Queryable, id: string) {
  const [u] = await db.select().from(users).where(eq(users.id, id));
  return u;
}
