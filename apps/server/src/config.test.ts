import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';
import { carrierConfig } from './modules/carriers/carriers.ts';

const base = { DATA_DIR: 'memory://' };

describe('carrier settings are part of the checked configuration', () => {
  it('parses credentials, base URLs, rate limits and options into typed values', () => {
    const c = loadConfig({
      ...base,
      UPS_CLIENT_ID: ' id ',
      UPS_CLIENT_SECRET: 'secret',
      UPS_RATE_LIMIT: '10/2',
      USPS_RATE_LIMIT: 'off',
      USPS_API: 'v3r2',
      FEDEX_BASE_URL: 'http://127.0.0.1:9999',
      CANADAPOST_LANGUAGE: 'fr-CA',
      CARRIER_TIMEOUT_MS: '2500',
    });
    const cfg = carrierConfig(c);
    expect(cfg.ups).toMatchObject({ clientId: 'id', clientSecret: 'secret', rateLimit: { limit: 10, intervalMs: 2000 } });
    expect(cfg.usps.rateLimit).toBe(false);
    expect(cfg.usps.api).toBe('v3r2');
    expect(cfg.fedex.baseUrl).toBe('http://127.0.0.1:9999');
    expect(cfg.fedex.clientId).toBeUndefined();
    expect(cfg.canadapost.language).toBe('fr-CA');
    expect(cfg.timeoutMs).toBe(2500);
  });

  it('blank values mean "not set"', () => {
    const cfg = carrierConfig(loadConfig({ ...base, UPS_CLIENT_ID: '  ', UPS_RATE_LIMIT: '' }));
    expect(cfg.ups.clientId).toBeUndefined();
    expect(cfg.ups.rateLimit).toBeUndefined();
  });

  it.each([
    ['UPS_RATE_LIMIT', 'fast'],
    ['USPS_API', 'v9'],
    ['CANADAPOST_LANGUAGE', 'de-DE'],
    ['FEDEX_BASE_URL', 'not a url'],
  ])('a bad %s stops start-up naming the variable', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(new RegExp(name));
  });
});
