import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { call, createTestEnv, eventually, signUp, type TestEnv } from '../helpers.ts';

/** The dev outbox holds reset links: only a client on this machine may read it. */
describe('dev outbox: loopback clients only', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
    const a = await signUp(env.app);
    await call(env.app, 'GET', `/v1/user/password/recover/${encodeURIComponent(a.email)}`);
    // Recovery mails are written after the reply.
    await eventually(async () => /password\/reset\//.test((await env.app.inject({ method: 'GET', url: '/dev/mail/api' })).body));
  });
  afterAll(() => env.close());

  const get = (url: string, remoteAddress: string, headers: Record<string, string> = {}) =>
    env.app.inject({ method: 'GET', url, remoteAddress, headers });

  it.each(['127.0.0.1', '127.3.4.5', '::1', '::ffff:127.0.0.1'])('serves %s', async (ip) => {
    const r = await get('/dev/mail/api', ip);
    expect(r.statusCode).toBe(200);
    expect(r.body).toMatch(/password\/reset\//);
  });

  it.each(['192.0.2.2', '10.0.0.7', '::ffff:192.0.2.2', '2001:db8::1'])('refuses %s on every outbox page', async (ip) => {
    for (const url of ['/dev/mail', '/dev/mail/api', '/dev/mail/1']) {
      const r = await get(url, ip);
      expect(r.statusCode, url).toBe(403);
      expect(r.body).not.toMatch(/password\/reset|verify\//);
    }
  });

  it('ignores X-Forwarded-For naming loopback', async () => {
    const r = await get('/dev/mail/api', '192.0.2.2', { 'x-forwarded-for': '127.0.0.1' });
    expect(r.statusCode).toBe(403);
  });
});

describe('dev outbox behind TRUST_PROXY', () => {
  it('still decides on the socket address, not the forwarded one', async () => {
    const env = await createTestEnv({ TRUST_PROXY: 'true' });
    try {
      const r = await env.app.inject({
        method: 'GET',
        url: '/dev/mail/api',
        remoteAddress: '192.0.2.9',
        headers: { 'x-forwarded-for': '127.0.0.1' },
      });
      expect(r.statusCode).toBe(403);
    } finally {
      await env.close();
    }
  });
});

describe('dev outbox page', () => {
  it('is served without an error in the log, and refreshes itself', async () => {
    const lines: Array<{ level: number; msg?: string; err?: { message?: string } }> = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        done();
      },
    });
    const env = await createTestEnv({ LOG_LEVEL: 'warn' }, { logTo: sink });
    try {
      for (let i = 0; i < 3; i++) {
        const r = await env.app.inject({ method: 'GET', url: '/dev/mail', remoteAddress: '127.0.0.1' });
        expect(r.statusCode).toBe(200);
        expect(r.body).toMatch(/<meta http-equiv="refresh" content="\d+">/);
      }
      // A mail's own page says its charset: "·" and "é" in a mail are not shown as "Â·".
      await signUp(env.app);
      const [first] = (await env.app.inject({ method: 'GET', url: '/dev/mail/api', remoteAddress: '127.0.0.1' })).json() as Array<{
        id: number;
      }>;
      const one = await env.app.inject({ method: 'GET', url: `/dev/mail/${first!.id}`, remoteAddress: '127.0.0.1' });
      expect(one.headers['content-type']).toBe('text/html; charset=utf-8');
      // Fastify logs a second send after the reply only once the event loop has moved on.
      await new Promise((r) => setTimeout(r, 200));
      expect(lines.filter((l) => l.level >= 40).map((l) => `${l.msg}: ${l.err?.message ?? ''}`)).toEqual([]);
    } finally {
      await env.close();
    }
  });
});
