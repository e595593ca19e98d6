import { expect as baseExpect, test, type APIRequestContext, type BrowserContext, type Page } from '@playwright/test';
import {
  addCourierViaApi,
  companyAtDesk,
  expectKeptForOffline,
  fillCheckpointByTap,
  handOutToCourier,
  labelBarcodePng,
  openPhone,
  phoneShots,
  signInByTap,
  storedShipment,
  type StoredShipment,
  uniqueEmail,
} from './helpers';

// The courier's phone without signal, the last gaps of issue 31 (decision 138), on the Pixel 7 and iPhone 13
// profiles, by tap: signing out with actions waiting asks first and keeps them for the next sign-in; a stop
// delivered offline leaves the stops to do at once and reaches the server with the time it happened; a stop never
// opened online opens offline and is finished; a scanned label of a shipment not picked up yet confirms the
// pickup, online and offline.
test.describe.configure({ mode: 'serial' });
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(240_000);

const shot = phoneShots('courier-offline2');
const barcodePng = labelBarcodePng;

let desk: BrowserContext;
let owner: Page;
let ownerToken = '';
let courierEmail = '';
const courierPassword = 'courierpass1';

const stored = (request: APIRequestContext, tid: string) => storedShipment(request, ownerToken, tid);
const count = (s: StoredShipment, status: string) => s.checkpoints.filter((c) => c.status === status).length;

const handOut = (names: string[]) =>
  handOutToCourier(owner.request, ownerToken, courierEmail, names, { firstNumber: 30, street: 'Pine St', notes: true });

const fillAndSave = fillCheckpointByTap;

const stopsOf = (page: Page) => page.getByRole('list', { name: "Today's stops" }).getByRole('listitem');

test.beforeAll(async ({ browser }) => {
  ({ desk, owner, ownerToken } = await companyAtDesk(browser, 'offline2'));
});

// Each test has its own courier, so each starts with only its own stops.
test.beforeEach(async () => {
  courierEmail = uniqueEmail('offline2-courier');
  const added = await addCourierViaApi(owner.request, ownerToken, courierEmail, { password: courierPassword });
  expect(added.status, JSON.stringify(added)).toBe('success');
});

test.afterAll(async () => {
  await desk?.close();
});

