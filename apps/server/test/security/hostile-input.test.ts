// Hostile input that used to answer 500 (or a non-envelope body) now gets a clear 4xx envelope.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INPUT_MESSAGES, MSG, dropEmptyStrings, findInputProblem } from '@shiptrail/contract';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { setBalance } from '../trackings/fixtures.ts';

let env: TestEnv;
let a: Awaited<ReturnType<typeof signUp>>;
beforeAll(async () => {
  env = await createTestEnv();
  a = await signUp(env.app);
});
afterAll(() => env.close());

const isEnvelope = (b: unknown) => {
  const o = b as Record<string, unknown>;
  return (
    !!o && typeof o.code === 'number' && (o.status === 'success' || o.status === 'fail') && typeof o.message === 'string' && 'payload' in o
  );
};

describe('login with a body that is not an object', () => {
  it.each([
    ['JSON string', 'application/json', '"x"'],
    ['JSON number', 'application/json', '1'],
    ['JSON boolean', 'application/json', 'true'],
    ['JSON array', 'application/json', '["action"]'],
    ['text/plain', 'text/plain', 'x'],
    ['text/plain that looks like JSON', 'text/plain', '{"email":"a@b.c","password":"password123"}'],
  ])('%s: 400', async (_name, type, payload) => {
    const r = await env.app.inject({ method: 'POST', url: '/v1/user/general/login', headers: { 'content-type': type }, payload });
    expect(r.json()).toMatchObject({ code: 400, status: 'fail', message: 'Send the login as a JSON object' });
  });
});

describe('the NUL character', () => {
  it.each([
    ['GET', '/v1/trackings/delivered/a%00b', undefined],
    ['DELETE', '/v1/trackings/delete/a%00b', undefined],
    ['POST', '/v1/trackings/refresh/a%00b', undefined],
    ['GET', '/v1/trackings/get?lastTid=a%00b', undefined],
    ['GET', '/v1/track/abc_a%00b', undefined],
    ['GET', '/v1/user/password/recover/a%00b%40example.com', undefined],
    ['GET', '/v1/user/email/verify/a%00b', undefined],
    ['PUT', '/v1/trackings/update', { tid: 'a\u0000b' }],
    ['POST', '/v1/trackings/add', { tid: '1Z5R89390350075608', title: 'a\u0000b' }],
    ['POST', '/v1/user/general/update', { profile: { firstName: 'a\u0000b' } }],
    ['POST', '/v1/user/general/supportrequest', { message: 'help\u0000me please' }],
    ['POST', '/v1/user/general/update', { profile: { ['first\u0000Name']: 'x' } }],
    ['POST', '/v1/user/general/login', { email: 'a\u0000@example.com', password: 'password123' }],
  ] as const)('%s %s %j: 400 with a clear message', async (method, url, body) => {
    const r = await call(env.app, method, url, { token: a.apiKey, body });
    expect(r.body).toMatchObject({ code: 400, status: 'fail', message: INPUT_MESSAGES.nul });
  });

  it('in a CSV import', async () => {
    const r = await call(env.app, 'POST', '/v1/trackings/import', {
      token: a.apiKey,
      body: 'tid,title\n1Z5R89390350075608,a\u0000b\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(r.body).toMatchObject({ code: 400, message: INPUT_MESSAGES.nul });
  });
});

describe('deep nesting', () => {
  it('20,000 nested arrays to /user/general/update: 400, not a stack overflow', async () => {
    const payload = '['.repeat(20_000) + ']'.repeat(20_000);
    const r = await env.app.inject({
      method: 'POST',
      url: '/v1/user/general/update',
      headers: { 'sm-api-token': a.apiKey, 'content-type': 'application/json' },
      payload,
    });
    expect(r.json()).toMatchObject({ code: 400, message: INPUT_MESSAGES.depth });
  });
  it('deep objects anywhere: 400', async () => {
    let body: unknown = 'x';
    for (let i = 0; i < 40; i++) body = { a: body };
    const r = await call(env.app, 'POST', '/v1/trackings/add', { token: a.apiKey, body: { tid: '1Z5R89390350075608', notify: body } });
    expect(r.body).toMatchObject({ code: 400, message: INPUT_MESSAGES.depth });
  });
  it('ordinary bodies pass', () => {
    expect(findInputProblem({ settings: { receiveNotification: { webhook: { triggers: { Delivered: true } } } } })).toBeNull();
  });
  it('dropEmptyStrings survives any depth', () => {
    let v: unknown = [];
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(() => dropEmptyStrings(v)).not.toThrow();
  });
});

describe('concurrent sign-ups with one email', () => {
  it('one 201, the others the same 409 as a sequential second sign-up', async () => {
    const email = `race${Date.now()}@example.com`;
    const body = { email, password: 'password123', repassword: 'password123', terms: true };
    const rs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        env.app
          .inject({ method: 'POST', url: '/v1/user/general/signup', remoteAddress: `127.0.1.${i + 1}`, payload: body })
          .then((r) => r.json()),
      ),
    );
    expect(rs.filter((r) => r.code === 201)).toHaveLength(1);
    const others = rs.filter((r) => r.code !== 201);
    expect(others).toHaveLength(9);
    for (const r of others) expect(r).toMatchObject({ code: 409, message: MSG.emailTaken });
  });
});

