import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SwaggerParser from '@apidevtools/swagger-parser';
import { endpoints } from '@shiptrail/contract';
import { loadConfig, ConfigError } from '../src/config.ts';
import { call, createTestEnv, type TestEnv } from './helpers.ts';

describe('the /v1 contract', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('serves a valid OpenAPI 3 document listing every /v1 route', async () => {
    const res = await env.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
    // Every route the app registered under /v1 is documented, and every documented call exists.
    const documented = endpoints.map((e) => `${e.method} ${e.path}`).sort();
    expect([...new Set(env.app.v1Routes)].sort()).toEqual(documented);
    expect(Object.keys(doc.paths).length).toBeGreaterThan(10);
    expect(doc.components.securitySchemes.apiToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'sm-api-token' });
  });

  it('answers with and without a trailing slash', async () => {
    const a = await call(env.app, 'GET', '/v1/info/pricing');
    const b = await call(env.app, 'GET', '/v1/info/pricing/');
    expect(a.body).toEqual(b.body);
    expect(a.body).toMatchObject({
      code: 200,
      status: 'success',
      payload: { signupBonus: 10, perTracking: 0.05, perShipment: 0.05, perSms: 0.04, referralReward: 10 },
    });
  });

  it('unknown /v1 paths get the 404 envelope', async () => {
    const r = await call(env.app, 'GET', '/v1/nope');
    expect(r.statusCode).toBe(404);
    expect(r.body).toEqual({ code: 404, status: 'fail', message: 'Not found', payload: null });
  });

  it('sends security headers and a request id', async () => {
    const r = await env.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abcdef123456' } });
    expect(r.json()).toMatchObject({ status: 'ok' });
    expect(r.headers['x-request-id']).toBe('abcdef123456');
    expect(r.headers['content-security-policy']).toContain("default-src 'self'");
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });

  it('the dev outbox exists only without SMTP_URL', async () => {
    const r = await env.app.inject({ method: 'GET', url: '/dev/mail' });
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain('For development only');
    const smtpEnv = await createTestEnv({ SMTP_URL: 'smtp://127.0.0.1:9' });
    try {
      expect((await smtpEnv.app.inject({ method: 'GET', url: '/dev/mail' })).statusCode).toBe(404);
    } finally {
      await smtpEnv.close();
    }
  });
});

describe('configuration', () => {
  it('fails fast with a clear message', () => {
    expect(() => loadConfig({ PORT: 'abc', DATA_DIR: 'memory://' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'abc', DATA_DIR: 'memory://' })).toThrow(/PORT/);
    expect(() => loadConfig({ SESSION_SECRET: 'short', DATA_DIR: 'memory://' })).toThrow(/SESSION_SECRET must be at least 32 characters/);
  });
  it('generates a session secret once and keeps it in DATA_DIR', async () => {
    const { mkdtempSync } = await import('node:fs');
    const dir = mkdtempSync('/tmp/st-cfg-');
    const a = loadConfig({ DATA_DIR: dir });
    const b = loadConfig({ DATA_DIR: dir });
    expect(a.sessionSecret).toHaveLength(43);
    expect(b.sessionSecret).toBe(a.sessionSecret);
    expect(a.publicUrl).toBe('http://localhost:3000');
  });
  it('writes nothing to disk for the in-memory database', async () => {
    const { existsSync } = await import('node:fs');
    const c = loadConfig({ DATA_DIR: 'memory://' });
    expect(c.dataDir).toBe('memory://');
    expect(c.sessionSecret.length).toBeGreaterThanOrEqual(32);
    expect(existsSync('memory:')).toBe(false);
  });
});

describe('the web app', () => {
  it('serves index.html for client routes, and 404 for missing assets', async () => {
    const { mkdtempSync, writeFileSync, mkdirSync } = await import('node:fs');
    const dist = mkdtempSync('/tmp/st-web-');
    writeFileSync(`${dist}/index.html`, '<!doctype html><title>Shiptrail</title>');
    const env = await createTestEnv({ WEB_DIST: dist });
    try {
      const page = await env.app.inject({ method: 'GET', url: '/account/dashboard' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<title>Shiptrail</title>');
      expect((await env.app.inject({ method: 'GET', url: '/assets/missing.js' })).statusCode).toBe(404);
      // A file added after start (a rebuild) is served without a restart.
      mkdirSync(`${dist}/assets`);
      writeFileSync(`${dist}/assets/new.js`, 'console.log(1)');
      const asset = await env.app.inject({ method: 'GET', url: '/assets/new.js' });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['cache-control']).toContain('immutable');
    } finally {
      await env.close();
    }
  });
});