test('signing out with an update not sent asks first; kept on the phone, it goes with the next sign-in, once', async ({
  page,
  context,
}) => {
  const [tid] = await handOut(['Robin Waiting']);
  await openPhone(page, courierEmail, courierPassword);
  await expect(stopsOf(page).filter({ hasText: 'Robin Waiting' })).toBeVisible();
  await expectKeptForOffline(page, ['checkpoint-modal']);
  await context.setOffline(true);
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  await page.getByRole('button', { name: `Add checkpoint to ${tid}` }).tap();
  const out = await fillAndSave(page, { status: 'Out For Delivery', location: 'Austin depot' });
  await expect(page.getByTestId('outbox-waiting')).toContainText('Waiting to send: 1');

  // Sign out: the phone says what would happen to the update, and staying is the easy choice.
  await page.getByRole('button', { name: 'Account menu' }).tap();
  await page.getByRole('menuitem', { name: 'Sign out' }).tap();
  const ask = page.getByRole('dialog', { name: 'Sign out?' });
  await expect(ask).toContainText('1 update has not been sent yet.');
  await expect(ask).toContainText(`sent by themselves the next time you sign in here as ${courierEmail}`);
  await shot(page, 'sign-out-waiting');
  await ask.getByRole('button', { name: 'Stay signed in' }).tap();
  await expect(ask).toHaveCount(0);
  await expect(page).toHaveURL(/\/account\/dashboard$/);
  await expect(page.getByTestId('outbox-waiting')).toContainText('Waiting to send: 1');

  // The courier signs out anyway: nothing is sent, nothing is lost.
  await page.getByRole('button', { name: 'Account menu' }).tap();
  await page.getByRole('menuitem', { name: 'Sign out' }).tap();
  await ask.getByRole('button', { name: 'Sign out, keep them on this phone' }).tap();
  await expect(page).not.toHaveURL(/\/account\//);
  expect(await page.evaluate(() => localStorage.getItem('shiptrail.session'))).toBeNull();
  const signedOutAt = Date.now();
  await context.setOffline(false);
  expect(count(await stored(owner.request, tid!), 'OutForDelivery')).toBe(0);

  // Signed in again, by tap, as the same courier: the update goes by itself, once, with the time it was made.
  await signInByTap(page, courierEmail, courierPassword);
  await expect.poll(async () => count(await stored(owner.request, tid!), 'OutForDelivery')).toBe(1);
  await expect(page.getByTestId('outbox-waiting')).toHaveCount(0);
  const s = await stored(owner.request, tid!);
  expect(s.status).toBe('OutForDelivery');
  const t = new Date(s.checkpoints.find((c) => c.status === 'OutForDelivery')!.time).getTime();
  expect(t).toBeGreaterThanOrEqual(out.from - 1000);
  expect(t).toBeLessThan(signedOutAt);
  // With nothing waiting, signing out asks nothing.
  await page.getByRole('button', { name: 'Account menu' }).tap();
  await page.getByRole('menuitem', { name: 'Sign out' }).tap();
  await expect(page).not.toHaveURL(/\/account\//);
  await expect(page.getByRole('dialog', { name: 'Sign out?' })).toHaveCount(0);
});

test('a stop delivered offline leaves the stops to do at once; on the server it keeps the time it happened', async ({ page, context }) => {
  const tids = await handOut(['Ari First', 'Bo Second', 'Cy Third']);
  await openPhone(page, courierEmail, courierPassword);
  const stops = stopsOf(page);
  await expect(stops).toHaveCount(3);
  await expectKeptForOffline(page, ['checkpoint-modal']);
  const order = () => stops.evaluateAll((li) => li.map((l) => l.getAttribute('data-tid')));
  expect(await order()).toEqual(tids);
  await context.setOffline(true);
  await expect(page.getByTestId('offline-banner')).toBeVisible();

  await page.getByRole('button', { name: `Add checkpoint to ${tids[0]}` }).tap();
  const delivered = await fillAndSave(page, { status: 'Delivered', location: '30 Pine St, Austin', recipient: 'Ari First' });
  // The order of the day: the next stop is first, numbered 1; the delivered one waits last, without a number.
  await expect.poll(order).toEqual([tids[1], tids[2], tids[0]]);
  await expect(stops.first().getByLabel('Stop 1', { exact: true })).toBeVisible();
  await expect(stops.nth(2).getByLabel('Delivered on this phone', { exact: true })).toBeVisible();
  await expect(stops.nth(2)).toHaveAttribute('data-pending', 'Delivered');
  await expect(page.getByTestId('day-left')).toHaveText('2');
  await expect(page.getByTestId('day-done')).toHaveText('1');
  await stops.nth(2).scrollIntoViewIfNeeded();
  await shot(page, 'order-offline');
  await page.reload();
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  await expect.poll(order).toEqual([tids[1], tids[2], tids[0]]);
  await page.waitForTimeout(1500);

  const wentOnline = Date.now();
  await context.setOffline(false);
  await expect(page.getByTestId('outbox-waiting')).toHaveCount(0);
  await expect(stops).toHaveCount(2);
  expect(await order()).toEqual([tids[1], tids[2]]);
  await expect(page.getByTestId('day-done')).toHaveText('1');
  await expect(page.getByTestId('day-left')).toHaveText('2');
  const s = await stored(owner.request, tids[0]!);
  expect(count(s, 'Delivered')).toBe(1);
  const t = new Date(s.checkpoints.find((c) => c.status === 'Delivered')!.time).getTime();
  expect(t).toBeGreaterThanOrEqual(delivered.from - 1000);
  expect(t).toBeLessThanOrEqual(delivered.to + 1000);
  expect(t).toBeLessThan(wentOnline);
});

test('a stop never opened online opens without signal, with its details, and is finished', async ({ page, context }) => {
  const tids = await handOut(['Gil Neveropened', 'Hana Other']);
  await openPhone(page, courierEmail, courierPassword);
  await expect(stopsOf(page)).toHaveCount(2);
  // Only the day list was shown online; the stop view's code came with it.
  await expectKeptForOffline(page, ['checkpoint-modal', 'stop-details']);
  await context.setOffline(true);
  await expect(page.getByTestId('offline-banner')).toBeVisible();

  await page.getByRole('button', { name: `Open stop ${tids[0]}` }).tap();
  const details = page.getByTestId('stop-details');
  await expect(details).toBeVisible();
  await expect(details).toContainText('Gil Neveropened');
  await expect(details).toContainText('30 Pine St, Austin');
  await expect(details).toContainText('Note for Gil Neveropened');
  await expect(details).toContainText('Box (9 × 6 × 4');
  await expect(details).toContainText('Info Received');
  await shot(page, 'stop-details-offline');
  await details.getByRole('button', { name: `Update ${tids[0]}` }).tap();
  await fillAndSave(page, { status: 'Delivered', location: '30 Pine St, Austin', recipient: 'Gil Neveropened' });
  await expect(page.getByTestId('outbox-waiting')).toContainText('Waiting to send: 1');
  // Opened again, the stop shows what waits to be sent.
  await page.getByRole('button', { name: `Open stop ${tids[0]}` }).tap();
  await expect(details.getByLabel('History of this stop')).toContainText('Waiting to send');
  await shot(page, 'stop-details-waiting');
  await page.keyboard.press('Escape');
  await expect(details).toHaveCount(0);

  await context.setOffline(false);
  await expect(page.getByTestId('outbox-waiting')).toHaveCount(0);
  const s = await stored(owner.request, tids[0]!);
  expect([s.status, count(s, 'Delivered')]).toEqual(['Delivered', 1]);
});

test('a scanned label not picked up yet confirms the pickup, with signal and without', async ({ page, context }) => {
  const tids = await handOut(['Ivy Pickup', 'Jay Pickup']);
  await openPhone(page, courierEmail, courierPassword);
  await expect(stopsOf(page)).toHaveCount(2);
  const scan = async (tid: string) => {
    await page.getByRole('button', { name: 'Scan a label' }).tap();
    const scanner = page.getByRole('dialog', { name: 'Scan a label' });
    await expect(scanner).toBeVisible();
    await scanner.getByTestId('scan-photo').setInputFiles({ name: 'label.png', mimeType: 'image/png', buffer: await barcodePng(tid) });
    await expect(scanner).toHaveCount(0);
  };

  // With signal: the label of a shipment still Info Received offers the pickup; one tap records it.
  await scan(tids[0]!);
  const pickup = page.getByRole('dialog', { name: 'Not picked up yet' });
  await expect(pickup).toContainText(tids[0]!);
  await expect(pickup).toContainText('Pick up at Depot, 1 Main St, Springfield');
  await shot(page, 'confirm-pickup');
  await pickup.getByRole('button', { name: 'Confirm pickup' }).tap();
  await expect(pickup).toHaveCount(0);
  await expect.poll(async () => (await stored(owner.request, tids[0]!)).status).toBe('InTransit');
  const a = await stored(owner.request, tids[0]!);
  expect(a.checkpoints.filter((c) => c.status === 'InTransit').map((c) => [c.message, c.location])).toEqual([
    ['Picked up by the courier', 'Depot, 1 Main St, Springfield'],
  ]);
  await expect(stopsOf(page).filter({ hasText: 'Ivy Pickup' })).toHaveAttribute('data-status', 'InTransit');
  // Picked up, its label opens the update form as before.
  await scan(tids[0]!);
  await expect(page.getByRole('form', { name: 'Add checkpoint' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('form', { name: 'Add checkpoint' })).toHaveCount(0);

  // Without signal: the pickup is kept on the phone with its time and goes once when the signal returns.
  await expectKeptForOffline(page, ['confirm-pickup', 'scan-label']);
  await context.setOffline(true);
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  await scan(tids[1]!);
  await expect(pickup).toContainText(tids[1]!);
  const from = Date.now();
  await pickup.getByRole('button', { name: 'Confirm pickup' }).tap();
  await expect(pickup).toHaveCount(0);
  await expect(page.getByTestId('outbox-waiting')).toContainText('Waiting to send: 1');
  await expect(stopsOf(page).filter({ hasText: 'Jay Pickup' })).toHaveAttribute('data-pending', 'InTransit');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, 'pickup-kept-offline');
  // Scanned again while it waits: it is no longer offered as a pickup.
  await scan(tids[1]!);
  await expect(page.getByRole('form', { name: 'Add checkpoint' })).toBeVisible();
  await page.keyboard.press('Escape');
  expect((await stored(owner.request, tids[1]!)).status).toBe('InfoReceived');
  await page.waitForTimeout(1000);
  const wentOnline = Date.now();
  await context.setOffline(false);
  await expect(page.getByTestId('outbox-waiting')).toHaveCount(0);
  const b = await stored(owner.request, tids[1]!);
  expect([b.status, count(b, 'InTransit')]).toEqual(['InTransit', 1]);
  const t = new Date(b.checkpoints.find((c) => c.status === 'InTransit')!.time).getTime();
  expect(t).toBeGreaterThanOrEqual(from - 1000);
  expect(t).toBeLessThan(wentOnline);
});
