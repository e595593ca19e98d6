// A courier's day (POST /v1/shipment/today): the courier's open stops, oldest first, and how many shipments they
// delivered and attempts they failed since their local midnight. Only a courier has a day; bad input is a 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestEnv, type TestEnv } from '../helpers.ts';
import { TINY_PNG, company, courier, createShipment, readmeShipment } from './fixtures.ts';

let env: TestEnv;
let owner = '';
let dana = { email: '', session: '' };
let sam = { email: '', session: '' };
const tids: string[] = [];
let samTid = '';

const checkpoint = (token: string, body: Record<string, unknown>) => call(env.app, 'POST', '/v1/shipment/update', { token, body });
const today = (token: string, body: Record<string, unknown> = {}) => call(env.app, 'POST', '/v1/shipment/today', { token, body });

beforeAll(async () => {
  env = await createTestEnv();
  owner = (await company(env.app)).session;
  dana = await courier(env.app, owner);
  sam = await courier(env.app, owner);
  // Four stops for Dana, handed out in this order, and one for Sam.
  for (let i = 0; i < 4; i++) tids.push((await createShipment(env.app, owner, { ...readmeShipment(dana.email), orderId: `DAY-${i}` })).tid);
  samTid = (await createShipment(env.app, owner, readmeShipment(sam.email))).tid;
});
afterAll(async () => {
  await env?.close();
});

describe("a courier's day", () => {
  it('lists the open stops oldest first, only the courier’s own, with nothing done yet', async () => {
    const r = await today(dana.session);
    expect(r.statusCode).toBe(200);
    expect(r.body.payload.stops.map((s: { tid: string }) => s.tid)).toEqual(tids);
    expect(r.body.payload).toMatchObject({ done: 0, failed: 0 });
    expect(JSON.stringify(r.body.payload)).not.toContain(samTid);
  });

  it('counts a delivery and failed attempts since the given midnight; a delivered stop leaves the list', async () => {
    const since = new Date(Date.now() - 60_000).toISOString();
    expect((await checkpoint(dana.session, { tid: tids[0], status: 'OutForDelivery', location: 'Depot' })).statusCode).toBe(200);
    expect(
      (await checkpoint(dana.session, { tid: tids[1], status: 'FailAttempt', location: '9 Elm St', message: 'Nobody home' })).statusCode,
    ).toBe(200);
    expect(
      (await checkpoint(dana.session, { tid: tids[1], status: 'FailAttempt', location: '9 Elm St', message: 'Nobody home again' }))
        .statusCode,
    ).toBe(200);
    const delivered = await checkpoint(dana.session, {
      tid: tids[0],
      status: 'Delivered',
      location: 'Front door',
      proof: { recipientName: 'Jo', signature: TINY_PNG },
    });
    expect(delivered.statusCode).toBe(200);
    // The company's own checkpoint is not the courier's work.
    expect((await checkpoint(owner, { tid: tids[2], status: 'Delivered', location: 'Office' })).statusCode).toBe(200);
    // Sam's work is Sam's.
    expect((await checkpoint(sam.session, { tid: samTid, status: 'FailAttempt', location: 'Oak Ave' })).statusCode).toBe(200);

    const r = await today(dana.session, { since: since.replace('Z', '+00:00') });
    expect(r.statusCode).toBe(200);
    expect(r.body.payload).toMatchObject({ done: 1, failed: 2 });
    expect(r.body.payload.stops.map((s: { tid: string }) => s.tid)).toEqual([tids[1], tids[3]]);
    expect(r.body.payload.stops[0].status).toBe('FailAttempt');

    const samDay = await today(sam.session);
    expect(samDay.body.payload).toMatchObject({ done: 0, failed: 1 });
  });

  it('does not count what was done before the courier’s midnight', async () => {
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const r = await today(dana.session, { since: later });
    expect(r.body.payload).toMatchObject({ done: 0, failed: 0, since: later });
    expect(r.body.payload.stops).toHaveLength(2);
  });

  it('counts what a phone kept offline by the time the courier acted, not the time it arrived (decision 138)', async () => {
    const pat = await courier(env.app, owner);
    const [late, early] = [
      (await createShipment(env.app, owner, { ...readmeShipment(pat.email), orderId: 'DAY-LATE' })).tid,
      (await createShipment(env.app, owner, { ...readmeShipment(pat.email), orderId: 'DAY-EARLY' })).tid,
    ];
    const at = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    // The courier's midnight was an hour ago; the phone had no signal and sends two actions now.
    const midnight = at(60);
    const sent = (tid: string, status: string, occurredAt: string, extra: Record<string, unknown> = {}) =>
      call(env.app, 'POST', '/v1/shipment/update', {
        token: pat.session,
        body: { tid, status, location: 'Oak St', occurredAt, ...extra },
        headers: { 'idempotency-key': crypto.randomUUID() },
      });
    // Delivered at 23:55 the day before, sent after midnight: yesterday's work.
    expect((await sent(early, 'Delivered', at(65), { proof: { recipientName: 'Jo', signature: TINY_PNG } })).statusCode).toBe(200);
    // A failed attempt at 00:20, sent at 01:00: today's.
    expect((await sent(late, 'FailAttempt', at(40), { message: 'Nobody home' })).statusCode).toBe(200);
    const r = await today(pat.session, { since: midnight });
    expect(r.body.payload).toMatchObject({ done: 0, failed: 1 });
    // The day before, counted from its own midnight, has the delivery.
    expect((await today(pat.session, { since: at(24 * 60 + 60) })).body.payload).toMatchObject({ done: 1, failed: 1 });
  });

  it('is a courier’s call: the company gets 403, no token 401', async () => {
    expect((await today(owner)).statusCode).toBe(403);
    expect((await today(undefined as unknown as string)).statusCode).toBe(401);
  });

  it('refuses a since that is not a time, in words', async () => {
    const r = await today(dana.session, { since: 'yesterday' });
    expect(r.statusCode).toBe(400);
    expect(r.body.message).toBe('since must be a date and time with its UTC offset, e.g. 2026-11-26T00:00:00-06:00');
  });
});
