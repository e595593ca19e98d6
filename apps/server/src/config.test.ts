import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, deploymentRefusals, loadConfig } from './config.ts';
import { carrierConfig } from './modules/carriers/carriers.ts';

const base = { DATA_DIR: 'memory://' };
const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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

  it("a real carrier's first retry after a failure: a minute by default, a deployment's own between 1 s and 6 hours", () => {
    expect(loadConfig(base).CARRIER_RETRY_SECONDS).toBe(60);
    expect(loadConfig({ ...base, CARRIER_RETRY_SECONDS: '5' }).CARRIER_RETRY_SECONDS).toBe(5);
    for (const bad of ['0', '-5', '21601', 'soon'])
      expect(() => loadConfig({ ...base, CARRIER_RETRY_SECONDS: bad })).toThrow(/CARRIER_RETRY_SECONDS/);
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

describe('a deployment refuses the test stand-ins unless each is allowed (decision 104)', () => {
  const deployment = { ...base, PUBLIC_URL: 'https://shiptrail.example.com' };
  const real = {
    BRAINTREE_ENVIRONMENT: 'production',
    BRAINTREE_MERCHANT_ID: 'm',
    BRAINTREE_PUBLIC_KEY: 'p',
    BRAINTREE_PRIVATE_KEY: 'k',
    UPS_CLIENT_ID: 'u',
    UPS_CLIENT_SECRET: 'u',
    USPS_CLIENT_ID: 'u',
    USPS_CLIENT_SECRET: 'u',
    FEDEX_CLIENT_ID: 'f',
    FEDEX_CLIENT_SECRET: 'f',
    CANADAPOST_USERNAME: 'c',
    CANADAPOST_PASSWORD: 'c',
    SMTP_URL: 'smtp://mail.example.com:587',
    TWILIO_ACCOUNT_SID: 'AC1',
    TWILIO_AUTH_TOKEN: 't',
    TWILIO_FROM: '+15550001111',
  };

  it('on a laptop (no PUBLIC_URL) and in the E2E (PUBLIC_URL on loopback) every stand-in is fine', () => {
    expect(deploymentRefusals(loadConfig(base))).toEqual([]);
    for (const url of ['http://127.0.0.1:4173', 'http://localhost:3000', 'http://[::1]:3000', 'http://app.localhost']) {
      expect(deploymentRefusals(loadConfig({ ...base, PUBLIC_URL: url })), url).toEqual([]);
    }
  });

  it('with nothing configured, says for each stand-in which setting to add', () => {
    const r = deploymentRefusals(loadConfig(deployment));
    expect(r).toEqual([
      'card payments go to the built-in sandbox gateway, where anyone tops up with the test card 4111 1111 1111 1111: set the four BRAINTREE_* credentials, or ALLOW_SANDBOX_PAYMENTS=1 to keep the sandbox on purpose.',
      'UPS, USPS, FedEx, Canada Post are served by the built-in carrier sandbox, which makes up journeys for real tracking numbers: set UPS_CLIENT_ID and UPS_CLIENT_SECRET, USPS_CLIENT_ID and USPS_CLIENT_SECRET, FEDEX_CLIENT_ID and FEDEX_CLIENT_SECRET, CANADAPOST_USERNAME and CANADAPOST_PASSWORD, or ALLOW_CARRIER_SANDBOX=1 to keep the sandbox on purpose.',
      'mail (SMTP_URL) and text messages (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM) go to the dev outbox, where nobody receives them: set them, or ALLOW_DEV_OUTBOX=1 to keep the outbox on purpose.',
    ]);
  });

  it('names only what is missing, and starts with everything real or each stand-in allowed', () => {
    const { FEDEX_CLIENT_SECRET: _f, TWILIO_FROM: _t, ...most } = real;
    expect(deploymentRefusals(loadConfig({ ...deployment, ...most }))).toEqual([
      'FedEx is served by the built-in carrier sandbox, which makes up journeys for real tracking numbers: set FEDEX_CLIENT_ID and FEDEX_CLIENT_SECRET, or ALLOW_CARRIER_SANDBOX=1 to keep the sandbox on purpose.',
      'text messages (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM) go to the dev outbox, where nobody receives them: set it, or ALLOW_DEV_OUTBOX=1 to keep the outbox on purpose.',
    ]);
    expect(deploymentRefusals(loadConfig({ ...deployment, ...real }))).toEqual([]);
    expect(
      deploymentRefusals(loadConfig({ ...deployment, ALLOW_SANDBOX_PAYMENTS: '1', ALLOW_CARRIER_SANDBOX: '1', ALLOW_DEV_OUTBOX: '1' })),
    ).toEqual([]);
    expect(deploymentRefusals(loadConfig({ ...deployment, ALLOW_SANDBOX_PAYMENTS: '1' }))).toHaveLength(2);
  });

  it('the server (src/main.ts) exits at start-up with the sentences, before it opens anything', () => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      DATA_DIR: 'memory://',
      PUBLIC_URL: 'https://shiptrail.example.com',
      ...real,
      ALLOW_CARRIER_SANDBOX: '1',
    };
    delete env.BRAINTREE_MERCHANT_ID;
    delete env.BRAINTREE_ENVIRONMENT;
    delete env.BRAINTREE_PUBLIC_KEY;
    delete env.BRAINTREE_PRIVATE_KEY;
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: serverDir, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'Not starting: PUBLIC_URL https://shiptrail.example.com is not on this machine, so this is a deployment, and\n',
    );
    expect(r.stderr).toContain(
      '  card payments go to the built-in sandbox gateway, where anyone tops up with the test card 4111 1111 1111 1111: set the four BRAINTREE_* credentials, or ALLOW_SANDBOX_PAYMENTS=1 to keep the sandbox on purpose.',
    );
    expect(r.stderr).not.toContain('carrier sandbox');
  }, 90_000);
});

describe('the webhooks DNS servers', () => {
  it('are a comma-separated list of addresses with optional ports; unset is the system resolver; anything else is refused', () => {
    expect(loadConfig({ ...base }).WEBHOOK_DNS_SERVERS).toBeUndefined();
    expect(loadConfig({ ...base, WEBHOOK_DNS_SERVERS: ' 1.1.1.1, 127.0.0.1:5353,[2001:db8::1]:53 ' }).WEBHOOK_DNS_SERVERS).toEqual([
      '1.1.1.1',
      '127.0.0.1:5353',
      '[2001:db8::1]:53',
    ]);
    expect(() => loadConfig({ ...base, WEBHOOK_DNS_SERVERS: 'dns.example.com' })).toThrow(ConfigError);
  });
});
