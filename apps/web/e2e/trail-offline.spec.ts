import { expect as baseExpect, test, type BrowserContext, type Page } from '@playwright/test';
import { apiPost, companyWithCourier, openPhone, phoneShots } from './helpers';

// The courier's trail without signal (issue 31, decision 149), on the phone profiles, by tap: sharing their
// location with no signal, the courier moves three times; the phone keeps each position with the time it was
// taken and says so; back online, the three reach the server in order, with their times, and the couriers map
// shows the newest.
test.describe.configure({ mode: 'serial' });
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(240_000);

const shot = phoneShots('trail-offline');
/** How often the phone takes a position while sharing (SHARE_EVERY_MS of share-location.tsx). */
const SHARE_EVERY_MS = 30_000;

let desk: BrowserContext;
let owner: Page;
let ownerToken = '';
let courierEmail = '';
let courierPassword = '';

test.beforeAll(async ({ browser }) => {
  ({ desk, owner, ownerToken, courierEmail, courierPassword } = await companyWithCourier(browser, 'trail'));
});

test.afterAll(async () => {
  await desk?.close();
});

test('three positions taken without signal are kept on the phone and reach the trail on the server, in order, with their times', async ({
  page,
  context,
}) => {
  const route = [
    { latitude: 30.2672, longitude: -97.7431 },
    { latitude: 30.2749, longitude: -97.7404 },
    { latitude: 30.2862, longitude: -97.7394 },
  ];
  await context.grantPermissions(['geolocation']);
  // The first fix's time is when the browser had that position (a fix up to 15 s old is taken as it is).
  const started = Date.now();
  await context.setGeolocation(route[0]!);
  // The phone's clock is the test's (Playwright's clock: it runs on its own, and the test moves it on by the sharing
  // interval instead of waiting it out). The positions' times are the browser's fixes', on the real clock.
  await page.clock.install();
  await openPhone(page, courierEmail, courierPassword);
  const share = page.getByRole('switch', { name: 'Share my location' });
  await expect(share).not.toBeChecked();
  const members = async () =>
    (await apiPost(owner.request, ownerToken, '/v1/user/general/getmembers', {})).payload as Array<{
      uid: string;
      email: string;
      geo: { lat: number; lng: number } | null;
      geoAt: string | null;
    }>;
  const me = async () => (await members()).find((m) => m.email === courierEmail)!;
  const { uid } = await me();
  const trail = async () =>
    (await apiPost(owner.request, ownerToken, '/v1/user/general/trail', { uid })).payload as Array<{
      lat: number;
      lng: number;
      takenAt: string;
    }>;

  await context.setOffline(true);
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  await share.tap();
  await expect(share).toBeChecked();
  const kept = page.getByTestId('share-location-kept');
  await expect(kept).toContainText('your position of');
  await expect(kept).toContainText('is kept on the phone and goes when the signal returns');
  // The courier moves on: a position per sharing interval (30 s), each kept.
  await context.setGeolocation(route[1]!);
  await page.clock.fastForward(SHARE_EVERY_MS);
  await expect(kept).toContainText('2 positions since');
  await context.setGeolocation(route[2]!);
  await page.clock.fastForward(SHARE_EVERY_MS);
  await expect(kept).toContainText('3 positions since');
  await expect(kept).toContainText('are kept on the phone and go when the signal returns, in order.');
  await share.scrollIntoViewIfNeeded();
  await shot(page, 'trail-kept');
  expect(await trail()).toEqual([]);
  expect((await me()).geo).toBeNull();

  // Back online: the three go together, and the server has them in order with the times they were taken.
  const wentOnline = Date.now();
  await context.setOffline(false);
  await expect.poll(async () => (await trail()).length).toBe(3);
  const t = await trail();
  expect(t.map(({ lat, lng }) => ({ latitude: lat, longitude: lng }))).toEqual(route);
  const times = t.map((p) => Date.parse(p.takenAt));
  for (const [i, at] of times.entries()) {
    expect(at).toBeGreaterThanOrEqual(started - 1000);
    expect(at).toBeLessThan(wentOnline);
    if (i > 0) expect(at).toBeGreaterThan(times[i - 1]!);
  }
  // The couriers map shows the newest, at the time it was taken.
  const m = await me();
  expect(m.geo).toEqual({ lat: route[2]!.latitude, lng: route[2]!.longitude });
  expect(m.geoAt).toBe(t[2]!.takenAt);
  await expect(kept).toHaveCount(0);
  await expect(page.getByTestId('share-location-sent')).toBeVisible();
  // Nothing waits on the phone any more, and nothing is sent twice.
  await page.waitForTimeout(1000);
  expect(await trail()).toHaveLength(3);
  await shot(page, 'trail-sent');
});
