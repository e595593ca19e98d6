// The trackings API through app.inject: add (detect, duplicate, balance, idempotency), list paging and
// filters, update/delivered/delete, the public page, isolation between accounts, CSV import.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq, sql } from 'drizzle-orm';
import { refreshJob } from '../../src/modules/trackings/trackings.jobs.ts';
import { FIRST_IN_LINE } from '../../src/modules/trackings/refresh.ts';
import { createTestEnv, call, signUp, type TestEnv } from '../helpers.ts';
import { checkpoints, ledgerEntries, trackingEvents, trackings } from '../../src/db/schema.ts';
import { EX, add, balanceCents, list, setBalance, userIdOf } from './fixtures.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

async function trackingCount(userId: string) {
  const [r] = await env.ctx.db.select({ n: count() }).from(trackings).where(eq(trackings.userId, userId));
  return Number(r!.n);
}

describe('add', () => {
  it('detects the courier, stores the number normalised, charges $0.05 and returns the view', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    const before = await balanceCents(env, id);
    const r = await add(env, a.apiKey, {
      tid: ' 1z5r 8939 0350 0756 08 ',
      title: 'Shoes',
      orderId: 'A-1',
      customer: 'Ada',
      notify: { email: 'Ada@Example.com', phone: '+1 212 555 1234' },
      note: 'fragile',
    });
    expect(r.statusCode).toBe(201);
    expect(r.body.status).toBe('success');
    const p = r.body.payload;
    expect(p.tid).toBe(EX.ups.delivered);
    expect(p.courier).toBe('ups');
    expect(p).toMatchObject({
      title: 'Shoes',
      orderId: 'A-1',
      customer: 'Ada',
      note: 'fragile',
      status: 'Pending',
      uid: a.profile.uid ?? expect.any(String),
      sandbox: true,
    });
    expect(p.notify).toEqual({ email: 'ada@example.com', phone: '(212) 555-1234' });
    expect(p.warning).toBeUndefined();
    expect(await balanceCents(env, id)).toBe(before - 5);
    const charges = await env.ctx.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, id), eq(ledgerEntries.kind, 'tracking')));
    expect(charges.map((c) => c.amountCents)).toEqual([-5]);
    // The first refresh: due first in line for the workers' scheduler (ahead of any routine re-check), no job.
    const [row] = await env.ctx.db
      .select({ id: trackings.id, nextCheckAt: trackings.nextCheckAt })
      .from(trackings)
      .where(eq(trackings.userId, id));
    expect(row!.nextCheckAt).toEqual(FIRST_IN_LINE);
    const jobs = (await env.ctx.db.execute(
      sql`select data from pgboss.job where name = ${refreshJob.name} and data->'trackingIds' ? ${row!.id}`,
    )) as unknown as { rows: Array<{ data: unknown }> };
    expect(jobs.rows).toEqual([]);
  });

  it('accepts the trailing-slash path, an explicit courier and warns on a number that does not fit it', async () => {
    const a = await signUp(env.app);
    const r = await call(env.app, 'POST', '/v1/trackings/add/', { token: a.apiKey, body: { tid: 'ABC123456', courier: 'FedEx' } });
    expect(r.statusCode).toBe(201);
    expect(r.body.payload.courier).toBe('fedex');
    expect(r.body.payload.warning).toMatch(/does not look like a FedEx/);
  });

  it('validates with the spec messages and never 500s on bad input', async () => {
    const a = await signUp(env.app);
    const r1 = await add(env, a.apiKey, { title: 'x' });
    expect(r1.statusCode).toBe(400);
    expect(r1.body.message).toBe('Tracking Number is required');
    expect(r1.body.payload.errors.tid).toBe('Tracking Number is required');
    const r2 = await add(env, a.apiKey, { tid: EX.ups.delivered, notify: { phone: '123' } });
    expect(r2.statusCode).toBe(400);
    expect(r2.body.payload.errors['notify.phone']).toBe('Invalid phone number');
    const r3 = await add(env, a.apiKey, { tid: 'HELLO' });
    expect(r3.statusCode).toBe(400);
    expect(r3.body.message).toMatch(/could not recognise/);
    const r4 = await add(env, a.apiKey, { tid: EX.ups.delivered, courier: 'dhl' });
    expect(r4.statusCode).toBe(400);
    const r5 = await call(env.app, 'POST', '/v1/trackings/add', {
      token: a.apiKey,
      body: 'not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(r5.statusCode).toBe(400);
    expect(await trackingCount(await userIdOf(env, a.email))).toBe(0);
  });

  it('rejects a duplicate number in the same account (409) without charging; another account may track it', async () => {
    const a = await signUp(env.app);
    const b = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    expect((await add(env, a.apiKey, { tid: EX.usps.delivered })).statusCode).toBe(201);
    const before = await balanceCents(env, id);
    const dup = await add(env, a.apiKey, { tid: EX.usps.delivered.toLowerCase() });
    expect(dup.statusCode).toBe(409);
    expect(dup.body.message).toBe(`You are already tracking ${EX.usps.delivered}`);
    expect(await balanceCents(env, id)).toBe(before);
    expect((await add(env, b.apiKey, { tid: EX.usps.delivered })).statusCode).toBe(201);
  });

  it('insufficient balance: a clear 402, nothing stored, balance unchanged', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    await setBalance(env, a.email, 4);
    const r = await add(env, a.apiKey, { tid: EX.fedex.delivered });
    expect(r.statusCode).toBe(402);
    expect(r.body.message).toMatch(/Insufficient balance.*\$0\.05.*\$0\.04/);
    expect(await trackingCount(id)).toBe(0);
    expect(await balanceCents(env, id)).toBe(4);
  });

  it('an Idempotency-Key retry returns the first result and charges once; a new key is a new request', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    const before = await balanceCents(env, id);
    const h = { 'idempotency-key': 'order-42' };
    const r1 = await add(env, a.apiKey, { tid: EX.canadapost.delivered, title: 'first' }, h);
    const r2 = await add(env, a.apiKey, { tid: EX.canadapost.delivered, title: 'first' }, h);
    expect(r1.statusCode).toBe(201);
    expect(r2.statusCode).toBe(201);
    expect(r2.body).toEqual(r1.body);
    // Concurrent retries with the same key: still one tracking, one charge.
    const many = await Promise.all([1, 2, 3].map(() => add(env, a.apiKey, { tid: EX.ups.failAttempt }, { 'idempotency-key': 'k-2' })));
    expect(many.map((m) => m.statusCode)).toEqual([201, 201, 201]);
    // (jsonb may store keys in another order: compare values, not strings)
    expect(many[1]!.body).toEqual(many[0]!.body);
    expect(many[2]!.body).toEqual(many[0]!.body);
    expect(await balanceCents(env, id)).toBe(before - 10);
    expect(await trackingCount(id)).toBe(2);
    const r3 = await add(env, a.apiKey, { tid: EX.canadapost.delivered }, { 'idempotency-key': 'other' });
    expect(r3.statusCode).toBe(409);
  });

  it('concurrent adds never overspend', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    await setBalance(env, a.email, 12); // room for two trackings
    const tids = ['X1000001', 'X1000002', 'X1000003', 'X1000004', 'X1000005', 'X1000006'];
    const rs = await Promise.all(tids.map((tid) => add(env, a.apiKey, { tid, courier: 'ups' })));
    const codes = rs.map((r) => r.statusCode).sort();
    expect(codes).toEqual([201, 201, 402, 402, 402, 402]);
    expect(await balanceCents(env, id)).toBe(2);
    expect(await trackingCount(id)).toBe(2);
  });

  it('requires auth', async () => {
    const r = await add(env, 'nope', { tid: EX.ups.delivered });
    expect(r.statusCode).toBe(401);
  });
});

