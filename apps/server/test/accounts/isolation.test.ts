import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';

describe('tenant isolation and authentication', () => {
  let env: TestEnv;
  beforeAll(async () => (env = await createTestEnv({ LOGIN_MAX_ATTEMPTS: '3' })));
  afterAll(() => env.close());

  it("one account's token only ever reads and changes its own data", async () => {
    const a = await signUp(env.app, { firstName: 'Alice' });
    const b = await signUp(env.app, { firstName: 'Bob' });
    const infoA = await call(env.app, 'GET', '/v1/user/info', { token: a.apiKey });
    expect(infoA.body.payload.profile.email).toBe(a.email);
    await call(env.app, 'POST', '/v1/user/general/update', { token: b.session, body: { profile: { firstName: 'Mallory' } } });
    expect((await call(env.app, 'GET', '/v1/user/info', { token: a.session })).body.payload.profile.firstName).toBe('Alice');
    // Bob cannot change Alice's email by naming it, nor dismiss her alerts.
    const sneaky = await call(env.app, 'POST', '/v1/user/general/update', {
      token: b.session,
      body: { profile: { email: a.email, firstName: 'X' } },
    });
    expect(sneaky.body.status).toBe('fail');
    // Nothing changed on either side: Alice keeps her address and name, Bob his address.
    const afterA = (await call(env.app, 'GET', '/v1/user/info', { token: a.session })).body.payload.profile;
    expect(afterA).toMatchObject({ email: a.email, firstName: 'Alice' });
    expect((await call(env.app, 'GET', '/v1/user/info', { token: b.session })).body.payload.profile.email).toBe(b.email);
    const { alerts } = await import('../../src/db/schema.ts');
    const userA = (await env.ctx.db.query.users.findFirst({ where: (u, { eq }) => eq(u.email, a.email) }))!;
    const [alert] = await env.ctx.db
      .insert(alerts)
      .values({ userId: userA.id, group: 'general', name: 'hello', message: 'for Alice' })
      .returning();
    expect((await call(env.app, 'POST', `/v1/user/alerts/dismiss/${alert!.id}`, { token: b.session })).statusCode).toBe(404);
    expect(
      (await call(env.app, 'GET', '/v1/user/info', { token: a.session })).body.payload.alerts.general.some(
        (x: { id: string }) => x.id === alert!.id,
      ),
    ).toBe(true);
    expect((await call(env.app, 'POST', `/v1/user/alerts/dismiss/${alert!.id}`, { token: a.session })).statusCode).toBe(200);
    // Logging out Bob's session does not touch Alice's.
    await call(env.app, 'POST', '/v1/user/general/logout', { token: b.session });
    expect((await call(env.app, 'GET', '/v1/user/info', { token: a.session })).statusCode).toBe(200);
  });

  it('refuses missing, malformed and unknown tokens with the 401 envelope', async () => {
    for (const token of [undefined, '', 'sess_nope', 'x'.repeat(500), 'A'.repeat(40)]) {
      const r = await call(env.app, 'GET', '/v1/user/info', { token });
      expect(r.statusCode).toBe(401);
      expect(r.body).toMatchObject({ code: 401, status: 'fail', message: 'Please log in again' });
    }
  });

  it('limits failed logins per account with a clear message', async () => {
    const a = await signUp(env.app);
    for (let i = 0; i < 3; i++) {
      const r = await call(env.app, 'POST', '/v1/user/general/login', { body: { email: a.email, password: 'wrongpass' } });
      expect(r.body).toMatchObject({ code: 401, message: 'Invalid email or password' });
    }
    const blocked = await call(env.app, 'POST', '/v1/user/general/login', { body: { email: a.email, password: 'password123' } });
    expect(blocked.body).toMatchObject({
      code: 429,
      status: 'fail',
      message: 'Too many attempts. Please wait a few minutes and try again.',
    });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a changed SESSION_SECRET hides stored API keys but never breaks the account', async () => {
    const a = await signUp(env.app);
    const saved = env.config.sessionSecret;
    env.ctx.config.sessionSecret = 'another-secret-another-secret-0123456789';
    try {
      const info = await call(env.app, 'GET', '/v1/user/info', { token: a.apiKey });
      expect(info.statusCode).toBe(200);
      expect(info.body.payload.profile.token).toBe('');
    } finally {
      env.ctx.config.sessionSecret = saved;
    }
    expect((await call(env.app, 'GET', '/v1/user/info', { token: a.session })).body.payload.profile.token).toBe(a.apiKey);
  });
});
