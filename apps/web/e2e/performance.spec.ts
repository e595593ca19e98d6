import { devices, expect, test, type APIRequestContext } from '@playwright/test';
import { apiPost, sandboxNumber, signUpViaApi, uniqueEmail } from './helpers';

// Delivery performance (issue 32, decisions 133, 134, 158): the transit histogram, the transit by service, the exceptions bar list, the period by
// dates (a reversed period refused with the server's message) and the CSV export, at a desk (1366) and on the
// Pixel 7 and iPhone 13 profiles (tapped there). Parcels are the carrier sandbox's: some delivered by hand at once,
// one playing the sandbox's exception journey.

async function figures(request: APIRequestContext, token: string) {
  const r = await request.get('/v1/trackings/performance?days=7', { headers: { 'sm-api-token': token } });
  return ((await r.json()) as { payload: { delivered: number; exceptions: { count: number } } }).payload;
}

const { defaultBrowserType: _webkit, ...iphone13 } = devices['iPhone 13'];
const { defaultBrowserType: _pixel, ...pixel7 } = devices['Pixel 7'];
const PROFILES = [
  { name: '1366', profile: { viewport: { width: 1366, height: 768 } }, phone: false },
  { name: 'pixel-7', profile: pixel7, phone: true },
  { name: 'iphone-13', profile: iphone13, phone: true },
];

for (const { name, profile, phone } of PROFILES) {
  test(`Delivery performance: histogram, exceptions, a period by dates and the CSV (${name})`, async ({ browser, request }) => {
    test.setTimeout(120_000);
    const context = await browser.newContext({ ...profile, acceptDownloads: true });
    const page = await context.newPage();
    const token = await signUpViaApi(page, request, uniqueEmail(`performance-${name}`));
    for (let i = 0; i < 3; i++) {
      const tid = sandboxNumber('PRF', ['delivered']);
      expect((await apiPost(request, token, '/v1/trackings/add', { tid, courier: 'ups', title: `Parcel ${i}` })).code).toBe(201);
      expect((await (await request.get(`/v1/trackings/delivered/${tid}`, { headers: { 'sm-api-token': token } })).json()).code).toBe(200);
    }
    expect(
      (await apiPost(request, token, '/v1/trackings/add', { tid: sandboxNumber('PRF', ['exception']), courier: 'ups', title: 'Trouble' }))
        .code,
    ).toBe(201);
    await expect.poll(async () => (await figures(request, token)).exceptions.count, { timeout: 60_000 }).toBeGreaterThan(0);

    await page.goto('/account/performance');
    await expect(page.getByRole('heading', { name: 'Delivery performance' })).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('figure-Delivered')).toHaveText('3');
    const histogram = page.getByTestId('histogram-UPS');
    await expect(histogram.getByRole('img')).toHaveAttribute('aria-label', /^UPS: parcels by days in transit, 0 days 3,/);
    await expect(page.getByTestId('exceptions').getByTestId('bar-row')).toHaveCount(1);
    // Transit by service (decision 158): a bar per UPS service the three parcels travel by, median and 90% named.
    const services = page.getByTestId('services').getByTestId('service-row');
    await expect(services.first()).toHaveAttribute('data-courier', 'ups');
    await expect(services.first().getByRole('img')).toHaveAttribute('aria-label', /: median [\d.]+ d, 90% within [\d.]+ d$/);
    await page.getByTestId('services').screenshot({ path: `test-results/performance/services-${name}.png` });
    await page.screenshot({ path: `test-results/performance/performance-${name}.png`, fullPage: true });

    // Dates: a reversed period is refused with the server's message; a good one shows its figures.
    const choose = async (label: string) => {
      const control = page.getByText(label, { exact: true });
      if (phone) await control.tap();
      else await control.click();
    };
    await choose('Dates');
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByRole('textbox', { name: 'From' }).fill(tomorrow);
    await page.getByRole('textbox', { name: 'To' }).fill(today);
    await expect(page.getByText('From must be on or before To')).toBeVisible();
    await page.getByRole('textbox', { name: 'From' }).fill(today);
    await expect(page.getByTestId('figure-Delivered')).toHaveText('3');
    await expect(page.getByTestId('figure-Delivered').locator('xpath=..')).toContainText(`${today} to ${today}`);

    const download = page.waitForEvent('download');
    await choose('Export CSV');
    const file = await download;
    expect(file.suggestedFilename()).toBe(`delivery-performance-${today}-to-${today}.csv`);
    await context.close();
  });
}