describe('malformed multipart import', () => {
  it('a multipart content type with a body that is not multipart: 400', async () => {
    for (const payload of ['{}', '--xx\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc', '']) {
      const r = await env.app.inject({
        method: 'POST',
        url: '/v1/trackings/import',
        headers: { 'sm-api-token': a.apiKey, 'content-type': 'multipart/form-data; boundary=xx' },
        payload,
      });
      const body = r.json();
      expect(body.code, payload).toBe(400);
      expect(body.message).toMatch(/multipart|CSV file/);
    }
  });
  it('a well-formed upload still works', async () => {
    await setBalance(env, a.email, 100);
    const boundary = 'b0undary';
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.csv"\r\nContent-Type: text/csv\r\n\r\ntid\n1Z5R89390350075608\r\n--${boundary}--\r\n`;
    const r = await env.app.inject({
      method: 'POST',
      url: '/v1/trackings/import',
      headers: { 'sm-api-token': a.apiKey, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(r.json()).toMatchObject({ code: 200, payload: { created: 1 } });
  });
});

describe("Fastify's own errors use the envelope and do not echo the URL", () => {
  it('a malformed %-escape', async () => {
    const r = await env.app.inject({ method: 'GET', url: '/v1/track/%ff%fe' });
    expect(isEnvelope(r.json())).toBe(true);
    expect(r.json()).toMatchObject({ code: 400, status: 'fail' });
    expect(r.body).not.toContain('%ff');
    expect(r.body).not.toContain('FST_');
  });
  it('a path parameter over 300 characters', async () => {
    const r = await env.app.inject({ method: 'GET', url: `/v1/track/${'x'.repeat(400)}` });
    expect(r.json()).toMatchObject({ code: 414, status: 'fail' });
    expect(r.body).not.toContain('xxxxxxxxxx');
  });

  describe('on a real socket', () => {
    let port: number;
    beforeAll(async () => {
      await env.app.listen({ port: 0, host: '127.0.0.1' });
      port = (env.app.server.address() as net.AddressInfo).port;
    });
    const raw = (data: string) =>
      new Promise<string>((resolve, reject) => {
        const s = net.connect(port, '127.0.0.1', () => s.write(data));
        let out = '';
        s.on('data', (d) => (out += d));
        s.on('end', () => resolve(out));
        s.on('error', reject);
        s.setTimeout(5000, () => s.destroy(new Error('timeout')));
      });
    const bodyOf = (res: string) => JSON.parse(res.slice(res.indexOf('\r\n\r\n') + 4));

    it('headers over the size limit: 431 envelope', async () => {
      const res = await raw(`GET /v1/info/pricing HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(res).toMatch(/^HTTP\/1\.1 431/);
      expect(bodyOf(res)).toMatchObject({ code: 431, status: 'fail', message: 'The request headers are too large' });
    });
    it('a request that is not HTTP: 400 envelope', async () => {
      const res = await raw('NOT HTTP AT ALL\r\n\r\n');
      expect(res).toMatch(/^HTTP\/1\.1 400/);
      expect(isEnvelope(bodyOf(res))).toBe(true);
      expect(res).not.toContain('Client Error');
    });
    it('a GET with a body after Connection: close: an envelope, not a dropped connection', async () => {
      const res = await raw('GET /v1/info/pricing HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\nGARBAGE');
      // Node answers the first request; the bytes after Connection: close are a client error.
      expect(res).toMatch(/^HTTP\/1\.1 (200|400)/);
      const first = res.split('\r\n\r\n')[1]!;
      expect(isEnvelope(JSON.parse(first.slice(0, first.lastIndexOf('}') + 1)))).toBe(true);
    });
  });
});
