// The /v1 HTTP status contract: by default every envelope goes out with HTTP 200 and the real result in
// `code` (the original API's rule, which its SDK relies on); `sm-http-status: real` restores real statuses.
// These tests call app.inject directly (not test/helpers call(), which opts in).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { MSG } from '@shiptrail/contract';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { EX } from '../trackings/fixtures.ts';

let env: TestEnv;
let user: Awaited<ReturnType<typeof signUp>>;
beforeAll(async () => {
  env = await createTestEnv();
  user = await signUp(env.app);
});
afterAll(async () => {
  await env?.close();
});

type Opts = { token?: string; body?: unknown; real?: boolean; headers?: Record<string, string>; payload?: string };
async function raw(method: 'GET' | 'POST', url: string, o: Opts = {}) {
  const res = await env.app.inject({
    method,
    url,
    headers: { ...(o.token ? { 'sm-api-token': o.token } : {}), ...(o.real ? { 'sm-http-status': 'real' } : {}), ...(o.headers ?? {}) },
    ...(o.body !== undefined ? { payload: o.body as object } : o.payload !== undefined ? { payload: o.payload } : {}),
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

describe('default: HTTP 200, the result in the envelope code', () => {
  it('success, including 201 Created', async () => {
    const added = await raw('POST', '/v1/trackings/add', { token: user.apiKey, body: { tid: EX.ups.delivered } });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ code: 201, status: 'success', message: 'Tracking added' });
    const list = await raw('GET', '/v1/trackings/get', { token: user.apiKey });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ code: 200, status: 'success' });
  });

  it('validation error', async () => {
    const r = await raw('POST', '/v1/trackings/add', { token: user.apiKey, body: { tid: '' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      code: 400,
      status: 'fail',
      message: MSG.trackingNumberRequired,
      payload: { errors: { tid: MSG.trackingNumberRequired } },
    });
  });

  it("Fastify's own error (body that is not JSON)", async () => {
    const r = await raw('POST', '/v1/trackings/add', {
      token: user.apiKey,
      headers: { 'content-type': 'application/json' },
      payload: '{"tid":',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ code: 400, status: 'fail' });
  });

  it('auth failure', async () => {
    const r = await raw('GET', '/v1/trackings/get', { token: 'not-a-key' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ code: 401, status: 'fail', message: MSG.unauthorized });
    const none = await raw('GET', '/v1/user/info');
    expect([none.status, none.body.code]).toEqual([200, 401]);
  });

  it('not found: an unknown /v1 path and a missing record', async () => {
    const path = await raw('GET', '/v1/nothing/here');
    expect(path.status).toBe(200);
    expect(path.body).toMatchObject({ code: 404, status: 'fail', message: MSG.notFound });
    const rec = await raw('GET', '/v1/trackings/delivered/1Z5R89390350075626', { token: user.apiKey });
    expect(rec.status).toBe(200);
    expect(rec.body).toMatchObject({ code: 404, status: 'fail', message: MSG.shipmentNotFound });
  });

  it('conflict (a duplicate add)', async () => {
    const r = await raw('POST', '/v1/trackings/add', { token: user.apiKey, body: { tid: EX.ups.delivered } });
    expect([r.status, r.body.code, r.body.status]).toEqual([200, 409, 'fail']);
  });

  it('rate limit: 429 in the envelope, retry-after kept', async () => {
    // Password recovery allows 10 calls per IP in 15 minutes.
    let last!: Awaited<ReturnType<typeof raw>>;
    for (let i = 0; i < 11; i++)
      last = await raw('GET', `/v1/user/password/recover/${encodeURIComponent(`rl${i}@example.com`)}`, {
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ code: 429, status: 'fail', message: MSG.tooManyAttempts });
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('leaves non-/v1 replies alone', async () => {
    expect((await env.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await env.app.inject({ method: 'GET', url: '/assets/missing.js' })).statusCode).toBe(404);
  });
});

describe('opt-in: sm-http-status: real', () => {
  it('real statuses for success, validation, auth, not found and conflict; the envelope is the same', async () => {
    const other = await signUp(env.app);
    const created = await raw('POST', '/v1/trackings/add', { token: other.apiKey, body: { tid: EX.fedex.delivered }, real: true });
    expect([created.status, created.body.code]).toEqual([201, 201]);
    const dup = await raw('POST', '/v1/trackings/add', { token: other.apiKey, body: { tid: EX.fedex.delivered }, real: true });
    expect([dup.status, dup.body.code]).toEqual([409, 409]);
    const bad = await raw('POST', '/v1/trackings/add', { token: other.apiKey, body: {}, real: true });
    expect([bad.status, bad.body.code]).toEqual([400, 400]);
    const unauth = await raw('GET', '/v1/trackings/get', { real: true });
    expect([unauth.status, unauth.body.code]).toEqual([401, 401]);
    const missing = await raw('GET', '/v1/nothing', { real: true, headers: { 'sm-http-status': 'REAL' } });
    expect([missing.status, missing.body.code]).toEqual([404, 404]);
  });
});

describe('server errors', () => {
  // Last in the file: it breaks the database on purpose.
  it('a 500 is an envelope with code 500 and HTTP 200 by default (500 on request)', async () => {
    await env.ctx.db.execute(sql`drop table idempotency_keys`);
    const call500 = (real: boolean) =>
      raw('POST', '/v1/trackings/add', {
        token: user.apiKey,
        body: { tid: EX.usps.delivered },
        real,
        headers: { 'idempotency-key': `k-${real}` },
      });
    const byDefault = await call500(false);
    expect(byDefault.status).toBe(200);
    expect(byDefault.body).toMatchObject({ code: 500, status: 'fail' });
    const real = await call500(true);
    expect([real.status, real.body.code]).toEqual([500, 500]);
  });
});
