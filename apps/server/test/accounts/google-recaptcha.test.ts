import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { users } from '../../src/db/schema.ts';
import { call, createTestEnv, type TestEnv } from '../helpers.ts';
import { onLoopback } from '../loopback.ts';

/**
 * A local stand-in for Google's OAuth endpoints (authorization code + PKCE) and reCAPTCHA's verify
 * endpoint, as real HTTP servers on loopback.
 */
interface FakeGoogle {
  url: string;
  close(): Promise<void>;
  codes: Map<string, { challenge: string; redirectUri: string; user: Record<string, unknown> }>;
  tokenRequests: URLSearchParams[];
}

async function startFakeGoogle(): Promise<FakeGoogle> {
  const codes = new Map<string, { challenge: string; redirectUri: string; user: Record<string, unknown> }>();
  const tokens = new Map<string, Record<string, unknown>>();
  const tokenRequests: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (req.url === '/token') {
        const p = new URLSearchParams(body);
        tokenRequests.push(p);
        const c = codes.get(p.get('code') ?? '');
        const verifier = p.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (!c || c.challenge !== challenge || c.redirectUri !== p.get('redirect_uri') || p.get('client_secret') !== 'shh')
          return json(400, { error: 'invalid_grant' });
        codes.delete(p.get('code')!);
        const at = 'at-' + Math.random();
        tokens.set(at, c.user);
        return json(200, { access_token: at, token_type: 'Bearer', expires_in: 3600 });
      }
      if (req.url === '/userinfo') {
        const u = tokens.get((req.headers.authorization ?? '').replace('Bearer ', ''));
        return u ? json(200, u) : json(401, { error: 'invalid_token' });
      }
      if (req.url === '/recaptcha') {
        const p = new URLSearchParams(body);
        return json(200, { success: p.get('secret') === 'rc-secret' && p.get('response') === 'human' });
      }
      json(404, {});
    });
  });
  const { url, close } = await onLoopback(server);
  return { url, close, codes, tokenRequests };
}

