import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PRICING, shmCheckDigitValid } from '@shiptrail/contract';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { company, courier, createShipment, readmeShipment } from './fixtures.ts';
import { EX } from '../trackings/fixtures.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('POST /v1/shipment/create', () => {
  it('creates a shipment with a fresh SHM number, charges it as a tracking, and answers payload.tid', async () => {
    const c = await company(env.app);
    const r = await call(env.app, 'POST', '/v1/shipment/create/', { token: c.apiKey, body: readmeShipment() });
    expect(r.statusCode).toBe(201);
    const s = r.body.payload;
    expect(s.tid).toMatch(/^SHM\d{12}$/);
    expect(shmCheckDigitValid(s.tid)).toBe(true);
    expect(s).toMatchObject({
      status: 'InfoReceived',
      orderId: '0113191348',
      message: 'Left in front of door',
      courier: 'courier person or company name',
      courierEmail: 'courier@example.com',
      courierUid: null,
      expected: '2019-02-15T14:12:16.000Z',
      origin: {
        name: 'sender name',
        company: 'sender Company',
        address2: '',
        city: 'sender city',
        zip: '90403',
        phone: '(818) 808-1111',
        lat: 34.032016,
      },
      destination: { email: 'destination@example.com', phone: '(818) 808-2222', company: '' },
      parcels: [
        { id: 'SKU45896', quantity: 1, name: 'custom package name', length: 12, weight: 1.5, distanceUnit: 'in', weightUnit: 'lb' },
      ],
      lastCheckPoint: { status: 'InfoReceived', message: 'Shipment created', by: { role: 'company', name: 'Acme Deliveries' } },
    });
    // Not one of the company's couriers: nobody is assigned, and the reply says so.
    expect(s.warning).toMatch(/not one of your couriers/);
    const info = await call(env.app, 'GET', '/v1/user/info', { token: c.apiKey });
    expect(info.body.payload.profile.balance).toBe(10 - PRICING.shipmentCents / 100);
    // The price a shipment is charged is the one the pricing call shows.
    expect((await call(env.app, 'GET', '/v1/info/pricing')).body.payload.perShipment).toBe(PRICING.shipmentCents / 100);
    expect(info.body.payload.dashboard.shmShipments).toBe(1);
  });

  it('gives every shipment its own number', async () => {
    const c = await company(env.app);
    const tids = new Set<string>();
    for (let i = 0; i < 5; i++) tids.add((await createShipment(env.app, c.apiKey)).tid);
    expect(tids.size).toBe(5);
  });

  it('assigns the courier named by courierEmail when it is a member', async () => {
    const c = await company(env.app);
    const k = await courier(env.app, c.session);
    const s = await createShipment(env.app, c.session, { ...readmeShipment(k.email), courier: 'Carl Courier' });
    expect(s).toMatchObject({ courierEmail: k.email, courierUid: k.uid });
    expect(s.warning).toBeUndefined();
  });

  it('refuses missing fields with the messages of the shipment wizard', async () => {
    const c = await company(env.app);
    const r = await call(env.app, 'POST', '/v1/shipment/create', {
      token: c.apiKey,
      body: { origin: { address1: '' }, destination: null, parcels: [], courier: '', courierEmail: null },
    });
    expect(r.statusCode).toBe(400);
    expect(r.body.payload.errors).toMatchObject({
      'origin.address1': 'Origin address1 is required',
      'origin.city': 'Origin city is required',
      'origin.zip': 'Origin zip is required',
      destination: 'Destination address1 is required',
      courier: 'Courier is required.',
      courierEmail: 'Courier is required.',
    });
    const bad = await call(env.app, 'POST', '/v1/shipment/create', {
      token: c.apiKey,
      body: { ...readmeShipment(), destination: { ...readmeShipment().destination, phone: '555' } },
    });
    expect(bad.body.payload.errors).toEqual({ 'destination.phone': MSG.phoneInvalid });
    const info = await call(env.app, 'GET', '/v1/user/info', { token: c.apiKey });
    expect(info.body.payload.dashboard.shmShipments).toBe(0);
    expect(info.body.payload.profile.balance).toBe(10);
  });

  it('refuses a person account (shipments are for companies)', async () => {
    const p = await signUp(env.app);
    const r = await call(env.app, 'POST', '/v1/shipment/create', { token: p.apiKey, body: readmeShipment() });
    expect(r.statusCode).toBe(403);
  });
});

