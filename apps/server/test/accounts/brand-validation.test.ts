// Issue 33 / attack 2026-11-26 finding 8: the brand's logo and site were stored unvalidated and came back in the
// public tracking API (`javascript:`), and the company name kept line breaks and the right-to-left override.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { MSG } from '@shiptrail/contract';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { users } from '../../src/db/schema.ts';
import { createShipment } from '../shipments/fixtures.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

const update = (token: string, profile: Record<string, unknown>) =>
  call(env.app, 'POST', '/v1/user/general/update', { token, body: { profile } });

describe('brand fields are checked on save', () => {
  it('refuses a javascript: logo and site, a name with a line break or a bidi override, with the messages of the form', async () => {
    const c = await signUp(env.app, { userType: 'company', company: 'Acme' });
    const bad = await update(c.session, {
      image: 'javascript:alert(document.domain)',
      companyUrl: 'javascript:alert(document.domain)',
      company: 'ACME\r\nBcc: x@y\u202egnp.exe',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body.payload.errors).toEqual({
      'profile.image': MSG.urlInvalid,
      'profile.companyUrl': MSG.urlInvalid,
      'profile.company': MSG.companyInvalid,
    });
    for (const url of [
      'http://acme.example/logo.png',
      'data:image/png;base64,AAAA',
      'ftp://acme.example/x',
      'https://user:pw@acme.example/',
      '/logo.png',
    ]) {
      const r = await update(c.session, { companyUrl: url });
      expect(r.body.payload.errors, url).toEqual({ 'profile.companyUrl': MSG.urlInvalid });
    }
    for (const name of ['Acme\u202e', 'Acme\u2066x', 'Acme\ttab', 'Acme\u0085']) {
      const r = await update(c.session, { company: name });
      expect(r.body.payload.errors, JSON.stringify(name)).toEqual({ 'profile.company': MSG.companyInvalid });
    }
    const names = await update(c.session, { firstName: 'Eve\nBob', lastName: 'x\u202dy' });
    expect(names.body.payload.errors).toEqual({ 'profile.firstName': MSG.nameInvalid, 'profile.lastName': MSG.nameInvalid });
    const signup = await call(env.app, 'POST', '/v1/user/general/signup', {
      body: {
        email: 'rtl@example.com',
        password: 'password123',
        repassword: 'password123',
        terms: true,
        userType: 'company',
        company: 'Bank\u202e',
      },
    });
    expect(signup.body.payload.errors).toEqual({ company: MSG.companyInvalid });

    const ok = await update(c.session, {
      image: ' https://acme.example/logo.png ',
      companyUrl: 'https://acme.example',
      company: '  Acme Parcels  ',
      firstName: 'Zoë',
    });
    expect(ok.statusCode, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.payload.profile).toMatchObject({
      image: 'https://acme.example/logo.png',
      companyUrl: 'https://acme.example',
      company: 'Acme Parcels',
      firstName: 'Zoë',
    });
    // http on this machine's loopback, for development.
    expect((await update(c.session, { companyUrl: 'http://localhost:5173/' })).statusCode).toBe(200);
  });

  it('cleans what the public tracking API serves from rows saved before the rule', async () => {
    const c = await signUp(env.app, { userType: 'company', company: 'Acme' });
    const s = await createShipment(env.app, c.session);
    await env.ctx.db
      .update(users)
      .set({ image: 'javascript:alert(document.domain)', companyUrl: 'javascript:alert(1)', company: 'ACME\r\nBcc: x@y\u202egnp.exe' })
      .where(eq(users.email, c.email));
    const pub = await call(env.app, 'GET', `/v1/track/${c.profile.uid}_${s.tid}`);
    expect(pub.statusCode).toBe(200);
    expect(pub.body.payload[0].brand).toMatchObject({ name: 'ACME Bcc: x@y gnp.exe', logo: '', url: '' });
  });
});