describe('Google sign-in (authorization code + PKCE) against a local fake provider', () => {
  let g: FakeGoogle;
  let env: TestEnv;
  beforeAll(async () => {
    g = await startFakeGoogle();
    env = await createTestEnv({
      GOOGLE_CLIENT_ID: 'cid',
      GOOGLE_CLIENT_SECRET: 'shh',
      GOOGLE_AUTH_URL: `${g.url}/auth`,
      GOOGLE_TOKEN_URL: `${g.url}/token`,
      GOOGLE_USERINFO_URL: `${g.url}/userinfo`,
      RECAPTCHA_SECRET: 'rc-secret',
      RECAPTCHA_VERIFY_URL: `${g.url}/recaptcha`,
    });
  });
  afterAll(async () => {
    await env.close();
    await g.close();
  });

  /** What a browser does: follow the auth URL, "consent", come back with code and state. */
  async function consent(action: string, user: Record<string, unknown>) {
    const r = await call(env.app, 'POST', '/v1/user/general/login', { body: { action } });
    expect(r.body.status).toBe('success');
    const u = new URL(r.body.payload['google-auth-url']);
    expect(u.origin + u.pathname).toBe(`${g.url}/auth`);
    expect(u.searchParams.get('code_challenge_method')).toBe('S256');
    expect(u.searchParams.get('client_id')).toBe('cid');
    const code = 'code-' + Math.random();
    g.codes.set(code, { challenge: u.searchParams.get('code_challenge')!, redirectUri: u.searchParams.get('redirect_uri')!, user });
    return { code, state: u.searchParams.get('state')!, redirectUri: u.searchParams.get('redirect_uri')! };
  }

  it('signs up a new user with Google, then logs the same user in', async () => {
    const user = { sub: 'g-1', email: 'Gina@Gmail.com', email_verified: true, given_name: 'Gina', family_name: 'G' };
    const first = await consent('generate-google-signup-url', user);
    expect(first.redirectUri).toBe('http://shiptrail.test/');
    const r1 = await call(env.app, 'POST', '/v1/user/general/login', {
      body: { code: first.code, state: first.state, userType: 'company', recaptcha: 'human' },
    });
    expect(r1.body).toMatchObject({
      status: 'success',
      payload: { profile: { email: 'gina@gmail.com', emailVerified: true, userType: 'company', firstName: 'Gina', balance: 10 } },
    });
    expect(g.tokenRequests.at(-1)!.get('code_verifier')).toBeTruthy();

    const second = await consent('generate-google-auth-url', user);
    expect(second.redirectUri).toBe('http://shiptrail.test/?login=1');
    const r2 = await call(env.app, 'POST', '/v1/user/general/login', {
      body: { code: second.code, state: second.state, recaptcha: 'human' },
    });
    expect(r2.body.payload.profile.uid).toBe(r1.body.payload.profile.uid);
  });

  it('rejects a replayed or unknown state', async () => {
    const c = await consent('generate-google-auth-url', { sub: 'g-2', email: 'x@gmail.com', email_verified: true });
    const ok = await call(env.app, 'POST', '/v1/user/general/login', { body: { code: c.code, state: c.state, recaptcha: 'human' } });
    expect(ok.body.status).toBe('success');
    const replay = await call(env.app, 'POST', '/v1/user/general/login', { body: { code: c.code, state: c.state, recaptcha: 'human' } });
    expect(replay.body).toMatchObject({ code: 400, status: 'fail', message: 'Google sign-in failed. Please try again.' });
  });

  it('does not link an unverified Google address to an existing password account', async () => {
    await call(env.app, 'POST', '/v1/user/general/signup', {
      body: { email: 'owner@example.com', password: 'password1', repassword: 'password1', terms: true, recaptcha: 'human' },
    });
    const c = await consent('generate-google-auth-url', { sub: 'g-evil', email: 'owner@example.com', email_verified: false });
    const r = await call(env.app, 'POST', '/v1/user/general/login', { body: { code: c.code, state: c.state, recaptcha: 'human' } });
    expect(r.body).toMatchObject({ code: 400, status: 'fail', message: 'Google sign-in failed. Please try again.' });
    expect(r.body.payload?.sessionToken).toBeUndefined();
    // The password account is untouched: no Google identity on it, and no second account for the address.
    const rows = await env.ctx.db.select().from(users).where(eq(users.email, 'owner@example.com'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.googleSub).toBeNull();
    expect(await env.ctx.db.select().from(users).where(eq(users.googleSub, 'g-evil'))).toEqual([]);
  });

  it('verifies reCAPTCHA server-side when RECAPTCHA_SECRET is set', async () => {
    const body = { email: 'bot@example.com', password: 'password1', repassword: 'password1', terms: true };
    const bot = await call(env.app, 'POST', '/v1/user/general/signup', { body: { ...body, recaptcha: 'robot' } });
    expect(bot.body).toMatchObject({ code: 400, message: 'reCAPTCHA verification failed. Please try again.' });
    const none = await call(env.app, 'POST', '/v1/user/general/getintouch', { body: { name: 'a', email: 'a@b.co', message: 'hi' } });
    expect(none.body.message).toBe('reCAPTCHA verification failed. Please try again.');
    const human = await call(env.app, 'POST', '/v1/user/general/signup', { body: { ...body, recaptcha: 'human' } });
    expect(human.statusCode).toBe(201);
  });
});

describe('Google sign-in without configuration', () => {
  let env: TestEnv;
  beforeAll(async () => (env = await createTestEnv()));
  afterAll(() => env.close());
  it('fails with a clear message', async () => {
    const r = await call(env.app, 'POST', '/v1/user/general/login', { body: { action: 'generate-google-auth-url' } });
    expect(r.body).toMatchObject({ code: 503, status: 'fail', message: 'Google sign-in is not configured on this server' });
  });
});
