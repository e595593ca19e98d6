// A parcel's public page follows it live: GET /v1/track/{uid}_{tid}/live, no token, over a real HTTP server on
// loopback and the real bus. It carries that parcel's number and status only, never another parcel's events
// and never anything of the account; it is refused for a parcel the page would not show, and bounded per address.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestEnv, eventually, signUp, type TestEnv } from '../helpers.ts';
import { PUBLIC_STREAMS_PER_ADDRESS, TOO_MANY_PUBLIC_STREAMS, NOT_A_STREAM_CLIENT } from '../../src/modules/live/live.routes.ts';
import { EX, add } from '../trackings/fixtures.ts';
import { company, courier, createShipment, readmeShipment } from '../shipments/fixtures.ts';
import { openStream, type SseStream } from './sse-client.ts';

let env: TestEnv;
let base: string;
const opened: SseStream[] = [];

async function pageStream(uid: string, tid: string, headers: Record<string, string> = {}) {
  const s = await openStream(base, null, headers, `/v1/track/${uid}_${tid}/live`);
  opened.push(s);
  return s;
}

beforeAll(async () => {
  env = await createTestEnv();
  await env.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of opened) s.close();
  await env?.close();
});

describe('GET /v1/track/{uid}_{tid}/live', () => {
  it("streams the parcel's status changes with its number and status only, and no other parcel's", async () => {
    const a = await signUp(env.app);
    expect(
      (await add(env, a.apiKey, { tid: EX.ups.delivered, title: 'Private title', notifyEmail: 'private.customer@example.com' })).statusCode,
    ).toBe(201);
    expect((await add(env, a.apiKey, { tid: EX.fedex.delivered })).statusCode).toBe(201);
    const page = await pageStream(a.profile.uid, EX.ups.delivered);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/event-stream; charset=utf-8');

    // The other parcel changes first, then this one: only this one's change reaches the page.
    expect((await call(env.app, 'GET', `/v1/trackings/delivered/${EX.fedex.delivered}`, { token: a.apiKey })).statusCode).toBe(200);
    expect((await call(env.app, 'GET', `/v1/trackings/delivered/${EX.ups.delivered}`, { token: a.apiKey })).statusCode).toBe(200);
    const changed = await page.waitFor((f) => f.data.statusChanged === true);
    expect(changed.data).toEqual({ kind: 'tracking', tid: EX.ups.delivered, status: 'Delivered', statusChanged: true });
    expect(changed.id).toMatch(/^[\w-]+$/);
    expect(page.frames.every((f) => f.data.tid === EX.ups.delivered)).toBe(true);
    // Nothing of the account: no ids, no title, no contacts.
    const text = page.text();
    for (const secret of ['Private title', 'private.customer@example.com', a.email, 'accountId', 'trackingId'])
      expect(text).not.toContain(secret);
  });

  it("follows a company's shipment too, for the customer's page, and says nothing of the courier", async () => {
    const c = await company(env.app);
    const rider = await courier(env.app, c.session);
    const s = await createShipment(env.app, c.session, readmeShipment(rider.email));
    const page = await pageStream(c.profile.uid, s.tid);
    expect(page.status).toBe(200);
    const moved = await call(env.app, 'POST', '/v1/shipment/update', {
      token: rider.session,
      body: { tid: s.tid, status: 'OutForDelivery', location: 'Santa Monica, CA' },
    });
    expect(moved.statusCode).toBe(200);
    const f = await page.waitFor((x) => x.data.status === 'OutForDelivery');
    expect(f.data).toEqual({ kind: 'shipment', tid: s.tid, status: 'OutForDelivery', statusChanged: true });
    expect(page.text()).not.toContain(rider.uid);
  });

  it('replays what a reconnecting page missed (Last-Event-ID), only for its parcel', async () => {
    const a = await signUp(env.app);
    expect((await add(env, a.apiKey, { tid: EX.usps.delivered })).statusCode).toBe(201);
    expect((await add(env, a.apiKey, { tid: EX.ups.failAttempt })).statusCode).toBe(201);
    // A page of the other parcel sees an event; its id is where a page of this parcel, away meanwhile, resumes.
    const other = await pageStream(a.profile.uid, EX.ups.failAttempt);
    expect((await call(env.app, 'GET', `/v1/trackings/delivered/${EX.ups.failAttempt}`, { token: a.apiKey })).statusCode).toBe(200);
    const seen = await other.waitFor((f) => f.data.statusChanged === true);
    expect((await call(env.app, 'GET', `/v1/trackings/delivered/${EX.usps.delivered}`, { token: a.apiKey })).statusCode).toBe(200);
    const back = await pageStream(a.profile.uid, EX.usps.delivered, { 'last-event-id': seen.id! });
    const replayed = await back.waitFor((f) => f.data.statusChanged === true);
    expect(replayed.data).toEqual({ kind: 'tracking', tid: EX.usps.delivered, status: 'Delivered', statusChanged: true });
    expect(back.frames.every((f) => f.data.tid === EX.usps.delivered)).toBe(true);
  });

  it('is not found for a parcel the page would not show, and asks a plain call for an event stream', async () => {
    const a = await signUp(env.app);
    const missing = await pageStream(a.profile.uid, EX.ups.exception);
    expect(missing.status).toBe(404);
    const noOne = await pageStream('nouser', EX.ups.exception);
    expect(noOne.status).toBe(404);
    expect((await add(env, a.apiKey, { tid: EX.ups.exception })).statusCode).toBe(201);
    const plain = await call(env.app, 'GET', `/v1/track/${a.profile.uid}_${EX.ups.exception}/live`);
    expect(plain.statusCode).toBe(406);
    expect(plain.body.message).toBe(NOT_A_STREAM_CLIENT);
  });

  it(`holds at most ${PUBLIC_STREAMS_PER_ADDRESS} open pages per address, and frees a place when one closes`, async () => {
    // The earlier tests' pages came from this same address: close them first.
    for (const s of opened.splice(0)) s.close();
    await eventually(async () => (env.app.liveHub.size === 0 ? true : null), 5000, 20);
    const a = await signUp(env.app);
    expect((await add(env, a.apiKey, { tid: EX.usps.notFound })).statusCode).toBe(201);
    const pages: SseStream[] = [];
    for (let i = 0; i < PUBLIC_STREAMS_PER_ADDRESS; i++) pages.push(await pageStream(a.profile.uid, EX.usps.notFound));
    expect(pages.every((p) => p.status === 200)).toBe(true);
    const refused = await pageStream(a.profile.uid, EX.usps.notFound);
    expect(refused.status).toBe(429);
    expect(refused.frames.length).toBe(0);
    expect(refused.text()).toContain(TOO_MANY_PUBLIC_STREAMS);
    pages[0]!.close();
    await eventually(async () => (env.app.liveHub.size === PUBLIC_STREAMS_PER_ADDRESS - 1 ? true : null), 5000, 20);
    const again = await pageStream(a.profile.uid, EX.usps.notFound);
    expect(again.status).toBe(200);
    for (const p of [...pages, again]) p.close();
    await eventually(async () => (env.app.liveHub.size === 0 ? true : null), 5000, 20);
  });
});
