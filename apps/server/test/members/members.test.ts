import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG } from '@shiptrail/contract';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { company, courier, createShipment, readmeShipment } from '../shipments/fixtures.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('member calls', () => {
  it('adds a courier who signs in with that email and password, as a courier of the company', async () => {
    const c = await company(env.app);
    const add = await call(env.app, 'POST', '/v1/user/general/addmember', {
      token: c.session,
      body: {
        email: 'Rider@Example.com',
        role: 'courier',
        firstName: 'Rae',
        lastName: 'Rider',
        phone: '+1 213 555 0142',
        password: 'ridepass123',
      },
    });
    expect(add.statusCode).toBe(201);
    expect(add.body.payload).toMatchObject({
      email: 'rider@example.com',
      role: 'courier',
      firstName: 'Rae',
      lastName: 'Rider',
      phone: '(213) 555-0142',
      geo: null,
      openShipments: 0,
    });
    const login = await call(env.app, 'POST', '/v1/user/general/login', { body: { email: 'rider@example.com', password: 'ridepass123' } });
    expect(login.statusCode).toBe(200);
    expect(login.body.payload.profile).toMatchObject({ role: 'courier', email: 'rider@example.com', showWizard: false });
    const list = await call(env.app, 'POST', '/v1/user/general/getmembers/', { token: c.apiKey });
    expect(list.body.payload.map((m: { email: string }) => m.email)).toEqual(['rider@example.com']);
    const again = await call(env.app, 'POST', '/v1/user/general/addmember', {
      token: c.session,
      body: {
        email: 'rider@example.com',
        role: 'courier',
        firstName: 'Rae',
        lastName: 'Rider',
        phone: '2135550142',
        password: 'ridepass123',
      },
    });
    expect(again.statusCode).toBe(409);
    expect(again.body.message).toBe(MSG.emailTaken);
  });

  it('uses the messages of the courier form', async () => {
    const c = await company(env.app);
    const r = await call(env.app, 'POST', '/v1/user/general/addmember', {
      token: c.session,
      body: { email: '', role: null, firstName: ' ', phone: '555' },
    });
    expect(r.statusCode).toBe(400);
    expect(r.body.payload.errors).toEqual({
      email: MSG.emailRequired,
      role: MSG.roleRequired,
      firstName: MSG.firstNameRequired,
      lastName: MSG.lastNameRequired,
      phone: MSG.phoneInvalid,
      password: MSG.passwordRequired,
    });
    const u = await call(env.app, 'POST', '/v1/user/general/updatemember', { token: c.session, body: { email: 'x@example.com' } });
    expect(u.body.payload.errors).toEqual({
      role: MSG.roleRequired,
      firstName: MSG.firstNameRequired,
      lastName: MSG.lastNameRequired,
      phone: MSG.phoneRequired,
    });
    const d = await call(env.app, 'POST', '/v1/user/general/deletemember', { token: c.session, body: { email: null } });
    expect(d.statusCode).toBe(400);
    expect(d.body.payload.errors).toEqual({ email: MSG.emailRequired });
  });

  it('updates a member by uid (email may change) or by email', async () => {
    const c = await company(env.app);
    const k = await courier(env.app, c.session);
    const r = await call(env.app, 'POST', '/v1/user/general/updatemember', {
      token: c.session,
      body: { uid: k.uid, email: 'renamed@example.com', role: 'courier', firstName: 'Ren', lastName: 'Amed', phone: '3105550100' },
    });
    expect(r.statusCode).toBe(200);
    expect(r.body.payload).toMatchObject({ uid: k.uid, email: 'renamed@example.com', firstName: 'Ren', phone: '(310) 555-0100' });
    const login = await call(env.app, 'POST', '/v1/user/general/login', {
      body: { email: 'renamed@example.com', password: 'courierpass1' },
    });
    expect(login.statusCode).toBe(200);
  });

  it('deleting a courier keeps the shipments, unassigned, and ends the courier account', async () => {
    const c = await company(env.app);
    const k = await courier(env.app, c.session);
    const s = await createShipment(env.app, c.session, readmeShipment(k.email));
    const members = await call(env.app, 'POST', '/v1/user/general/getmembers', { token: c.session });
    expect(members.body.payload[0].openShipments).toBe(1);
    const del = await call(env.app, 'POST', '/v1/user/general/deletemember', { token: c.session, body: { email: k.email } });
    expect(del.statusCode).toBe(200);
    const list = await call(env.app, 'POST', '/v1/shipment/getshipments', { token: c.session, body: {} });
    expect(list.body.payload.find((x: { tid: string }) => x.tid === s.tid)).toMatchObject({
      courierUid: null,
      courierEmail: k.email,
      courier: 'courier person or company name',
    });
    const gone = await call(env.app, 'POST', '/v1/shipment/getassigned', { token: k.session });
    expect(gone.statusCode).toBe(401);
    const again = await call(env.app, 'POST', '/v1/user/general/deletemember', { token: c.session, body: { email: k.email } });
    expect(again.statusCode).toBe(404);
  });

  it('a courier keeps off trackings, settings and the API key, but may change their own password', async () => {
    const c = await company(env.app);
    const k = await courier(env.app, c.session);
    const add = await call(env.app, 'POST', '/v1/trackings/add', { token: k.session, body: { tid: '1Z999AA10123456784' } });
    expect(add.statusCode).toBe(403);
    expect((await call(env.app, 'GET', '/v1/trackings/get', { token: k.session })).statusCode).toBe(403);
    expect(
      (await call(env.app, 'POST', '/v1/user/general/update', { token: k.session, body: { settings: { themeid: 'B' } } })).statusCode,
    ).toBe(403);
    expect((await call(env.app, 'POST', '/v1/user/general/generatenewtoken', { token: k.session })).statusCode).toBe(403);
    expect((await call(env.app, 'GET', '/v1/notifications/log', { token: k.session })).statusCode).toBe(403);
    const pw = await call(env.app, 'POST', '/v1/user/general/passwordupdate', {
      token: k.session,
      body: { password: 'courierpass1', newpassword: 'newcourierpass' },
    });
    expect(pw.statusCode).toBe(200);
    const info = await call(env.app, 'GET', '/v1/user/info', { token: k.session });
    expect(info.body.payload.profile.role).toBe('courier');
  });

  it('a courier position shows on getmembers (reported directly or with a checkpoint)', async () => {
    const c = await company(env.app);
    const k = await courier(env.app, c.session);
    const s = await createShipment(env.app, c.session, readmeShipment(k.email));
    await call(env.app, 'POST', '/v1/shipment/update', {
      token: k.session,
      body: { tid: s.tid, status: 'OutForDelivery', location: 'Main St', lat: 40.5, long: -100.25 },
    });
    let m = await call(env.app, 'POST', '/v1/user/general/getmembers', { token: c.session });
    expect(m.body.payload[0].geo).toEqual({ lat: 40.5, lng: -100.25 });
    const pos = await call(env.app, 'POST', '/v1/user/general/position', { token: k.session, body: { lat: 39, lng: -98 } });
    expect(pos.statusCode).toBe(200);
    m = await call(env.app, 'POST', '/v1/user/general/getmembers', { token: c.session });
    expect(m.body.payload[0].geo).toEqual({ lat: 39, lng: -98 });
    expect((await call(env.app, 'POST', '/v1/user/general/position', { token: c.session, body: { lat: 1, lng: 1 } })).statusCode).toBe(403);
  });

  it('a person account has no members', async () => {
    const p = await signUp(env.app);
    const r = await call(env.app, 'POST', '/v1/user/general/getmembers', { token: p.session });
    expect(r.statusCode).toBe(403);
  });
});
