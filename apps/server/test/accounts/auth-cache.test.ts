// The api process keeps checked tokens in memory (decision 086). What a user must never see: a token that
// still works after logout, a password change, a new API key or a deleted courier account; or a session used
// past its end. And the cache must really serve: a token revoked behind the API's back keeps working until
// the TTL, which is how this test knows the database was not asked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { hashToken } from '../../src/modules/accounts/tokens.ts';
import { call, createTestEnv, eventually, onPostgres, signUp, type TestEnv } from '../helpers.ts';
import { company, courier } from '../shipments/fixtures.ts';

// Long enough that the two requests of the first check fit inside it on a loaded machine (a 1 s TTL ran out
// between them once, with three test files beside it on PostgreSQL).
const TTL_S = 3;

describe('the token cache', () => {
  let env: TestEnv;
  let off: TestEnv;
  beforeAll(async () => {
    [env, off] = await Promise.all([createTestEnv({ AUTH_CACHE_SECONDS: String(TTL_S) }), createTestEnv({ AUTH_CACHE_SECONDS: '0' })]);
  });
  afterAll(() => Promise.all([env.close(), off.close()]));

  const info = (e: TestEnv, token: string) => call(e.app, 'GET', '/v1/user/info', { token }).then((r) => r.statusCode);
  const revokeBehindTheApisBack = (e: TestEnv, token: string) =>
    e.ctx.db.execute(sql`update sessions set revoked_at = now() where token_hash = ${hashToken(token)}`);

  it('serves a checked token from memory for at most AUTH_CACHE_SECONDS', async () => {
    const a = await signUp(env.app);
    const checked = Date.now();
    expect(await info(env, a.session)).toBe(200);
    await revokeBehindTheApisBack(env, a.session);
    // Still the cached answer: nothing announced the change.
    expect(await info(env, a.session)).toBe(200);
    expect(Date.now() - checked, 'the check itself outlasted the TTL').toBeLessThan(TTL_S * 1000);
    await new Promise((r) => setTimeout(r, TTL_S * 1000 - (Date.now() - checked) + 100));
    expect(await info(env, a.session)).toBe(401);

    // With the cache off, the same steps refuse at once.
    const b = await signUp(off.app);
    expect(await info(off, b.session)).toBe(200);
    await revokeBehindTheApisBack(off, b.session);
    expect(await info(off, b.session)).toBe(401);
  });

  it('forgets a token at once on logout, password change, new API key and profile change', async () => {
    const a = await signUp(env.app);
    const other = await call(env.app, 'POST', '/v1/user/general/login', { body: { email: a.email, password: 'password123' } });
    const second = other.body.payload.sessionToken as string;
    for (const t of [a.session, second, a.apiKey]) expect(await info(env, t)).toBe(200);

    expect((await call(env.app, 'POST', '/v1/user/general/logout', { token: second })).statusCode).toBe(200);
    expect(await info(env, second)).toBe(401);
    expect(await info(env, a.session)).toBe(200);

    const rotated = await call(env.app, 'POST', '/v1/user/general/generatenewtoken', { token: a.session });
    expect(rotated.statusCode).toBe(200);
    expect(await info(env, a.apiKey)).toBe(401);

    // A profile change is seen by the next request (handlers read the account from the cached row).
    await call(env.app, 'POST', '/v1/user/general/update', { token: a.session, body: { profile: { firstName: 'Grace' } } });
    expect((await call(env.app, 'GET', '/v1/user/info', { token: a.session })).body.payload.profile.firstName).toBe('Grace');

    const third = (await call(env.app, 'POST', '/v1/user/general/login', { body: { email: a.email, password: 'password123' } })).body
      .payload.sessionToken as string;
    expect(await info(env, third)).toBe(200);
    const changed = await call(env.app, 'POST', '/v1/user/general/passwordupdate', {
      token: a.session,
      body: { password: 'password123', newpassword: 'password456' },
    });
    expect(changed.statusCode).toBe(200);
    // The other sessions end with the old password; the one that changed it stays.
    expect(await info(env, third)).toBe(401);
    expect(await info(env, a.session)).toBe(200);
  });

  it("forgets a deleted courier's session at once", async () => {
    const owner = await company(env.app);
    const c = await courier(env.app, owner.session);
    expect(await info(env, c.session)).toBe(200);
    expect(
      (await call(env.app, 'POST', '/v1/user/general/deletemember', { token: owner.session, body: { email: c.email } })).statusCode,
    ).toBe(200);
    expect(await info(env, c.session)).toBe(401);
  });

  it('never uses a cached session past its end', async () => {
    const a = await signUp(env.app);
    expect(await info(env, a.session)).toBe(200);
    const real = env.ctx.now;
    env.ctx.now = () => new Date(Date.now() + 400 * 86_400_000);
    try {
      expect(await info(env, a.session)).toBe(401);
    } finally {
      env.ctx.now = real;
    }
  });

  // A message lost while the bus was down (a revocation announced then) must not live on for the TTL: after a
  // reconnect the cache forgets everything. The TTL here is 5 minutes, so only the reset can explain a 401.
  it.runIf(onPostgres)('forgets everything when the bus connection is lost and comes back', async () => {
    const long = await createTestEnv({ AUTH_CACHE_SECONDS: '300' });
    try {
      const a = await signUp(long.app);
      expect(await info(long, a.session)).toBe(200);
      await revokeBehindTheApisBack(long, a.session);
      expect(await info(long, a.session)).toBe(200); // cached, nothing announced
      const killed = await long.ctx.db.execute(
        sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query = 'LISTEN shiptrail_bus' and pid <> pg_backend_pid()`,
      );
      expect((killed as unknown as { rows: unknown[] }).rows.length).toBeGreaterThanOrEqual(1);
      await eventually(async () => ((await info(long, a.session)) === 401 ? true : null), 10_000, 100);
    } finally {
      await long.close();
    }
  });
});
