// The SSRF guard where a webhook URL is saved (the guard's address and URL rules: src/modules/notifications/ssrf.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';

describe('SSRF guard at save (settings update)', () => {
  let strict: TestEnv;
  let dev: TestEnv;
  beforeAll(async () => {
    strict = await createTestEnv();
    dev = await createTestEnv({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  afterAll(async () => {
    await strict.close();
    await dev.close();
  });
  const save = (env: TestEnv, token: string, endpoint: string) =>
    call(env.app, 'POST', '/v1/user/general/update', {
      token,
      body: { settings: { receiveNotification: { webhook: { triggers: { Delivered: true }, endpoint } } } },
    });

  it('refuses a private webhook URL with a field error, and stores nothing', async () => {
    const a = await signUp(strict.app);
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://169.254.169.254/latest',
      'http://[::1]/h',
      'http://localhost/h',
      'http://10.0.0.8/h',
    ]) {
      const r = await save(strict, a.session, url);
      expect(r.statusCode, url).toBe(400);
      expect(r.body.payload.errors['receiveNotification.webhook.endpoint']).toMatch(/public address/);
    }
    const info = await call(strict.app, 'GET', '/v1/user/info', { token: a.session });
    expect(info.body.payload.settings.receiveNotification.webhook.endpoint).toBe('');
  });

  it('accepts a public IP literal', async () => {
    const a = await signUp(strict.app);
    const r = await save(strict, a.session, 'https://93.184.216.34/hook');
    expect(r.statusCode).toBe(200);
    expect(r.body.payload.settings.receiveNotification.webhook.endpoint).toBe('https://93.184.216.34/hook');
  });

  it('accepts loopback with WEBHOOK_ALLOW_PRIVATE=true', async () => {
    const a = await signUp(dev.app);
    const r = await save(dev, a.session, 'http://127.0.0.1:8080/hook');
    expect(r.statusCode).toBe(200);
  });
});
