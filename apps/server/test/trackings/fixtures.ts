import { eq } from 'drizzle-orm';
import type { TestEnv } from '../helpers.ts';
import { call } from '../helpers.ts';
import { ledgerEntries, users } from '../../src/db/schema.ts';
import { insertEntryOnce } from '../../src/modules/billing/billing.repository.ts';
import type { TrackResult } from '../../src/modules/carriers/types.ts';
import type { TrackingStatus } from '@shiptrail/contract';

// Sandbox example numbers with valid check digits (docs/carriers.md): the journey each one plays is fixed.
export const EX = {
  ups: {
    delivered: '1Z5R89390350075608',
    failAttempt: '1Z5R89390350075626',
    exception: '1Z5R89390350075813',
    notFound: '1Z5R89390350075653',
  },
  usps: { delivered: '9400111206206406260015', notFound: '9400111206206406260251' },
  fedex: { delivered: '986578788800', notFound: '986578788925' },
  canadapost: { delivered: '0073938000549204' },
} as const;

export async function userIdOf(env: TestEnv, email: string): Promise<string> {
  const [u] = await env.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return u!.id;
}

/** Spend the sign-up bonus down to `leftCents` (a ledger debit, as a real spend would be). */
export async function setBalance(env: TestEnv, email: string, leftCents: number) {
  const userId = await userIdOf(env, email);
  const info = await balanceCents(env, userId);
  await insertEntryOnce(env.ctx.db, {
    userId,
    amountCents: leftCents - info,
    kind: 'refund',
    ref: `adjust-${Date.now()}-${Math.random()}`,
    description: '',
  });
}

export async function balanceCents(env: TestEnv, userId: string): Promise<number> {
  const rows = await env.ctx.db.select({ a: ledgerEntries.amountCents }).from(ledgerEntries).where(eq(ledgerEntries.userId, userId));
  return rows.reduce((s, r) => s + r.a, 0);
}

export async function add(env: TestEnv, token: string, body: Record<string, unknown>, headers?: Record<string, string>) {
  return call(env.app, 'POST', '/v1/trackings/add', { token, body, headers });
}

export async function list(env: TestEnv, token: string, query = '') {
  return call(env.app, 'GET', `/v1/trackings/get${query}`, { token });
}

/**
 * Runs `fn` while the carrier answers every number asked at once with `status` and one scan, as a carrier answering
 * a whole refresh batch does; the carrier client is put back after.
 */
export async function whileCarrierAnswersAll<T>(env: TestEnv, fn: () => Promise<T>, status: TrackingStatus = 'InTransit'): Promise<T> {
  const rt = env.ctx.resources.carriers!;
  const track = rt.client.track;
  rt.client.track = async (courier, asked): Promise<TrackResult[]> =>
    asked.map((tid) => ({
      ok: true,
      tid,
      courier,
      status,
      checkpoints: [{ status, location: 'Memphis, TN', message: 'Departed', time: '2026-11-20T10:00:00Z' }],
      expected: null,
      origin: null,
      destination: null,
    }));
  try {
    return await fn();
  } finally {
    rt.client.track = track;
  }
}
