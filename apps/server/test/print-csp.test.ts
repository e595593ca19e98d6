// The print page fetches the label PDF with the session header and shows it in a frame from a blob: URL,
// then prints that frame; a frame-src without blob: blocks it (Chromium shows an error page instead).
import { describe, expect, it } from 'vitest';
import { createTestEnv } from './helpers.ts';

describe('content security policy for printing labels', () => {
  it('lets the web app frame a blob: document and nothing looser', async () => {
    const env = await createTestEnv();
    try {
      const res = await env.app.inject({ method: 'GET', url: '/web-config.json' });
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toMatch(/frame-src 'self' blob:[ ;]/);
      expect(csp).toContain("object-src 'none'");
      expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval';");
    } finally {
      await env.close();
    }
  }, 120_000);
});
