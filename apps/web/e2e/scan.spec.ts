import { chromium, expect as baseExpect, test, type Page } from '@playwright/test';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { chromiumArgs, chromiumPath } from '../scripts/chromium.mjs';
import { addCourierViaApi, apiPost, labelBarcodePng, uniqueEmail } from './helpers';

// Issue 31, decision 130: the courier scans a label's Code 128 barcode to open that stop. Chromium on Linux has no
// BarcodeDetector, so this runs the lazy-loaded polyfill (ZXing in WebAssembly, served by us), fed the server's own
// label barcode through the photo picker (no camera permission); a label that is not one of today's stops says so.
// Fetched with the day (decision 150), the reader works without signal on a phone that never opened the scanner
// online. The camera path runs too: Chromium's fake camera plays a video of the label (a Y4M file made from the same PNG).
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(180_000);

const barcodePng = labelBarcodePng;

const SHOTS = 'test-results/scan-screens';
mkdirSync(SHOTS, { recursive: true });

/**
 * An owner (signed up through the API only) with a courier and two shipments for that courier today; the page is
 * signed in as the courier. Returns the two tracking numbers.
 */
async function courierWithTwoStops(page: Page): Promise<string[]> {
  // The owner signs up through the API only: this tab is the courier's, and holds no other session.
  const signup = await page.request.post('/v1/user/general/signup', {
    data: { email: uniqueEmail('scan-owner'), password: 'password1', repassword: 'password1', terms: true, userType: 'company' },
  });
  const ownerToken = ((await signup.json()) as { payload: { sessionToken: string } }).payload.sessionToken;
  await apiPost(page.request, ownerToken, '/v1/user/general/update', { profile: { company: 'Scan Couriers', showWizard: false } });
  const email = uniqueEmail('scan-courier');
  const added = await addCourierViaApi(page.request, ownerToken, email, { firstName: 'Sam', lastName: 'Scanner', phone: '2125550142' });
  expect(added.code).toBe(201);
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
  return tids;
}

test('a courier opens a stop by the barcode on its label, and is told when a label is not theirs today', async ({ page }, info) => {
  const tids = await courierWithTwoStops(page);
  await page.goto('/account/dashboard');
  await expect(page.getByTestId('stops').locator('li')).toHaveCount(2);

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

  // The second stop's label opens that stop's update form.
  await dialog.getByTestId('scan-photo').setInputFiles({ name: 'label.png', mimeType: 'image/png', buffer: await barcodePng(tids[1]!) });
  await expect(dialog).toHaveCount(0);
  const form = page.getByRole('dialog');
  await expect(form).toContainText(tids[1]!);
  await page.screenshot({ path: `${SHOTS}/scanner-opened-${info.project.name}.png` });
});

test('without signal, a scanner never opened before still reads a label: its reader came with the day', async ({ page }, info) => {
  const tids = await courierWithTwoStops(page);
  await page.evaluate(() => navigator.serviceWorker.ready);
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller), { timeout: 30_000 }).toBe(true);
  await page.goto('/account/dashboard');
  await expect(page.getByTestId('stops').locator('li')).toHaveCount(2);
  // The scanner was not opened, yet its reader's wasm is in the service worker's cache a moment after the day shows.
  await expect
    .poll(() =>
      page.evaluate(async () => {
        for (const name of await caches.keys()) {
          const kept = await (await caches.open(name)).keys();
          if (kept.some((r) => new URL(r.url).pathname.endsWith('.wasm'))) return true;
        }
        return false;
      }),
    )
    .toBe(true);

  await page.context().setOffline(true);
  await page.reload();
  await expect(page.getByTestId('stops').locator('li')).toHaveCount(2);
  await page.getByRole('button', { name: 'Scan a label' }).tap();
  const dialog = page.getByRole('dialog', { name: 'Scan a label' });
  await expect(dialog).toBeVisible();
  await dialog.getByTestId('scan-photo').setInputFiles({ name: 'label.png', mimeType: 'image/png', buffer: await barcodePng(tids[0]!) });
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('dialog').filter({ hasText: tids[0]! })).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/offline-opened-${info.project.name}.png` });
  await page.context().setOffline(false);
});

/**
 * A camera's view of a label: the label's barcode on white, 1280x720, as the raw video Chromium's fake camera plays
 * (`--use-file-for-fake-video-capture`, YUV4MPEG2, 4:2:0). Grey only: the two colour planes are neutral.
 */
async function cameraFeed(tid: string): Promise<string> {
  const [width, height] = [1280, 720];
  const code = await sharp(await barcodePng(tid))
    .resize({ width: width - 80, height: height - 80, fit: 'inside', withoutEnlargement: true })
    .toBuffer();
  const { data, info } = await sharp({ create: { width, height, channels: 3, background: '#ffffff' } })
    .composite([{ input: code, gravity: 'centre' }])
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  expect([info.width, info.height, info.channels]).toEqual([width, height, 1]);
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), data, chroma]);
  const file = join(mkdtempSync(join(tmpdir(), 'shiptrail-camera-')), 'label.y4m');
  writeFileSync(file, Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`), frame, frame, frame]));
  return file;
}

test("a courier opens a stop by pointing the phone's camera at its label", async ({ page }, info) => {
  const tids = await courierWithTwoStops(page);
  const session = await page.evaluate(() => localStorage.getItem('shiptrail.session'));
  // A browser whose camera sees the second stop's label, under this project's phone profile.
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      ...chromiumArgs,
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-video-capture=${await cameraFeed(tids[1]!)}`,
    ],
  });
  try {
    const { baseURL, viewport, userAgent, deviceScaleFactor, isMobile, hasTouch } = info.project.use;
    const context = await browser.newContext({
      baseURL,
      viewport,
      userAgent,
      deviceScaleFactor,
      isMobile,
      hasTouch,
      permissions: ['camera'],
    });
    const phone = await context.newPage();
    await phone.goto('/terms-of-service');
    await phone.evaluate((s) => localStorage.setItem('shiptrail.session', s!), session);
    await phone.goto('/account/dashboard');
    await expect(phone.getByTestId('stops').locator('li')).toHaveCount(2);

    await phone.getByRole('button', { name: 'Scan a label' }).tap();
    // The camera is on (its video plays, no "no camera" words), reads the label and opens that stop's update form.
    await expect(phone.getByRole('dialog').filter({ hasText: tids[1]! })).toBeVisible();
    await expect(phone.getByRole('dialog', { name: 'Scan a label' })).toHaveCount(0);
    await expect(phone.getByTestId('scan-no-camera')).toHaveCount(0);
    await phone.screenshot({ path: `${SHOTS}/camera-opened-${info.project.name}.png` });
    // The scanner let go of the camera when it closed.
    expect(await phone.evaluate(() => document.querySelectorAll('video').length)).toBe(0);
  } finally {
    await browser.close();
  }
});