describe('list', () => {
  it('pages with lastTid (stable order, no repeats), caps numRecords, filters by status and courier', async () => {
    const a = await signUp(env.app);
    const t0 = Date.now();
    let clock = t0;
    const realNow = env.ctx.now;
    // Several trackings share a createdAt: the id breaks the tie, so paging still neither repeats nor skips.
    env.ctx.now = () => new Date(Math.floor(clock++ / 3) * 3);
    try {
      for (let i = 0; i < 12; i++) {
        const r = await add(env, a.apiKey, { tid: `PAGE${String(i).padStart(4, '0')}`, courier: i % 3 === 0 ? 'fedex' : 'ups' });
        expect(r.statusCode).toBe(201);
      }
    } finally {
      env.ctx.now = realNow;
    }
    const all = await list(env, a.apiKey, '?numRecords=100&v=abc');
    expect(all.statusCode).toBe(200);
    expect(all.body.payload).toHaveLength(12);
    // Newest first (ties share a createdAt on purpose, so only the order of createdAt is fixed).
    const created = all.body.payload.map((t: { createdAt: string }) => Date.parse(t.createdAt));
    expect([...created].sort((x, y) => y - x)).toEqual(created);
    expect(new Set(created).size).toBeLessThan(12);
    const seen: string[] = [];
    let lastTid: string | undefined;
    for (;;) {
      const page = await list(env, a.apiKey, `?numRecords=5${lastTid ? `&lastTid=${lastTid}` : ''}`);
      expect(page.statusCode).toBe(200);
      seen.push(...page.body.payload.map((t: { tid: string }) => t.tid));
      if (page.body.payload.length < 5) break;
      lastTid = page.body.payload.at(-1).tid;
    }
    expect(seen).toEqual(all.body.payload.map((t: { tid: string }) => t.tid));
    expect(new Set(seen).size).toBe(12);

    const fedex = await list(env, a.apiKey, '?courier=fedex');
    expect(fedex.body.payload.map((t: { courier: string }) => t.courier)).toEqual(['fedex', 'fedex', 'fedex', 'fedex']);
    const both = await list(env, a.apiKey, '?courier=fedex,ups&status=Pending,Delivered');
    expect(both.body.payload).toHaveLength(12);
    await call(env.app, 'GET', '/v1/trackings/delivered/PAGE0001', { token: a.apiKey });
    const delivered = await list(env, a.apiKey, '?status=Delivered');
    expect(delivered.body.payload.map((t: { tid: string }) => t.tid)).toEqual(['PAGE0001']);
    const pending = await list(env, a.apiKey, '?status=Pending&courier=ups');
    expect(pending.body.payload).toHaveLength(7);

    expect((await list(env, a.apiKey, '?status=Lost')).statusCode).toBe(400);
    expect((await list(env, a.apiKey, '?numRecords=abc')).statusCode).toBe(400);
    expect((await list(env, a.apiKey, '?lastTid=NOPE')).statusCode).toBe(400);
    const view = all.body.payload[0];
    expect(Object.keys(view).sort()).toEqual(
      [
        'tid',
        'title',
        'courier',
        'orderId',
        'customer',
        'notify',
        'note',
        'origin',
        'destination',
        'status',
        'expected',
        'estimatedDelivery',
        'likelyLate',
        'lastCheckPoint',
        'checkpoints',
        'createdAt',
        'updatedAt',
        'uid',
        'sandbox',
        'pushed',
        'lastHeardAt',
        'service',
      ].sort(),
    );
  });

  it('numRecords defaults to 100 and is capped at 500', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    // Stored directly: 510 trackings through the API would only test the add path again.
    await env.ctx.db.insert(trackings).values(Array.from({ length: 510 }, (_, i) => ({ userId: id, tid: `BULK${i}`, courier: 'ups' })));
    expect((await list(env, a.apiKey)).body.payload).toHaveLength(100);
    expect((await list(env, a.apiKey, '?numRecords=10000')).body.payload).toHaveLength(500);
  });
});

