import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from './helpers.ts';

/**
 * The built web app as the server sends it: the build writes .br and .gz next to each asset, and the
 * server picks one by Accept-Encoding, so a browser receives a fraction of the raw bytes.
 */
describe('static web assets', () => {
  let env: TestEnv;
  let dist: string;
  // Large and repetitive enough that both encodings shrink it a lot, like a real bundle.
  const js = Buffer.from(Array.from({ length: 2000 }, (_, i) => `export const value${i} = "shiptrail-${i % 17}";\n`).join(''));
  const html = Buffer.from(`<!doctype html><html><head><title>Shiptrail</title></head><body>${'<p>shell</p>'.repeat(200)}</body></html>`);

  beforeAll(async () => {
    dist = mkdtempSync('/tmp/st-web-static-');
    mkdirSync(`${dist}/assets`);
    for (const [file, bytes] of [
      ['assets/index-abc123.js', js],
      ['index.html', html],
    ] as const) {
      writeFileSync(`${dist}/${file}`, bytes);
      writeFileSync(`${dist}/${file}.br`, brotliCompressSync(bytes));
      writeFileSync(`${dist}/${file}.gz`, gzipSync(bytes));
    }
    writeFileSync(`${dist}/sw.js`, 'self.addEventListener("fetch", () => {});');
    env = await createTestEnv({ WEB_DIST: dist });
  });
  afterAll(async () => {
    await env.close();
    rmSync(dist, { recursive: true, force: true });
  });

  const get = (url: string, acceptEncoding?: string) =>
    env.app.inject({ method: 'GET', url, headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });

  it('sends brotli when the browser accepts it (preferred over gzip), and the bytes decode to the original', async () => {
    // Chromium's header lists gzip first; brotli still wins because it is smaller.
    const res = await get('/assets/index-abc123.js', 'gzip, deflate, br, zstd');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(String(res.headers.vary).toLowerCase()).toContain('accept-encoding');
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toContain('immutable');
    expect(res.rawPayload.length).toBeLessThan(js.length / 5);
    expect(brotliDecompressSync(res.rawPayload).equals(js)).toBe(true);
  });

  it('sends hashed assets without the document-only security headers, keeping nosniff; pages keep them all', async () => {
    const asset = await get('/assets/index-abc123.js', 'br');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-security-policy']).toBeUndefined();
    expect(asset.headers['strict-transport-security']).toBeUndefined();
    expect(asset.headers['x-frame-options']).toBeUndefined();
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
    const page = await get('/', 'br');
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(page.headers['x-frame-options']).toBeDefined();
  });

  it('sends gzip to a client without brotli', async () => {
    const res = await get('/assets/index-abc123.js', 'gzip');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(String(res.headers.vary).toLowerCase()).toContain('accept-encoding');
    expect(gunzipSync(res.rawPayload).equals(js)).toBe(true);
  });

  it('sends the file itself to a client that asks for no encoding', async () => {
    for (const ae of [undefined, 'identity']) {
      const res = await get('/assets/index-abc123.js', ae);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.rawPayload.equals(js)).toBe(true);
    }
  });

  it('compresses the app shell served for client-side routes, still never cached', async () => {
    for (const url of ['/', '/account/dashboard']) {
      const res = await get(url, 'gzip, deflate, br');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(brotliDecompressSync(res.rawPayload).equals(html)).toBe(true);
    }
  });

  it('serves the service worker revalidated on every load, so a deploy reaches it', async () => {
    const res = await get('/sw.js', 'br');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('compresses a JSON reply over about 1 KB when asked, and leaves small ones and plain clients alone', async () => {
    const big = await get('/v1/openapi.json', 'gzip, deflate, br');
    expect(big.statusCode).toBe(200);
    expect(big.headers['content-encoding']).toBe('br');
    const doc = JSON.parse(brotliDecompressSync(big.rawPayload).toString('utf8')) as { openapi: string };
    expect(doc.openapi).toMatch(/^3\./);
    expect(big.rawPayload.length).toBeLessThan(Buffer.byteLength(JSON.stringify(doc)) / 3);

    const gz = await get('/v1/openapi.json', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString('utf8'))).toEqual(doc);

    const plain = await get('/v1/openapi.json');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.json()).toEqual(doc);

    const small = await get('/healthz', 'gzip, br');
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toMatchObject({ status: 'ok' });
  });
});

describe('reCAPTCHA in the web app', () => {
  it('tells the web app nothing and allows no third-party script when no site key is set', async () => {
    const env = await createTestEnv();
    try {
      const res = await env.app.inject({ method: 'GET', url: '/web-config.json' });
      expect(res.json()).toEqual({ recaptcha: null, map: expect.objectContaining({ tileUrl: expect.any(String) }) });
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(String(res.headers['content-security-policy'])).toMatch(/script-src 'self' 'wasm-unsafe-eval';/);
    } finally {
      await env.close();
    }
  }, 120_000);

  it('gives the web app the site key and script, and lets that script origin run and frame', async () => {
    const env = await createTestEnv({ RECAPTCHA_SITE_KEY: 'site-key-1', RECAPTCHA_SCRIPT_URL: 'http://127.0.0.1:4555/recaptcha/api.js' });
    const google = await createTestEnv({ RECAPTCHA_SITE_KEY: 'site-key-2' });
    try {
      const res = await env.app.inject({ method: 'GET', url: '/web-config.json' });
      expect(res.json()).toEqual({
        recaptcha: { siteKey: 'site-key-1', scriptUrl: 'http://127.0.0.1:4555/recaptcha/api.js' },
        map: expect.any(Object),
      });
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval' http://127.0.0.1:4555;");
      expect(csp).toMatch(/frame-src [^;]*http:\/\/127\.0\.0\.1:4555/);

      const g = await google.app.inject({ method: 'GET', url: '/web-config.json' });
      expect(g.json()).toEqual({
        recaptcha: { siteKey: 'site-key-2', scriptUrl: 'https://www.google.com/recaptcha/api.js' },
        map: expect.any(Object),
      });
      expect(String(g.headers['content-security-policy'])).toContain(
        "script-src 'self' 'wasm-unsafe-eval' https://www.google.com https://www.gstatic.com;",
      );
    } finally {
      await env.close();
      await google.close();
    }
  }, 120_000);
});
