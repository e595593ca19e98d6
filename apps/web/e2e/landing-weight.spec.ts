import { expect, test } from '@playwright/test';

// The landing page's JavaScript as a first-time visitor's browser receives it (compressed bodies plus response
// headers, as Chromium's network layer counts them) stays within the 200 KB budget. bench/web.bench.ts reports
// the same figure as a median; this test keeps a change from silently pushing the landing page over it.
const BUDGET_KB = 200;

test('the landing page receives at most 200 KB of JavaScript on a cold visit', async ({ browser }) => {
  // A service worker would fetch the chunks itself, and the page's network events would no longer carry them.
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const scripts = new Map<string, string>();
  const received = new Map<string, number>();
  cdp.on('Network.responseReceived', (e) => {
    if (/javascript/.test(e.response.mimeType) || /\.m?js(\?|$)/.test(e.response.url)) scripts.set(e.requestId, e.response.url);
  });
  cdp.on('Network.loadingFinished', (e) => received.set(e.requestId, e.encodedDataLength));

  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  // The sign-in and sign-up forms are part of the page: count everything loaded until the network is idle.
  await expect(page.getByRole('form', { name: 'Log in' })).toBeVisible({ timeout: 30_000 });
  await page.waitForLoadState('networkidle');

  const files = [...scripts].map(([id, url]) => ({ url: new URL(url).pathname, bytes: received.get(id) ?? 0 }));
  const kb = files.reduce((sum, f) => sum + f.bytes, 0) / 1024;
  expect(files.length).toBeGreaterThan(0);
  expect(files.every((f) => f.bytes > 0)).toBe(true);
  expect(
    kb,
    `landing JavaScript received: ${kb.toFixed(1)} KB in ${files.length} files\n${files.map((f) => `  ${(f.bytes / 1024).toFixed(1)} KB ${f.url}`).join('\n')}`,
  ).toBeLessThanOrEqual(BUDGET_KB);
  await context.close();
});