describe('update, delivered, delete', () => {
  it('updates details; notify replaces both contacts; a new courier restarts the tracking', async () => {
    const a = await signUp(env.app);
    await add(env, a.apiKey, { tid: EX.ups.delivered, title: 'old', notify: { email: 'a@b.co', phone: '2125551234' } });
    const r = await call(env.app, 'PUT', '/v1/trackings/update', {
      token: a.apiKey,
      body: { tid: EX.ups.delivered, title: 'new', orderId: 'O-9', notify: { email: 'c@d.co' } },
    });
    expect(r.statusCode).toBe(200);
    expect(r.body.payload).toMatchObject({ title: 'new', orderId: 'O-9', notify: { email: 'c@d.co', phone: '' } });
    const bad = await call(env.app, 'PUT', '/v1/trackings/update/', {
      token: a.apiKey,
      body: { tid: EX.ups.delivered, notify: { phone: '12' } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body.message).toBe('Invalid phone number');
    const c = await call(env.app, 'PUT', '/v1/trackings/update', { token: a.apiKey, body: { tid: EX.ups.delivered, courier: 'usps' } });
    expect(c.statusCode).toBe(200);
    expect(c.body.payload.courier).toBe('usps');
    expect(c.body.message).toMatch(/does not look like a USPS/);
    const missing = await call(env.app, 'PUT', '/v1/trackings/update', { token: a.apiKey, body: { tid: 'NOPE123', title: 'x' } });
    expect(missing.statusCode).toBe(404);
  });

  it('delivered: final status, a checkpoint, one status event, no more refreshes; idempotent', async () => {
    const a = await signUp(env.app);
    await add(env, a.apiKey, { tid: EX.fedex.delivered });
    const r = await call(env.app, 'GET', `/v1/trackings/delivered/${EX.fedex.delivered}`, { token: a.apiKey });
    expect(r.statusCode).toBe(200);
    expect(r.body.payload.status).toBe('Delivered');
    expect(r.body.payload.checkpoints).toHaveLength(1);
    expect(r.body.payload.lastCheckPoint).toMatchObject({ status: 'Delivered', message: 'Marked as delivered' });
    const again = await call(env.app, 'GET', `/v1/trackings/delivered/${EX.fedex.delivered}/`, { token: a.apiKey });
    expect(again.statusCode).toBe(200);
    const [row] = await env.ctx.db.select().from(trackings).where(eq(trackings.tid, EX.fedex.delivered));
    expect(row!.nextCheckAt).toBeNull();
    const events = await env.ctx.db.select().from(trackingEvents).where(eq(trackingEvents.trackingId, row!.id));
    expect(events.map((e) => [e.fromStatus, e.toStatus])).toEqual([['Pending', 'Delivered']]);
    expect(await env.ctx.db.select().from(checkpoints).where(eq(checkpoints.trackingId, row!.id))).toHaveLength(1);
    const refresh = await call(env.app, 'POST', `/v1/trackings/refresh/${EX.fedex.delivered}`, { token: a.apiKey });
    expect(refresh.statusCode).toBe(409);
  });

  it('delete removes the tracking; a second delete is a 404', async () => {
    const a = await signUp(env.app);
    await add(env, a.apiKey, { tid: EX.usps.notFound });
    const r = await call(env.app, 'DELETE', `/v1/trackings/delete/${EX.usps.notFound}`, { token: a.apiKey });
    expect(r.statusCode).toBe(200);
    expect((await list(env, a.apiKey)).body.payload).toHaveLength(0);
    expect((await call(env.app, 'DELETE', `/v1/trackings/delete/${EX.usps.notFound}/`, { token: a.apiKey })).statusCode).toBe(404);
  });

  it('refresh now: accepted once, then 429 with Retry-After for a minute', async () => {
    const a = await signUp(env.app);
    await add(env, a.apiKey, { tid: EX.ups.exception });
    const r1 = await call(env.app, 'POST', `/v1/trackings/refresh/${EX.ups.exception}`, { token: a.apiKey });
    expect(r1.statusCode).toBe(200);
    const r2 = await call(env.app, 'POST', `/v1/trackings/refresh/${EX.ups.exception}`, { token: a.apiKey });
    expect(r2.statusCode).toBe(429);
    expect(Number(r2.headers['retry-after'])).toBeGreaterThan(50);
    expect(Number(r2.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await call(env.app, 'POST', '/v1/trackings/refresh/NOPE1', { token: a.apiKey })).statusCode).toBe(404);
  });
});

describe('isolation', () => {
  it("another account can neither read, change, refresh nor delete someone's tracking", async () => {
    const a = await signUp(env.app);
    const b = await signUp(env.app);
    await add(env, a.apiKey, { tid: EX.ups.notFound, title: 'mine' });
    expect((await list(env, b.apiKey)).body.payload).toHaveLength(0);
    expect((await list(env, b.apiKey, `?lastTid=${EX.ups.notFound}`)).statusCode).toBe(400);
    expect(
      (await call(env.app, 'PUT', '/v1/trackings/update', { token: b.apiKey, body: { tid: EX.ups.notFound, title: 'theirs' } })).statusCode,
    ).toBe(404);
    expect((await call(env.app, 'GET', `/v1/trackings/delivered/${EX.ups.notFound}`, { token: b.apiKey })).statusCode).toBe(404);
    expect((await call(env.app, 'POST', `/v1/trackings/refresh/${EX.ups.notFound}`, { token: b.apiKey })).statusCode).toBe(404);
    expect((await call(env.app, 'DELETE', `/v1/trackings/delete/${EX.ups.notFound}`, { token: b.apiKey })).statusCode).toBe(404);
    const mine = (await list(env, a.apiKey)).body.payload;
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ title: 'mine', status: 'Pending' });
  });
});

