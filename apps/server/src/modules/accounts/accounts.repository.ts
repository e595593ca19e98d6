import { and, count, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.ts';
import { emailKeys, messages, oauthStates, referrals, sessions, shipments, trackings, users } from '../../db/schema.ts';
import { hashToken } from './tokens.ts';
import { announceUserChanged } from '../../lib/auth-signal.ts';

export type UserRow = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const [u] = await db.select().from(users).where(eq(users.email, email.toLowerCase())).limit(1);
  return u;
}
export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  const [u] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return u;
}
export async function findUserByUid(db: Queryable, uid: string): Promise<UserRow | undefined> {
  const [u] = await db.select().from(users).where(eq(users.uid, uid)).limit(1);
  return u;
}
export async function findUserByGoogleSub(db: Queryable, sub: string): Promise<UserRow | undefined> {
  const [u] = await db.select().from(users).where(eq(users.googleSub, sub)).limit(1);
  return u;
}
export async function findUserByReferral(db: Queryable, code: string): Promise<UserRow | undefined> {
  const [u] = await db
    .select()
    .from(users)
    .where(sql`${users.referralCode} = ${code} or ${users.uid} = ${code}`)
    .limit(1);
  return u;
}
/** The account whose API key hashes to `keyHash` (hashToken of the key). */
export async function findUserByApiKeyHash(db: Queryable, keyHash: string): Promise<UserRow | undefined> {
  const [u] = await db.select().from(users).where(eq(users.apiKeyHash, keyHash)).limit(1);
  return u;
}

export async function insertUser(db: Queryable, values: NewUser): Promise<UserRow> {
  const [u] = await db.insert(users).values(values).returning();
  return u!;
}
export async function updateUser(db: Queryable, id: string, values: Partial<NewUser>): Promise<UserRow> {
  const [u] = await db
    .update(users)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(users.id, id))
    .returning();
  await announceUserChanged(db, id);
  return u!;
}

// ---- sessions
export async function insertSession(
  db: Queryable,
  userId: string,
  token: string,
  expiresAt: Date,
  meta: { ip?: string; userAgent?: string },
) {
  await db
    .insert(sessions)
    .values({ userId, tokenHash: hashToken(token), expiresAt, ip: meta.ip, userAgent: meta.userAgent?.slice(0, 300) });
}
/** The live session whose token hashes to `tokenHash` (hashToken of the token), with its account. */
export async function findSessionByHash(
  db: Queryable,
  tokenHash: string,
  now: Date,
): Promise<{ user: UserRow; sessionId: string; expiresAt: Date } | null> {
  const rows = await db
    .select({ user: users, sessionId: sessions.id, expiresAt: sessions.expiresAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
    .limit(1);
  return rows[0] ?? null;
}
/** Whether the account ever had a session from this address (its owner's usual device or network). */
export async function hadSessionFrom(db: Queryable, userId: string, ip: string): Promise<boolean> {
  const [r] = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.userId, userId), eq(sessions.ip, ip)))
    .limit(1);
  return !!r;
}
export async function revokeSession(db: Queryable, sessionId: string, now: Date) {
  const [r] = await db.update(sessions).set({ revokedAt: now }).where(eq(sessions.id, sessionId)).returning({ userId: sessions.userId });
  if (r) await announceUserChanged(db, r.userId);
}
export async function revokeUserSessions(db: Queryable, userId: string, now: Date, keepSessionId?: string | null) {
  const keep = keepSessionId ? [ne(sessions.id, keepSessionId)] : [];
  await db
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), ...keep));
  await announceUserChanged(db, userId);
}

// ---- single-use email keys
export async function insertEmailKey(db: Queryable, userId: string, purpose: 'verify' | 'reset', key: string, expiresAt: Date) {
  await db.insert(emailKeys).values({ keyHash: hashToken(key), userId, purpose, expiresAt });
}
/** Marks the key used and returns its user id, atomically: a key works once, and only before it expires. */
export async function consumeEmailKey(db: Queryable, purpose: 'verify' | 'reset', key: string, now: Date): Promise<string | null> {
  const [row] = await db
    .update(emailKeys)
    .set({ usedAt: now })
    .where(
      and(eq(emailKeys.keyHash, hashToken(key)), eq(emailKeys.purpose, purpose), isNull(emailKeys.usedAt), gt(emailKeys.expiresAt, now)),
    )
    .returning({ userId: emailKeys.userId });
  return row?.userId ?? null;
}
export async function expireEmailKeys(db: Queryable, userId: string, purpose: 'verify' | 'reset', now: Date) {
  await db
    .update(emailKeys)
    .set({ usedAt: now })
    .where(and(eq(emailKeys.userId, userId), eq(emailKeys.purpose, purpose), isNull(emailKeys.usedAt)));
}

// ---- oauth
export async function insertOAuthState(db: Queryable, v: typeof oauthStates.$inferInsert) {
  await db.insert(oauthStates).values(v);
}
export async function takeOAuthState(db: Queryable, state: string) {
  const [row] = await db.delete(oauthStates).where(eq(oauthStates.state, state)).returning();
  return row;
}

// ------------------------------------------------------------------ dashboard counts
export async function trackingCountsByStatus(db: Queryable, userId: string): Promise<Array<{ status: string; n: number }>> {
  return db.select({ status: trackings.status, n: count() }).from(trackings).where(eq(trackings.userId, userId)).groupBy(trackings.status);
}
export async function countShipments(db: Queryable, by: { companyId: string } | { courierId: string }): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(shipments)
    .where('courierId' in by ? eq(shipments.courierId, by.courierId) : eq(shipments.companyId, by.companyId));
  return Number(row?.n ?? 0);
}

// ------------------------------------------------------------------ messages and referrals
export type NewMessage = typeof messages.$inferInsert;
export async function insertMessage(db: Queryable, m: NewMessage): Promise<void> {
  await db.insert(messages).values(m);
}
/** Records an invitation once per inviter and address; a repeat is a no-op. */
export async function addInvitation(db: Queryable, inviterId: string, email: string): Promise<void> {
  const [existing] = await db
    .select({ id: referrals.id })
    .from(referrals)
    .where(and(eq(referrals.inviterId, inviterId), eq(referrals.email, email)))
    .limit(1);
  if (!existing) await db.insert(referrals).values({ inviterId, email });
}
/** Ties a new account to the inviter's referral row, creating it when the invitation was never mailed. */
export async function linkReferral(db: Queryable, inviterId: string, email: string, invitedUserId: string): Promise<void> {
  await db
    .insert(referrals)
    .values({ inviterId, email, invitedUserId })
    .onConflictDoUpdate({ target: [referrals.inviterId, referrals.email], set: { invitedUserId } });
}
