import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../db/client.ts';
import { idempotencyKeys } from '../db/schema.ts';

export async function findIdempotent(db: Queryable, userId: string, route: string, key: string) {
  const [r] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key)))
    .limit(1);
  return r;
}
/** Reserve a key inside the request's transaction; false when another request holds (or held) it. */
export async function reserveIdempotent(db: Queryable, userId: string, route: string, key: string, requestHash: string): Promise<boolean> {
  const r = await db
    .insert(idempotencyKeys)
    .values({ userId, route, key, statusCode: 0, body: '', requestHash })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  return r.length > 0;
}
/** Keep the reply exactly as sent (its text), so a replay is byte for byte the first answer. */
export async function storeIdempotent(db: Queryable, userId: string, route: string, key: string, statusCode: number, text: string) {
  await db
    .update(idempotencyKeys)
    .set({ statusCode, body: text })
    .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.route, route), eq(idempotencyKeys.key, key)));
}
/** Keep a finished reply whose work ran outside a reserving transaction (a card sale); the first one kept wins. */
export async function keepIdempotent(
  db: Queryable,
  row: { userId: string; route: string; key: string; requestHash: string; statusCode: number; body: string },
) {
  await db.insert(idempotencyKeys).values(row).onConflictDoNothing();
}
