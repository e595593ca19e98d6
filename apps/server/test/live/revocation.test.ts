// An open /v1/live stream lives only as long as its token (attack of 2026-11-26, finding 2): a new API key, a
// logout, a password change or a deleted courier ends it; and one account cannot open thousands.
// Real HTTP server on loopback, real bus.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestEnv, eventually, signUp, type TestEnv } from '../helpers.ts';
import { STREAMS_BUSY, TOO_MANY_STREAMS } from '../../src/modules/live/live.routes.ts';
import { company, courier } from '../shipments/fixtures.ts';
import { openStream, type SseStream } from './sse-client.ts';

const envs: TestEnv[] = [];
const opened: SseStream[] = [];
afterAll(async () => {
  for (const s of opened) s.close();
  for (const e of envs) await e.close();
});

async function serve(vars: Record<string, string> = {}): Promise<{ env: TestEnv; base: string }> {
  const env = await createTestEnv(vars);
  envs.push(env);
  await env.app.listen({ port: 0, host: '127.0.0.1' });
  return { env, base: `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}` };
}
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), ms))]);

describe('a stream ends when its token stops being valid', () => {
  let env: TestEnv;
  let base: string;
  beforeAll(async () => {
    ({ env, base } = await serve());
  });
  const stream = async (token: string) => {
    const s = await openStream(base, token);
    opened.push(s);
    expect(s.status).toBe(200);
    return s;
  };

  it('a new API key ends the streams of the old one; the web session keeps its stream', async () => {
    const a = await signUp(env.app, { userType: 'company', company: 'Acme' });
    const byKey = await stream(a.apiKey);
    const bySession = await stream(a.session);
    const r = await call(env.app, 'POST', '/v1/user/general/generatenewtoken', { token: a.session, body: {} });
    expect(r.statusCode).toBe(200);
    expect(await within(byKey.ended, 10_000)).toBe(true);
    expect(await within(bySession.ended, 500)).toBe(false);
    // The old key opens nothing any more; the new one does.
    expect((await openStream(base, a.apiKey)).status).toBe(401);
    const fresh = await stream(r.body.payload.token);
    expect(await within(fresh.ended, 300)).toBe(false);
  });

  it('logging out ends that session’s stream', async () => {
    const a = await signUp(env.app);
    const s = await stream(a.session);
    expect((await call(env.app, 'POST', '/v1/user/general/logout', { token: a.session, body: {} })).statusCode).toBe(200);
    expect(await within(s.ended, 10_000)).toBe(true);
  });

  it('a password change ends the streams of the other sessions', async () => {
    const a = await signUp(env.app);
    const other = await call(env.app, 'POST', '/v1/user/general/login', { body: { email: a.email, password: 'password123' } });
    const elsewhere = await stream(other.body.payload.sessionToken);
    const here = await stream(a.session);
    const r = await call(env.app, 'POST', '/v1/user/general/passwordupdate', {
      token: a.session,
      body: { password: 'password123', newpassword: 'a-new-password-9' },
    });
    expect(r.statusCode).toBe(200);
    expect(await within(elsewhere.ended, 10_000)).toBe(true);
    expect(await within(here.ended, 500)).toBe(false);
  });

  it("a deleted courier's stream ends", async () => {
    const boss = await company(env.app);
    const carl = await courier(env.app, boss.session);
    const s = await stream(carl.session);
    const r = await call(env.app, 'POST', '/v1/user/general/deletemember', { token: boss.session, body: { email: carl.email } });
    expect(r.statusCode).toBe(200);
    expect(await within(s.ended, 10_000)).toBe(true);
  });

  it('a change that leaves the token valid (a settings save) keeps the stream', async () => {
    const a = await signUp(env.app, { userType: 'company', company: 'Acme' });
    const s = await stream(a.session);
    expect(
      (await call(env.app, 'POST', '/v1/user/general/update', { token: a.session, body: { profile: { company: 'Acme Two' } } })).statusCode,
    ).toBe(200);
    expect(await within(s.ended, 1500)).toBe(false);
  });
});

describe('streams per user and per process', () => {
  it('refuses a stream past LIVE_STREAMS_PER_USER with a 429, frees the place when one closes, and past LIVE_STREAMS_MAX with a 503', async () => {
    const { env, base } = await serve({ LIVE_STREAMS_PER_USER: '3', LIVE_STREAMS_MAX: '5' });
    const a = await signUp(env.app);
    const b = await signUp(env.app);
    const mine: SseStream[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await openStream(base, i === 1 ? a.apiKey : a.session);
      opened.push(s);
      expect(s.status).toBe(200);
      mine.push(s);
    }
    const fourth = await openStream(base, a.apiKey);
    opened.push(fourth);
    expect(fourth.status).toBe(429);
    await fourth.ended;
    expect(fourth.text()).toContain(TOO_MANY_STREAMS);
    // Another user is not counted with a.
    for (let i = 0; i < 2; i++) {
      const s = await openStream(base, b.session);
      opened.push(s);
      expect(s.status).toBe(200);
    }
    // The process is full (5): a third user is refused with a 503 that says so.
    const c = await signUp(env.app);
    const full = await openStream(base, c.session);
    opened.push(full);
    expect(full.status).toBe(503);
    await full.ended;
    expect(full.text()).toContain(STREAMS_BUSY);
    // One of a's closes: a may open one again.
    mine[0]!.close();
    await eventually(async () => (env.app.liveHub.size === 4 ? true : null), 5000, 20);
    const again = await openStream(base, a.session);
    opened.push(again);
    expect(again.status).toBe(200);
  });
});
