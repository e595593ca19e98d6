// The add's charge: one statement that locks the account, checks and moves the balance, books the entry, stores
// the tracking and writes the low-balance follow-ups. On PostgreSQL the requests below really race (a pool of
// connections); the balance must never go under zero, every 201 is one tracking and one entry, and the kept
// balance stays the ledger's sum while credits and batch charges (which take the account lock the same way) run
// beside them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq, sql } from 'drizzle-orm';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { alerts, ledgerEntries, payments, trackings } from '../../src/db/schema.ts';
import { balanceCents, bookCharges, credit, ledgerSumCents, lockAccount } from '../../src/modules/billing/billing.service.ts';
import { add, setBalance, userIdOf } from '../trackings/fixtures.ts';
import { BUS_CHANNEL } from '../../src/lib/bus.ts';
import { addAloneStatement, addStatement } from '../../src/modules/trackings/trackings.service.ts';
import pg from 'pg';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

const countOf = async (table: typeof trackings | typeof ledgerEntries, userId: string) => {
  const [r] = await env.ctx.db.select({ n: count() }).from(table).where(eq(table.userId, userId));
  return Number(r!.n);
};

describe('the charge of an add', () => {
  it('racing adds, credits and batch charges: never under zero, one tracking and one entry per 201, balance = ledger sum', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    await setBalance(env, a.email, 200); // 40 adds of 5
    const ops: Array<Promise<unknown>> = [];
    const codes: number[] = [];
    for (let i = 0; i < 60; i++) {
      ops.push(add(env, a.apiKey, { tid: `RACE${1000000 + i}`, courier: 'ups' }).then((r) => codes.push(r.statusCode)));
      if (i % 10 === 0) ops.push(credit(env.ctx.db, id, 1, 'promo', `race-p-${i}`));
      if (i % 15 === 0)
        ops.push(
          env.ctx.db
            .transaction(async (tx) => {
              await lockAccount(tx, id);
              if ((await balanceCents(tx, id)) < 4) throw new Error('short');
              await bookCharges(tx, id, 2, 'sms', [
                { ref: `race-b-${i}-1`, description: '' },
                { ref: `race-b-${i}-2`, description: '' },
              ]);
            })
            .catch(() => undefined),
        );
    }
    await Promise.all(ops);
    const paid = codes.filter((c) => c === 201).length;
    expect(codes.filter((c) => c !== 201 && c !== 402)).toEqual([]);
    const kept = await balanceCents(env.ctx.db, id);
    expect(kept).toBeGreaterThanOrEqual(0);
    expect(kept).toBe(await ledgerSumCents(env.ctx.db, id));
    const [tr] = await env.ctx.db
      .select({ n: count() })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, id), eq(ledgerEntries.kind, 'tracking')));
    expect(await countOf(trackings, id)).toBe(paid);
    expect(Number(tr!.n)).toBe(paid);
    // 200 + 6 promos of 1 covers at most 41 adds; with the batch charges, fewer, and the money ran out.
    expect(paid).toBeGreaterThan(30);
    expect(paid).toBeLessThanOrEqual(41);
    expect(kept).toBeLessThan(5);
  });

  it('the add that crosses under $5 raises the low-balance alert once; the ones after it do not', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    await setBalance(env, a.email, 508);
    for (const tid of ['LOWB1000001', 'LOWB1000002', 'LOWB1000003'])
      expect((await add(env, a.apiKey, { tid, courier: 'ups' })).statusCode).toBe(201);
    const raised = await env.ctx.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.userId, id), eq(alerts.name, 'lowBalance')));
    // 508 -> 503 -> 498 (crosses) -> 493
    expect(raised.map((r) => r.message)).toEqual(['Your balance is $4.98, under $5.00. Please add balance so your alerts keep running.']);
    expect(await balanceCents(env.ctx.db, id)).toBe(493);
  });

  it('with automatic recharge on, the add that goes under the minimum schedules one recharge', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    await setBalance(env, a.email, 1004);
    await env.ctx.db.execute(sql`
      update billing_accounts set auto_recharge_cents = 2000, minimum_balance_cents = 1000, payment_method_token = 'tok-add-charge', card_type = 'Visa', masked_number = '411111******1111'
      where user_id = ${id}::uuid`);
    for (const tid of ['AUTOR1000001', 'AUTOR1000002']) expect((await add(env, a.apiKey, { tid, courier: 'ups' })).statusCode).toBe(201);
    const pending = await env.ctx.db
      .select()
      .from(payments)
      .where(and(eq(payments.userId, id), eq(payments.kind, 'auto_recharge')));
    expect(pending.map((p) => [p.status, p.amountCents])).toEqual([['pending', 2000]]);
    const raised = await env.ctx.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.userId, id), eq(alerts.name, 'lowBalance')));
    expect(raised.map((r) => r.message)).toEqual(['Your balance is $9.99, under $10.00. An automatic recharge of $20.00 is on its way.']);
  });

  it('the add sends its statement built once: a second add assembles no statement text (decision 187)', async () => {
    const a = await signUp(env.app);
    expect((await add(env, a.apiKey, { tid: 'ONCE1000001', courier: 'ups' })).statusCode).toBe(201);
    const dialect = (env.ctx.db as unknown as { dialect: { sqlToQuery: (q: unknown) => { sql: string } } }).dialect;
    const original = dialect.sqlToQuery;
    const assembled: string[] = [];
    dialect.sqlToQuery = function (this: unknown, q: unknown) {
      const r = original.call(this, q);
      assembled.push(r.sql);
      return r;
    };
    try {
      expect((await add(env, a.apiKey, { tid: 'ONCE1000002', courier: 'ups' })).statusCode).toBe(201);
    } finally {
      dialect.sqlToQuery = original;
    }
    expect(assembled.filter((text) => text.includes('charge_paid'))).toEqual([]);
  });

  it("each add binds its own values: the charge's entry, the alert's key and three messages with new ids", async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    await setBalance(env, a.email, 503);
    const got: Array<{ topic: string; id: string; data: Record<string, unknown> }> = [];
    const stops = (['live', 'jobs'] as const).map((topic) => env.ctx.bus.subscribe(topic, (m) => got.push(m)));
    try {
      for (const tid of ['BIND1000001', 'BIND1000002']) expect((await add(env, a.apiKey, { tid, courier: 'ups' })).statusCode).toBe(201);
      await expect.poll(() => got.filter((m) => m.data.accountId === id || m.topic === 'jobs').length).toBeGreaterThanOrEqual(6);
    } finally {
      for (const stop of stops) stop();
    }
    const rows = await env.ctx.db.select().from(trackings).where(eq(trackings.userId, id)).orderBy(trackings.tid);
    const entries = await env.ctx.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, id), eq(ledgerEntries.kind, 'tracking')));
    expect(entries.map((e) => [e.ref, e.description, e.amountCents]).sort()).toEqual(
      rows.map((t) => [t.id, `Tracking ${t.tid}`, -5]).sort(),
    );
    // 503 -> 498 crosses under $5 with the first add: its alert's key names that add's tracking.
    const [alert] = await env.ctx.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.userId, id), eq(alerts.name, 'lowBalance')));
    expect(alert!.dedupeKey).toBe(`low-balance:tracking:${rows[0]!.id}`);
    // The last four of the account's: setBalance's own balance message may reach a PostgreSQL listener after the subscribe.
    const mine = got.filter((m) => m.data.accountId === id).slice(-4);
    expect(mine.map((m) => [m.data.kind, m.data.trackingId ?? null])).toEqual([
      ['balance', null],
      ['tracking', rows[0]!.id],
      ['balance', null],
      ['tracking', rows[1]!.id],
    ]);
    expect(got.some((m) => m.topic === 'jobs' && m.data.queue === 'tracking-refresh-scheduler')).toBe(true);
    expect(new Set(got.map((m) => m.id)).size).toBe(got.length);
  });

  it('sends its three messages in one notification, which every listener dispatches as three (decision 187)', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    // The channel as the server delivers it: each notification's raw text.
    const raw: string[] = [];
    const unlisten = await listenRaw((payload) => raw.push(payload));
    const got: string[] = [];
    const stops = (['live', 'jobs'] as const).map((topic) =>
      env.ctx.bus.subscribe(topic, (m) => {
        if (m.topic === 'jobs' || m.data.accountId === id) got.push(`${m.topic}:${String(m.data.kind ?? m.data.queue)}`);
      }),
    );
    try {
      expect((await add(env, a.apiKey, { tid: 'ONEN1000001', courier: 'ups' })).statusCode).toBe(201);
      await expect.poll(() => got.length).toBeGreaterThanOrEqual(3);
      await expect.poll(() => raw.filter((p) => p.includes(id)).length).toBe(1);
    } finally {
      for (const stop of stops) stop();
      await unlisten();
    }
    expect(got).toEqual(['live:balance', 'live:tracking', 'jobs:tracking-refresh-scheduler']);
    const mine = JSON.parse(raw.find((p) => p.includes(id))!) as Array<{ topic: string; id: string }>;
    expect(mine.map((m) => m.topic)).toEqual(['live', 'live', 'jobs']);
  });
});

