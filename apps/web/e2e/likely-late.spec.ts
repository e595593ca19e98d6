import { devices, expect, test } from '@playwright/test';
import { apiPost, signUpViaApi, uniqueEmail } from './helpers';

// "Likely late" in the trackings list with who says so (issue 32, decision 151), at a desk (1366) and on a Pixel 7
// profile: a sandbox parcel whose carrier moves its date past its first promise after a failed attempt shows the
// badge "Likely late" and "from carrier" beside its date. (The history source needs delivered history on the server: covered
// by apps/server/test/notifications/likely-late-history.test.ts through the same list.)

/** The sandbox's journey of a number (modules/carriers/sandbox/journeys.ts, as in expected-dates.spec.ts): 6, 7: a failed attempt. */
function journeyBucket(tid: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < tid.length; i++) {
    h ^= tid.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) % 10;
}
function freshFailedAttempt(): string {
  for (;;) {
    const tid = `1ZLATE${Date.now().toString(36).toUpperCase()}${Math.floor(Math.random() * 1e6)}`;
    const bucket = journeyBucket(tid);
    if (bucket === 6 || bucket === 7) return tid;
  }
}

const { defaultBrowserType: _chromium, ...pixel7 } = devices['Pixel 7'];
const PROFILES = [
  { name: '1366', profile: { viewport: { width: 1366, height: 768 } } },
  { name: 'pixel-7', profile: pixel7 },
];

for (const { name, profile } of PROFILES) {
  test(`the trackings list shows "Likely late" with its source (${name})`, async ({ browser, request }) => {
    test.setTimeout(90_000);
    const context = await browser.newContext(profile);
    const page = await context.newPage();
    const token = await signUpViaApi(page, request, uniqueEmail('likely-late'));
    const tid = freshFailedAttempt();
    expect((await apiPost(request, token, '/v1/trackings/add', { tid, courier: 'ups', title: 'Armchair' })).code).toBe(201);
    await page.goto('/account/trackings');
    const badge = page.locator(`[data-tid="${tid}"] [data-testid="likely-late"]`).first();
    // At a desk the Expected column is narrow: the badge says "Likely late" and the line under it the source.
    if (name === '1366') {
      await expect(badge).toHaveText('Likely late', { timeout: 40_000 });
      await expect(page.locator(`[data-tid="${tid}"] [data-testid="likely-late-source"]`).first()).toHaveText('from carrier');
    } else await expect(badge).toHaveText('Likely late · carrier', { timeout: 40_000 });
    await expect(badge).toHaveAttribute('data-source', 'carrier');
    await expect(page.locator(`[data-tid="${tid}"] [data-testid="expected"]`).first()).toHaveAttribute('data-source', 'carrier');
    await page.screenshot({ path: `test-results/likely-late/trackings-${name}.png`, fullPage: false });
    await context.close();
  });
}

// The public tracking page tells the recipient (decision 152): the same parcel's page at /track/{uid}/{tid} shows
// "Running late" and why, in the recipient's words, under the carrier's date.
for (const { name, profile } of PROFILES) {
  test(`the public tracking page says the parcel is running late (${name})`, async ({ browser, request }) => {
    test.setTimeout(90_000);
    const context = await browser.newContext(profile);
    const page = await context.newPage();
    const token = await signUpViaApi(page, request, uniqueEmail('likely-late-public'));
    const tid = freshFailedAttempt();
    const added = await apiPost(request, token, '/v1/trackings/add', { tid, courier: 'ups', title: 'Armchair' });
    expect(added.code).toBe(201);
    const uid = (added.payload as { uid: string }).uid;
    // The page follows the parcel live. The sandbox plays the journey at pace 0.05 (playwright.config.ts): the failed
    // attempt moves the carrier's date (likely late) a few seconds before the second attempt delivers it (no longer
    // late), so the page is read in that window, all at once as soon as the warning shows.
    await page.goto(`/track/${uid}/${tid}`);
    const late = page.getByTestId('track-likely-late');
    await expect(late).toBeVisible({ timeout: 40_000 });
    await page.screenshot({ path: `test-results/likely-late/public-${name}.png`, fullPage: false });
    const seen = await late.evaluate((el) => ({ source: el.getAttribute('data-source'), text: el.textContent ?? '' }));
    expect(seen.source).toBe('carrier');
    expect(seen.text).toContain('Running late');
    expect(seen.text).toContain('may arrive later than first promised');
    await context.close();
  });
}
