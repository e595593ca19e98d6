import { expect as baseExpect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { apiPost, uniqueEmail } from './helpers';

// Issue 31, decision 130: the courier scans a label's Code 128 barcode to open that stop. Chromium on Linux has no
// BarcodeDetector, so this runs the lazy-loaded polyfill (ZXing in WebAssembly, served by us), fed the server's own
// label barcode through the photo picker (no camera permission); a label that is not one of today's stops says so.
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(180_000);

/**
 * The server's own label barcode (labels.ts barcodePng: the PNG the label PDF embeds). Imported by path at run time:
 * the web app's type check does not follow it into the server's dependencies.
 */
const LABELS = '../../server/src/modules/shipments/labels.ts';
const barcodePng = async (tid: string): Promise<Buffer> =>
  ((await import(LABELS)) as { barcodePng: (t: string) => Promise<Buffer> }).barcodePng(tid);

const SHOTS = 'test-results/scan-screens';
mkdirSync(SHOTS, { recursive: true });

test('a courier opens a stop by the barcode on its label, and is told when a label is not theirs today', async ({ page }, info) => {
  // The owner signs up through the API only: this tab is the courier's, and holds no other session.
  const signup = await page.request.post('/v1/user/general/signup', {
    data: { email: uniqueEmail('scan-owner'), password: 'password1', repassword: 'password1', terms: true, userType: 'company' },
  });
  const ownerToken = ((await signup.json()) as { payload: { sessionToken: string } }).payload.sessionToken;
  await apiPost(page.request, ownerToken, '/v1/user/general/update', { profile: { company: 'Scan Couriers', showWizard: false } });
  const email = uniqueEmail('scan-courier');
  expect(
    (
      await apiPost(page.request, ownerToken, '/v1/user/general/addmember', {
        email,
        role: 'courier',
        firstName: 'Sam',
        lastName: 'Scanner',
        phone: '2125550142',
        password: 'courierpass1',
      })
    ).code,
  ).toBe(201);
  const tids: string[] = [];
  for (const name of ['Alex', 'Jo']) {
    const created = await apiPost(page.request, ownerToken, '/v1/shipment/create', {
      origin: { name: 'Depot', address1: '1 Main St', city: 'Chicago', state: 'IL', zip: '60601', country: 'US' },
      destination: { name, address1: '9 Elm St', city: 'Chicago', state: 'IL', zip: '60614', country: 'US' },
      parcels: [{ name: 'Box', length: 10, width: 8, height: 4, weight: 2 }],
      courier: 'Sam Scanner',
      courierEmail: email,
    });
    expect(created.code).toBe(201);
    tids.push(created.payload.tid as string);
  }
  const login = await page.request.post('/v1/user/general/login', { data: { email, password: 'courierpass1' } });
  const { payload } = (await login.json()) as { payload: { sessionToken: string; version: string } };
  await page.goto('/terms-of-service');
  await page.evaluate((s) => localStorage.setItem('shiptrail.session', JSON.stringify(s)), {
    token: payload.sessionToken,
    version: payload.version,
  });
  await page.goto('/account/dashboard');
  await expect(page.getByTestId('stops').locator('li')).toHaveCount(2);

  // No barcode reader is fetched before the scanner opens.
  const fetched: string[] = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  expect(fetched.some((p) => /zxing|ponyfill|scan-label/.test(p))).toBe(false);
  await page.getByRole('button', { name: 'Scan a label' }).tap();
  const dialog = page.getByRole('dialog', { name: 'Scan a label' });
  await expect(dialog).toBeVisible();
  await page.waitForTimeout(800);
  await page.screenshot({ path: `${SHOTS}/scanner-${info.project.name}.png` });

  // A label that is not one of today's stops.
  await dialog
    .getByTestId('scan-photo')
    .setInputFiles({ name: 'other.png', mimeType: 'image/png', buffer: await barcodePng('SHM000000000017') });
  await expect(dialog.getByTestId('scan-problem')).toHaveText('The label SHM000000000017 is not one of your stops today.');
  await page.screenshot({ path: `${SHOTS}/scanner-not-today-${info.project.name}.png` });
  expect(fetched.some((p) => p.endsWith('.wasm'))).toBe(true);

  // The second stop's label opens that stop's update form.
  await dialog.getByTestId('scan-photo').setInputFiles({ name: 'label.png', mimeType: 'image/png', buffer: await barcodePng(tids[1]!) });
  await expect(dialog).toHaveCount(0);
  const form = page.getByRole('dialog');
  await expect(form).toContainText(tids[1]!);
  await page.screenshot({ path: `${SHOTS}/scanner-opened-${info.project.name}.png` });
});