describe('public page and couriers', () => {
  it('shows the tracking to anyone with {uid}_{tid}, contacts masked; 404 Shipment not found otherwise', async () => {
    const a = await signUp(env.app);
    // The page names only the channels the account sends its customers on (decision 100): mail is on from sign-up, SMS is ticked here.
    await call(env.app, 'POST', '/v1/user/general/update', {
      token: a.apiKey,
      body: { settings: { sendNotification: { phone: { triggers: { Delivered: true } } } } },
    });
    const added = await add(env, a.apiKey, {
      tid: EX.usps.delivered,
      note: 'secret note',
      customer: 'Secret Customer',
      notify: { email: 'john@example.com', phone: '(212) 555-9876' },
    });
    const uid = added.body.payload.uid;
    const r = await call(env.app, 'GET', `/v1/track/${uid}_${EX.usps.delivered}`);
    expect(r.statusCode).toBe(200);
    expect(r.body.payload).toHaveLength(1);
    const p = r.body.payload[0];
    expect(p).toMatchObject({
      tid: EX.usps.delivered,
      courier: 'usps',
      status: 'Pending',
      notify: { email: 'j***@e***.com', phone: '***-***-9876' },
    });
    expect(JSON.stringify(p)).not.toMatch(/secret|john@|555-9876/i);
    for (const bad of [`${uid}_NOPE123`, `nobody_${EX.usps.delivered}`, `${uid}`, `_${EX.usps.delivered}`, `${uid}_`]) {
      const nf = await call(env.app, 'GET', `/v1/track/${bad}`);
      expect(nf.statusCode).toBe(404);
      expect(nf.body.message).toBe('Shipment not found');
    }
  });

  it('detect lists candidates best first; couriers say which are in sandbox mode', async () => {
    const d = await call(env.app, 'POST', '/v1/couriers/detect', { body: { tid: EX.ups.delivered } });
    expect(d.statusCode).toBe(200);
    expect(d.body.payload[0]).toEqual({ courier: 'ups', name: expect.any(String), checkDigitValid: true });
    const none = await call(env.app, 'POST', '/v1/couriers/detect', { body: { tid: 'HELLO' } });
    expect(none.body.payload).toEqual([]);
    expect((await call(env.app, 'POST', '/v1/couriers/detect', { body: {} })).body.message).toBe('Tracking Number is required');
    const c = await call(env.app, 'GET', '/v1/couriers');
    expect(c.body.payload).toEqual([
      { courier: 'ups', name: 'UPS', sandbox: true },
      { courier: 'usps', name: 'USPS', sandbox: true },
      { courier: 'fedex', name: 'FedEx', sandbox: true },
      { courier: 'canadapost', name: 'Canada Post', sandbox: true },
    ]);
  });
});

