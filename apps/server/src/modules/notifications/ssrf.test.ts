// The SSRF guard's own rules, without the app (saving settings through the API is test/notifications/ssrf-at-save.test.ts).
import { describe, expect, it } from 'vitest';
import { isPublicAddress, resolveWebhookTarget, UnsafeWebhookUrlError } from './ssrf.ts';

const refused = [
  '127.0.0.1',
  '127.8.9.10',
  '0.0.0.0',
  '10.0.0.1',
  '10.255.255.255',
  '172.16.0.1',
  '172.31.255.254',
  '192.168.1.1',
  '169.254.169.254', // cloud metadata
  '169.254.1.1',
  '100.100.100.200', // carrier-grade NAT (Alibaba metadata)
  '::1',
  '::',
  'fc00::1',
  'fd12:3456:789a::1',
  'fe80::1',
  '::ffff:127.0.0.1', // IPv4-mapped IPv6
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '::ffff:a9fe:a9fe', // the same, in hex
  '64:ff9b::a00:1', // NAT64 of 10.0.0.1
  '2002:0a00:0001::1', // 6to4 of 10.0.0.1
  '224.0.0.1',
  '255.255.255.255',
  '::127.0.0.1', // IPv4-compatible IPv6 (deprecated ::/96)
  '::7f00:1', // the same, as the URL parser writes it
  '::a9fe:a9fe', // IPv4-compatible 169.254.169.254
  '::8.8.8.8', // IPv4-compatible, even of a public address: ::/96 is not routed
  '::1:2:3', // the rest of ::/96
  '::ffff:0:7f00:1', // IPv4-translated (RFC 6145)
  '64:ff9b:1::a00:1', // local-use NAT64 (RFC 8215)
  '2001::1', // Teredo
  '2001:db8::1', // documentation
  '100::1', // discard-only
  'fec0::1', // deprecated site-local
  '3ffe::1', // the returned 6bone block
  '5f00::1', // segment routing
  '4000::1', // outside global unicast 2000::/3
];
const allowed = ['93.184.216.34', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];

describe('SSRF guard: address classification', () => {
  it.each(refused)('refuses %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });
  it.each(allowed)('allows %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
  it('refuses garbage', () => {
    expect(isPublicAddress('not-an-ip')).toBe(false);
  });
});

describe('SSRF guard: URLs', () => {
  const resolveTo =
    (...addrs: string[]) =>
    async () =>
      addrs.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('refuses IP-literal URLs in private ranges, including bracketed IPv6 and mapped forms', async () => {
    for (const u of [
      'http://127.0.0.1/x',
      'http://10.1.2.3/',
      'https://172.16.5.4/',
      'http://192.168.0.10:8080/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/',
      'http://[fc00::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[::127.0.0.1]/',
      'http://[::7f00:1]/',
    ]) {
      await expect(resolveWebhookTarget(u, { allowPrivate: false }), u).rejects.toBeInstanceOf(UnsafeWebhookUrlError);
    }
  });

  it('checks every address a name resolves to, and pins the connection to the checked one', async () => {
    await expect(
      resolveWebhookTarget('https://hooks.example.com/a', { allowPrivate: false, resolve: resolveTo('10.0.0.5') }),
    ).rejects.toThrow(/public address/);
    await expect(
      resolveWebhookTarget('https://hooks.example.com/a', { allowPrivate: false, resolve: resolveTo('93.184.216.34', '127.0.0.1') }),
    ).rejects.toThrow(/public address/);
    const ok = await resolveWebhookTarget('https://hooks.example.com/a', { allowPrivate: false, resolve: resolveTo('93.184.216.34') });
    expect(ok).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect(ok.url.hostname).toBe('hooks.example.com');
  });

  it('localhost resolves to loopback and is refused', async () => {
    await expect(resolveWebhookTarget('http://localhost:9/', { allowPrivate: false })).rejects.toBeInstanceOf(UnsafeWebhookUrlError);
  });

  it('only http and https', async () => {
    for (const u of ['ftp://93.184.216.34/', 'file:///etc/passwd', 'gopher://93.184.216.34/', 'not a url']) {
      await expect(resolveWebhookTarget(u, { allowPrivate: true }), u).rejects.toBeInstanceOf(UnsafeWebhookUrlError);
    }
  });

  it('WEBHOOK_ALLOW_PRIVATE lets private targets through (development and tests)', async () => {
    await expect(resolveWebhookTarget('http://127.0.0.1:1234/x', { allowPrivate: true })).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(resolveWebhookTarget('http://[::1]:1234/x', { allowPrivate: true })).resolves.toMatchObject({ address: '::1', family: 6 });
  });
});