describe('the messages of adds that commit alone (decision 190)', () => {
  it('ten adds at once: each message once, in at most one notification per add, each sent after its add committed', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    const raw: string[] = [];
    const unlisten = await listenRaw((payload) => raw.push(payload));
    // A tracking event's row must be there when a page refetches on it: read it as the event arrives.
    const seen: Array<Promise<boolean>> = [];
    const stop = env.ctx.bus.subscribe('live', (m) => {
      if (m.data.accountId !== id || m.data.kind !== 'tracking') return;
      seen.push(
        env.ctx.db
          .select({ id: trackings.id })
          .from(trackings)
          .where(eq(trackings.id, String(m.data.trackingId)))
          .then((r) => r.length === 1),
      );
    });
    try {
      const codes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => add(env, a.apiKey, { tid: `SOON${1000001 + i}`, courier: 'ups' }).then((r) => r.statusCode)),
      );
      expect(codes).toEqual(Array(10).fill(201));
      await expect.poll(() => seen.length).toBe(10);
    } finally {
      stop();
      await unlisten();
    }
    expect(await Promise.all(seen)).toEqual(Array(10).fill(true));
    const mine = raw
      .filter((p) => p.includes(id))
      .map((p) => JSON.parse(p) as Array<{ id: string; data: { kind?: string; accountId?: string } }>);
    const messages = mine.flat().filter((m) => m.data.accountId === id);
    expect(messages.filter((m) => m.data.kind === 'tracking')).toHaveLength(10);
    expect(messages.filter((m) => m.data.kind === 'balance')).toHaveLength(10);
    expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
    // How many notifications the ten adds share depends on how their commits fall in time; that messages of one moment
    // go in one notification is the test below ("messages sent in one moment ...").
    expect(mine.length).toBeLessThanOrEqual(10);
  });

  it("an add alone leaves its messages to the bus's sendSoon, not to its statement", async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    const sent: Array<Array<{ topic: string; data: Record<string, unknown> }>> = [];
    const bus = env.ctx.bus;
    const original = bus.sendSoon;
    bus.sendSoon = (messages) => {
      sent.push(messages);
      original(messages);
    };
    const delivered: string[] = [];
    const stop = bus.subscribe('live', (m) => m.data.accountId === id && delivered.push(String(m.data.kind)));
    try {
      expect((await add(env, a.apiKey, { tid: 'SOON2000001', courier: 'ups' })).statusCode).toBe(201);
      // Sent soon after: the listener hears them (and the next test's moment does not share them).
      await expect.poll(() => delivered).toEqual(['balance', 'tracking']);
    } finally {
      bus.sendSoon = original;
      stop();
    }
    expect(sent.map((ms) => ms.map((m) => `${m.topic}:${String(m.data.kind ?? m.data.queue)}`))).toEqual([
      ['live:balance', 'live:tracking', 'jobs:tracking-refresh-scheduler'],
    ]);
    expect(sent[0]![0]!.data.accountId).toBe(id);
    expect(addAloneStatement.query(env.ctx.db).sql).not.toMatch(/pg_notify/);
    expect(addStatement.query(env.ctx.db).sql).toMatch(/pg_notify/);
  });

  it('messages sent in one moment go in one notification, in order', async () => {
    const raw: string[] = [];
    const unlisten = await listenRaw((payload) => raw.push(payload));
    const tag = `moment-${Math.random()}`;
    try {
      for (let i = 0; i < 10; i++) env.ctx.bus.sendSoon([{ topic: 'live', data: { kind: 'balance', accountId: tag, i } }]);
      await expect.poll(() => raw.filter((p) => p.includes(tag)).length).toBe(1);
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await unlisten();
    }
    const mine = raw.filter((p) => p.includes(tag));
    expect(mine).toHaveLength(1);
    // Other messages of the same moment (an earlier test's, still being sent) may share the notification.
    const messages = JSON.parse(mine[0]!) as Array<{ data: { accountId?: string; i?: number } }>;
    expect(messages.filter((m) => m.data.accountId === tag).map((m) => m.data.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("an add in an Idempotency-Key's transaction sends its three messages with its commit, in one notification", async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    const raw: string[] = [];
    const unlisten = await listenRaw((payload) => raw.push(payload));
    try {
      expect((await add(env, a.apiKey, { tid: 'KEYN1000001', courier: 'ups' }, { 'idempotency-key': `soon-${id}` })).statusCode).toBe(201);
      await expect.poll(() => raw.filter((p) => p.includes(id)).length).toBe(1);
    } finally {
      await unlisten();
    }
    const mine = JSON.parse(raw.find((p) => p.includes(id))!) as Array<{ topic: string; data: { kind?: string } }>;
    expect(mine.map((m) => `${m.topic}:${m.data.kind ?? 'wake'}`)).toEqual(['live:balance', 'live:tracking', 'jobs:wake']);
  });
});

/** Listen on the bus's channel beside the bus: every notification's text as sent. */
async function listenRaw(fn: (payload: string) => void): Promise<() => Promise<void>> {
  if (env.ctx.database.kind === 'pglite') return env.ctx.database.pglite!.listen(BUS_CHANNEL, fn);
  const c = new pg.Client({ connectionString: env.ctx.database.url });
  await c.connect();
  c.on('notification', (n) => n.payload && fn(n.payload));
  await c.query(`LISTEN ${BUS_CHANNEL}`);
  return () => c.end();
}
