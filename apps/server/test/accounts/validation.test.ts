import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq, sql } from 'drizzle-orm';
import { MSG } from '@shiptrail/contract';
import { ledgerEntries, users } from '../../src/db/schema.ts';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';

// Every validation message of product rules §5 for the account forms, through the API.
describe('validation messages (product rules §5)', () => {
  let env: TestEnv;
  let token: string;
  beforeAll(async () => {
    env = await createTestEnv();
    token = (await signUp(env.app)).session;
  });
  afterAll(() => env.close());

  const errorsOf = async (method: 'GET' | 'POST', url: string, body?: unknown, auth = false) => {
    const r = await call(env.app, method, url, { body, token: auth ? token : undefined });
    expect(r.statusCode).toBe(400);
    expect(r.body.status).toBe('fail');
    expect(r.body.code).toBe(400);
    return r.body.payload.errors as Record<string, string>;
  };

  it('login', async () => {
    expect(await errorsOf('POST', '/v1/user/general/login', {})).toMatchObject({
      email: 'Email is required',
      password: 'Password is required',
    });
    expect(await errorsOf('POST', '/v1/user/general/login', { email: '', password: '' })).toMatchObject({
      email: 'Email is required',
      password: 'Password is required',
    });
    expect(await errorsOf('POST', '/v1/user/general/login', { email: 'nope', password: '12345' })).toMatchObject({
      email: 'Invalid email address',
      password: 'Must be 6 characters or greater than',
    });
  });

  it('registration', async () => {
    expect(
      await errorsOf('POST', '/v1/user/general/signup', {
        email: 'x@y.co',
        password: 'longenough',
        repassword: 'different1',
        terms: false,
      }),
    ).toMatchObject({
      terms: 'Be sure to agree to the terms of service',
      repassword: 'Passwords do not match',
    });
    expect(
      await errorsOf('POST', '/v1/user/general/signup', { email: 'x@y.co', password: 'short7!', repassword: 'short7!', terms: true }),
    ).toMatchObject({
      password: 'Must be 8 characters or greater than',
    });
    expect(await errorsOf('POST', '/v1/user/general/signup', { password: '', terms: true })).toMatchObject({
      email: 'Email is required',
      password: 'Password is required',
    });
  });

  it('registration rejects a taken address with 409 and books no second bonus', async () => {
    const a = await signUp(env.app);
    const r = await call(env.app, 'POST', '/v1/user/general/signup', {
      body: { email: a.email.toUpperCase(), password: 'password123', repassword: 'password123', terms: true },
    });
    expect(r.body).toMatchObject({ code: 409, status: 'fail', message: 'An account with this email already exists' });
    // One account for the address, holding the one bonus of the first sign-up.
    const accounts = await env.ctx.db
      .select({ id: users.id })
      .from(users)
      .where(sql`lower(${users.email}) = ${a.email.toLowerCase()}`);
    expect(accounts).toHaveLength(1);
    const bonuses = await env.ctx.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, accounts[0]!.id), eq(ledgerEntries.kind, 'signup_bonus')));
    expect(bonuses).toHaveLength(1);
    const [all] = await env.ctx.db.select({ n: count() }).from(ledgerEntries).where(eq(ledgerEntries.kind, 'signup_bonus'));
    const [people] = await env.ctx.db.select({ n: count() }).from(users);
    expect(Number(all!.n)).toBe(Number(people!.n));
  });

  it('limits sign-ups to 20 an hour from one client address, with the 429 envelope', async () => {
    const limited = await createTestEnv();
    try {
      const from = (remoteAddress: string, i: number) =>
        limited.app.inject({
          method: 'POST',
          url: '/v1/user/general/signup',
          remoteAddress,
          payload: { email: `limit${i}-${remoteAddress}@example.com`, password: 'password123', repassword: 'password123', terms: true },
        });
      for (let i = 0; i < 20; i++) expect((await from('203.0.113.7', i)).json().code).toBe(201);
      const over = await from('203.0.113.7', 20);
      expect(over.json()).toMatchObject({ code: 429, status: 'fail', message: MSG.tooManyAttempts });
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      const [n] = await limited.ctx.db
        .select({ n: count() })
        .from(users)
        .where(sql`${users.email} like ${'limit%-203.0.113.7@example.com'}`);
      expect(Number(n!.n)).toBe(20);
      // The limit is per address: another client still signs up.
      expect((await from('203.0.113.8', 0)).json().code).toBe(201);
    } finally {
      await limited.close();
    }
  });

  it('recover', async () => {
    const r = await call(env.app, 'GET', '/v1/user/password/recover/not-an-email');
    expect(r.body).toMatchObject({ code: 400, payload: { errors: { email: 'Invalid email address' } } });
  });

  it('contact', async () => {
    expect(await errorsOf('POST', '/v1/user/general/getintouch', { email: '', name: '', message: '', phone: '123' })).toMatchObject({
      email: 'Email is required',
      name: 'Full name is required',
      message: 'Message is required',
      phone: 'Invalid phone number',
    });
  });

  it('account update: phone is US only, +1 stripped and reformatted; email is read-only', async () => {
    expect(await errorsOf('POST', '/v1/user/general/update', { profile: { phone: '+44 20 7946 0958' } }, true)).toMatchObject({
      'profile.phone': 'Invalid phone number',
    });
    expect(await errorsOf('POST', '/v1/user/general/update', { profile: { email: 'bad' } }, true)).toMatchObject({
      'profile.email': 'Invalid email address',
    });
    const ok = await call(env.app, 'POST', '/v1/user/general/update', { token, body: { profile: { phone: '+1 212 555 0199' } } });
    expect(ok.body.payload.profile.phone).toBe('(212) 555-0199');
  });

  it('time zone: an IANA name is stored and served; an unknown one is refused in words; a sign-up with one gets UTC', async () => {
    expect(await errorsOf('POST', '/v1/user/general/update', { profile: { timeZone: 'Mars/Olympus_Mons' } }, true)).toMatchObject({
      'profile.timeZone': MSG.timeZoneInvalid,
    });
    const ok = await call(env.app, 'POST', '/v1/user/general/update', { token, body: { profile: { timeZone: 'America/Chicago' } } });
    expect(ok.body.payload.profile.timeZone).toBe('America/Chicago');
    const odd = await signUp(env.app, { timeZone: 'Not/A_Zone' });
    const info = await call(env.app, 'GET', '/v1/user/info', { token: odd.session });
    expect(info.body.payload.profile.timeZone).toBe('UTC');
  });

  it('empty strings are dropped: they never overwrite a stored value', async () => {
    await call(env.app, 'POST', '/v1/user/general/update', { token, body: { profile: { firstName: 'Kept' } } });
    const r = await call(env.app, 'POST', '/v1/user/general/update', { token, body: { profile: { firstName: '', phone: '' } } });
    expect(r.body.status).toBe('success');
    expect(r.body.payload.profile.firstName).toBe('Kept');
  });

  it('password change and reset', async () => {
    expect(await errorsOf('POST', '/v1/user/general/passwordupdate', { password: '', newpassword: '' }, true)).toMatchObject({
      password: 'Current password is required',
      newpassword: 'Password is required',
    });
    expect(await errorsOf('POST', '/v1/user/general/passwordupdate', { password: '12345', newpassword: 'abc' }, true)).toMatchObject({
      password: 'Must be 6 characters or greater than',
    });
    expect(await errorsOf('POST', '/v1/user/general/passwordreset', { password: '', verifycode: 'k' })).toMatchObject({
      password: 'Password is required',
    });
    // A reset sets a new password: the sign-up rule, 8 characters (decision 103).
    expect(await errorsOf('POST', '/v1/user/general/passwordreset', { password: '1234567', verifycode: 'k' })).toMatchObject({
      password: 'Must be 8 characters or greater than',
    });
  });

  it('receive-notification endpoints: required when a trigger is ticked, and well-formed', async () => {
    const upd = (receiveNotification: unknown) => errorsOf('POST', '/v1/user/general/update', { settings: { receiveNotification } }, true);
    expect(await upd({ webhook: { triggers: { Delivered: true }, endpoint: '' } })).toMatchObject({
      'settings.receiveNotification.webhook.endpoint': 'Url is required',
    });
    expect(await upd({ webhook: { triggers: { Delivered: true }, endpoint: 'ftp://x' } })).toMatchObject({
      'settings.receiveNotification.webhook.endpoint': 'Invalid Url',
    });
    expect(await upd({ phone: { triggers: { InTransit: true }, endpoint: '+33 1 23 45 67 89' } })).toMatchObject({
      'settings.receiveNotification.phone.endpoint': 'Invalid Phone Number',
    });
    expect(await upd({ email: { triggers: { InTransit: true }, endpoint: 'not-mail' } })).toMatchObject({
      'settings.receiveNotification.email.endpoint': 'Invalid email address',
    });
    // Email and phone endpoints may stay empty ('false' too): they default to the profile's (product rules §4).
    const ok = await call(env.app, 'POST', '/v1/user/general/update', {
      token,
      body: {
        settings: {
          receiveNotification: { email: { triggers: { Delivered: true }, endpoint: 'false' }, phone: { triggers: {}, endpoint: '' } },
        },
      },
    });
    expect(ok.body.status).toBe('success');
    const ticked = await call(env.app, 'POST', '/v1/user/general/update', {
      token,
      body: { settings: { receiveNotification: { phone: { triggers: { Delivered: true }, endpoint: '2025550143' } } } },
    });
    expect(ticked.body.payload.settings.receiveNotification.phone.endpoint).toBe('(202) 555-0143');
  });

  // Decision 100 reverses the second half (person accounts had no send-notification settings): their customers are told too.
  it('theme must be A to H; person accounts may set send-notification settings', async () => {
    expect(await errorsOf('POST', '/v1/user/general/update', { settings: { themeid: 'Z' } }, true)).toHaveProperty(['settings.themeid']);
    const r = await call(env.app, 'POST', '/v1/user/general/update', {
      token,
      body: { settings: { sendNotification: { email: { triggers: { Delivered: false, InTransit: true } } } } },
    });
    expect(r.body).toMatchObject({ code: 200, status: 'success' });
    expect(r.body.payload.settings.sendNotification.email.triggers).toMatchObject({ Delivered: false, InTransit: true, FailAttempt: true });
  });

  it('support and invite', async () => {
    expect(await errorsOf('POST', '/v1/user/general/supportrequest', { message: '  ' }, true)).toMatchObject({
      message: 'Message is required',
    });
    expect(await errorsOf('POST', '/v1/user/general/invitefriend', { email: '' }, true)).toMatchObject({ email: 'Email is required' });
    expect(await errorsOf('POST', '/v1/user/general/invitefriend', { email: 'a@' }, true)).toMatchObject({
      email: 'Invalid email address',
    });
  });

  it('malformed bodies get a 4xx envelope, never a 500', async () => {
    const bad = await env.app.inject({
      method: 'POST',
      url: '/v1/user/general/login',
      headers: { 'content-type': 'application/json', 'sm-http-status': 'real' },
      payload: '{"email":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 400, status: 'fail', message: 'The request body is not valid JSON' });
    const arr = await call(env.app, 'POST', '/v1/user/general/signup', { body: [1, 2] });
    expect(arr.body).toMatchObject({ code: 400, status: 'fail' });
  });
});
