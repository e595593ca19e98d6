// An import's batch on the embedded database holds its only session from BEGIN to COMMIT, one round trip between the
// threads per statement, and a person's list waits for the batch in progress (decision 178): the batch's charges are
// booked, announced and followed up in one statement, as a single charge is (decision 093), not in five.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alerts, ledgerEntries } from '../../src/db/schema.ts';
import { balanceCents, ledgerSumCents } from '../../src/modules/billing/billing.service.ts';
import { call, createTestEnv, onPostgres, signUp, type TestEnv } from '../helpers.ts';
import { userRow } from '../notifications/fixtures.ts';

describe.skipIf(onPostgres)('an import on the embedded database, counted in statements', () => {
  let env: TestEnv;
  let dir: string;
  beforeAll(async () => {
    // A data directory: PGlite in its own thread (decision 115), whose stats count each transaction's statements.
    dir = await mkdtemp(path.join(os.tmpdir(), 'shiptrail-import-'));
    env = await createTestEnv({ DATA_DIR: dir });
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('an import batch runs 5 statements in its transaction, and its charges, balance and low-balance alert are as before', async () => {
    const thread = env.ctx.database.thread;
    expect(thread).toBeDefined();
    const a = await signUp(env.app);
    const user = await userRow(env.ctx, a.email);
    const before = await balanceCents(env.ctx.db, user.id);
    // 120 rows: batches of 50, 50 and 20, at 5 cents each; the last one takes the balance under the $5.00 alert line.
    const rows = Array.from({ length: 120 }, (_, i) => `1ZIMPSTMT${String(i).padStart(8, '0')},ups`);

    await thread!.stats(true);
    const res = await call(env.app, 'POST', '/v1/trackings/import', {
      token: a.apiKey,
      body: ['tid,courier', ...rows].join('\n'),
      headers: { 'content-type': 'text/csv' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body.payload).toMatchObject({ created: 120, failed: 0 });
    const { transactionStatements } = await thread!.stats(true);
    // The account's lock, its balance, the trackings, the charges (entries, balance, its live event, the recharge and
    // the alert: they were five statements) and the first refresh's job.
    expect(transactionStatements).toMatchObject({ n: 3, max: 5 });

    expect(await balanceCents(env.ctx.db, user.id)).toBe(before - 120 * 5);
    expect(await ledgerSumCents(env.ctx.db, user.id)).toBe(before - 120 * 5);
    const charges = await env.ctx.db
      .select({ ref: ledgerEntries.ref })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, user.id), eq(ledgerEntries.kind, 'tracking')));
    expect(charges).toHaveLength(120);
    const low = await env.ctx.db
      .select({ message: alerts.message })
      .from(alerts)
      .where(and(eq(alerts.userId, user.id), eq(alerts.name, 'lowBalance')));
    expect(low).toEqual([
      { message: `Your balance is $${((before - 600) / 100).toFixed(2)}, under $5.00. Please add balance so your alerts keep running.` },
    ]);
  });
});