describe('POST /v1/shipment/update', () => {
  it('adds a checkpoint and sets any status, in any order', async () => {
    const c = await company(env.app);
    const s = await createShipment(env.app, c.apiKey);
    const up = await call(env.app, 'POST', '/v1/shipment/update/', {
      token: c.apiKey,
      body: {
        tid: s.tid,
        status: 'InTransit',
        location: '2025 Wilshire Blvd, Santa Monica, CA 90403',
        lat: 34.032016,
        long: -118.482805,
        time: '2019-01-19T15:04:08-07:00',
      },
    });
    expect(up.statusCode).toBe(200);
    expect(up.body.payload.status).toBe('InTransit');
    // Listed by time: the 2019 checkpoint sits under the creation's (checkpoint-order.test.ts).
    expect(up.body.payload.checkpoints.find((x: { status: string }) => x.status === 'InTransit')).toMatchObject({
      status: 'InTransit',
      location: '2025 Wilshire Blvd, Santa Monica, CA 90403',
      time: '2019-01-19T22:04:08.000Z',
      lat: 34.032016,
    });
    const back = await call(env.app, 'POST', '/v1/shipment/update', {
      token: c.apiKey,
      body: { tid: s.tid, status: 'InfoReceived', location: 'Depot', time: '2019-01-20T10:00:00Z' },
    });
    expect(back.body.payload.status).toBe('InfoReceived');
  });

  it('refuses a time without its offset and an unknown status', async () => {
    const c = await company(env.app);
    const s = await createShipment(env.app, c.apiKey);
    const r = await call(env.app, 'POST', '/v1/shipment/update', {
      token: c.apiKey,
      body: { tid: s.tid, status: 'Flying', location: 'x', time: '2019-01-19T15:04:08' },
    });
    expect(r.statusCode).toBe(400);
    expect(Object.keys(r.body.payload.errors).sort()).toEqual(['status', 'time']);
  });
});

describe('getshipments, getassigned, edit', () => {
  it('pages newest first with lastTid and filters by status and courier', async () => {
    const c = await company(env.app);
    const k = await courier(env.app, c.session);
    const a = await createShipment(env.app, c.apiKey);
    const b = await createShipment(env.app, c.apiKey, readmeShipment(k.email));
    const d = await createShipment(env.app, c.apiKey);
    await call(env.app, 'POST', '/v1/shipment/update', { token: c.apiKey, body: { tid: d.tid, status: 'Delivered', location: 'door' } });
    const p1 = await call(env.app, 'POST', '/v1/shipment/getshipments', { token: c.apiKey, body: { numRecords: 2 } });
    expect(p1.body.payload.map((x: { tid: string }) => x.tid)).toEqual([d.tid, b.tid]);
    const p2 = await call(env.app, 'POST', '/v1/shipment/getshipments', { token: c.apiKey, body: { numRecords: 2, lastTid: b.tid } });
    expect(p2.body.payload.map((x: { tid: string }) => x.tid)).toEqual([a.tid]);
    const delivered = await call(env.app, 'POST', '/v1/shipment/getshipments', { token: c.apiKey, body: { status: ['Delivered'] } });
    expect(delivered.body.payload.map((x: { tid: string }) => x.tid)).toEqual([d.tid]);
    const byCourier = await call(env.app, 'POST', '/v1/shipment/getshipments', { token: c.apiKey, body: { courier: k.email } });
    expect(byCourier.body.payload.map((x: { tid: string }) => x.tid)).toEqual([b.tid]);
    const assigned = await call(env.app, 'POST', '/v1/shipment/getassigned', { token: k.session });
    expect(assigned.body.payload.map((x: { tid: string }) => x.tid)).toEqual([b.tid]);
  });

  it('edits addresses, parcels, courier and note; the edit form requires address1, city and zip', async () => {
    const c = await company(env.app);
    const k = await courier(env.app, c.session);
    const s = await createShipment(env.app, c.apiKey);
    const r = await call(env.app, 'POST', '/v1/shipment/edit', {
      token: c.session,
      body: {
        tid: s.tid,
        destination: { address1: '1 Main St', city: 'Boston', zip: '02110', state: 'MA' },
        parcels: [{ name: 'Box', length: 1, width: 2, height: 3, weight: 4 }],
        courierEmail: k.email,
        message: 'Ring twice',
      },
    });
    expect(r.statusCode).toBe(200);
    expect(r.body.payload).toMatchObject({
      message: 'Ring twice',
      courierEmail: k.email,
      courierUid: k.uid,
      courier: 'Carl Courier',
      destination: { address1: '1 Main St', city: 'Boston', email: '' },
      parcels: [{ name: 'Box', quantity: 1, distanceUnit: 'in' }],
    });
    const bad = await call(env.app, 'POST', '/v1/shipment/edit', { token: c.session, body: { tid: s.tid, origin: { address1: 'x' } } });
    expect(bad.body.payload.errors).toEqual({ 'origin.city': 'Origin city is required', 'origin.zip': 'Origin zip is required' });
  });
});