describe('dashboard counts', () => {
  it('user info counts trackings per status and the cost from the ledger', async () => {
    const a = await signUp(env.app);
    await add(env, a.apiKey, { tid: 'DASH0001', courier: 'ups' });
    await add(env, a.apiKey, { tid: 'DASH0002', courier: 'ups' });
    await call(env.app, 'GET', '/v1/trackings/delivered/DASH0002', { token: a.apiKey });
    const info = await call(env.app, 'GET', '/v1/user/info', { token: a.apiKey });
    expect(info.body.payload.dashboard).toMatchObject({ Shipments: 2, Pending: 1, Delivered: 1, Cost: 0.1 });
  });
});

describe('CSV import', () => {
  const csv = [
    'tid,courier,title,orderId,customer,email,phone,note',
    `${EX.ups.delivered},,Boots,O-1,Ann,ann@example.com,2125551234,left at door`,
    ',ups,no number,,,,,',
    `${EX.fedex.delivered},fedex,,,,,12,`,
    `${EX.ups.delivered},,again,,,,,`,
    'HELLO,,unknown,,,,,',
    `"${EX.usps.delivered}",usps,"Quoted, with comma",,,,,`,
  ].join('\n');

  it('multipart upload: one line per row, charged per created tracking', async () => {
    const a = await signUp(env.app);
    const id = await userIdOf(env, a.email);
    const before = await balanceCents(env, id);
    const boundary = '----shiptrail' + Date.now();
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`;
    const res = await env.app.inject({
      method: 'POST',
      url: '/v1/trackings/import',
      headers: { 'sm-api-token': a.apiKey, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: body,
    });
    expect(res.statusCode).toBe(200);
    const report = res.json().payload;
    expect(report.created).toBe(2);
    expect(report.failed).toBe(4);
    expect(report.rows.map((r: { row: number; status: string }) => [r.row, r.status])).toEqual([
      [2, 'created'],
      [3, 'error'],
      [4, 'error'],
      [5, 'error'],
      [6, 'error'],
      [7, 'created'],
    ]);
    expect(report.rows[1].message).toBe('Tracking Number is required');
    expect(report.rows[2].message).toBe('Invalid phone number');
    expect(report.rows[3].message).toMatch(/already tracking/);
    expect(report.rows[4].message).toMatch(/could not recognise/);
    expect(await balanceCents(env, id)).toBe(before - 10);
    const rows = (await list(env, a.apiKey)).body.payload;
    expect(rows.find((t: { tid: string }) => t.tid === EX.usps.delivered).title).toBe('Quoted, with comma');
    expect(rows.find((t: { tid: string }) => t.tid === EX.ups.delivered)).toMatchObject({
      title: 'Boots',
      notify: { email: 'ann@example.com', phone: '(212) 555-1234' },
      note: 'left at door',
    });
  });

  it('text/csv body; stops charging when the balance runs out; a file without a tid column is a 400', async () => {
    const a = await signUp(env.app);
    await setBalance(env, a.email, 5);
    const res = await call(env.app, 'POST', '/v1/trackings/import', {
      token: a.apiKey,
      body: 'tid,courier\nCSV0001,ups\nCSV0002,ups\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body.payload.created).toBe(1);
    expect(res.body.payload.rows[1]).toMatchObject({ status: 'error', message: expect.stringMatching(/Insufficient balance/) });
    const bad = await call(env.app, 'POST', '/v1/trackings/import', {
      token: a.apiKey,
      body: 'number,carrier\nX,ups\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(bad.statusCode).toBe(400);
    const empty = await call(env.app, 'POST', '/v1/trackings/import', { token: a.apiKey, body: { file: 'x' } });
    expect(empty.statusCode).toBe(400);
  });
});