describe('detect and the public page', () => {
  it('recognises SHM numbers as Shiptrail own, checking the check digit', async () => {
    const c = await company(env.app);
    const s = await createShipment(env.app, c.apiKey);
    const ok = await call(env.app, 'POST', '/v1/couriers/detect', { body: { tid: s.tid } });
    expect(ok.body.payload).toEqual([{ courier: 'shm', name: expect.stringContaining('Shiptrail'), checkDigitValid: true }]);
    const wrong = s.tid.slice(0, 14) + String((Number(s.tid[14]) + 1) % 10);
    const typo = await call(env.app, 'POST', '/v1/couriers/detect', { body: { tid: wrong } });
    expect(typo.body.payload[0]).toMatchObject({ courier: 'shm', checkDigitValid: false });
  });

  it('shows a shipment on GET /v1/track/{uid}_{tid} without street addresses or contacts, branded with the company', async () => {
    const c = await company(env.app);
    // The page names only the channels the company sends its customers on (decision 100): mail is on from sign-up, SMS is ticked here.
    await call(env.app, 'POST', '/v1/user/general/update', {
      token: c.apiKey,
      body: { settings: { sendNotification: { phone: { triggers: { Delivered: true } } } } },
    });
    const s = await createShipment(env.app, c.apiKey);
    const r = await call(env.app, 'GET', `/v1/track/${c.profile.uid}_${s.tid}`);
    expect(r.statusCode).toBe(200);
    const p = r.body.payload[0];
    expect(p).toMatchObject({
      kind: 'shipment',
      tid: s.tid,
      status: 'InfoReceived',
      origin: 'sender city, CA 90403, US',
      destination: 'receiver city, CA 90401, US',
      courierName: 'courier person or company name',
      brand: { name: 'Acme Deliveries', color: '#364fc7' },
      notify: { email: 'd***@e***.com', phone: '***-***-2222' },
    });
    expect(JSON.stringify(p)).not.toContain('receiver address');
    expect(JSON.stringify(p)).not.toContain('receiver name');
    const other = await company(env.app);
    const miss = await call(env.app, 'GET', `/v1/track/${other.profile.uid}_${s.tid}`);
    expect(miss.statusCode).toBe(404);
    expect(miss.body.message).toBe(MSG.shipmentNotFound);
  });
});

describe("the company's brand", () => {
  it('the company name given at sign-up brands the public page of its trackings too; a person has none', async () => {
    const c = await company(env.app, { company: 'Blue Van Co' });
    expect(c.profile.company).toBe('Blue Van Co');
    await call(env.app, 'POST', '/v1/user/general/update', {
      token: c.session,
      body: { profile: { image: 'https://blue.example/logo.png' }, settings: { themeid: 'F' } },
    });
    const t = await call(env.app, 'POST', '/v1/trackings/add', { token: c.session, body: { tid: EX.ups.delivered } });
    expect(t.statusCode).toBe(201);
    const pub = await call(env.app, 'GET', `/v1/track/${c.profile.uid}_${EX.ups.delivered}`);
    expect(pub.body.payload[0].brand).toEqual({ name: 'Blue Van Co', logo: 'https://blue.example/logo.png', color: '#d9480f', url: '' });
    const p = await signUp(env.app, { company: 'Ignored Inc' });
    expect(p.profile.company).toBe('');
    await call(env.app, 'POST', '/v1/trackings/add', { token: p.session, body: { tid: EX.ups.delivered } });
    const mine = await call(env.app, 'GET', `/v1/track/${p.profile.uid}_${EX.ups.delivered}`);
    expect(mine.body.payload[0].brand).toBeNull();
  });
});
