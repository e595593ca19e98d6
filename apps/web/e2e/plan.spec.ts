import { devices, expect as baseExpect, test, type APIRequestContext, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import {
  addThreeCouriers,
  apiPost,
  createShipmentViaApi,
  planStopsOf,
  signUpViaApi,
  uniqueEmail,
  planShipment,
  zoneWithMorning,
  sidewaysOverflow,
} from './helpers';

// Plan the day (issue 30; decision 118), at a desk: an owner with three couriers and a day of shipments plans
// it, sees three routes with times drawn on the map, locks a stop, moves one to another courier, adds a
// shipment and plans again; the courier's phone lists their stops in plan order with times, and the
// customer's public page says when to expect the courier.
test.describe.configure({ mode: 'serial' });
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(240_000);

const SHOTS = process.env.PLAN_SHOTS ?? 'test-results/plan';
mkdirSync(SHOTS, { recursive: true });

/**
 * The plan is for today: a time zone where it is now between 08:00 and 13:00, so the day's shift (08:00-18:00
 * there) has hours left whenever the test runs.
 */
const { zone, date } = zoneWithMorning();

let ownerToken = '';
let uid = '';
const couriers: { email: string; name: string }[] = [];

const shipment = (i: number, over: Record<string, unknown> = {}) => ({
  ...planShipment(date, i, { around: 9, street: 'Spring St', firstNumber: 200, orderPrefix: 'PLAN', customerEmail: true }),
  ...over,
});

const create = (request: APIRequestContext, body: unknown) => createShipmentViaApi(request, ownerToken, body);

async function shot(page: Page, name: string) {
  await page.waitForFunction(() => !document.querySelector('[aria-label^="Loading"]'), null, { timeout: 20_000 });
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

const routes = (page: Page) => page.getByTestId('plan-route');
const stopsOf = planStopsOf;

test('the owner plans the day, locks and moves stops, adds a shipment and plans again; courier and customer see the times', async ({
  page,
  browser,
}) => {
  await page.setViewportSize({ width: 1366, height: 768 });
  ownerToken = await signUpViaApi(page, page.request, uniqueEmail('planner'), 'company');
  const upd = await apiPost(page.request, ownerToken, '/v1/user/general/update', { profile: { timeZone: zone, company: 'Plan Co' } });
  expect(upd.code, JSON.stringify(upd)).toBe(200);
  couriers.push(...(await addThreeCouriers(page.request, ownerToken)));
  const tids: string[] = [];
  for (let i = 0; i < 9; i++) tids.push(await create(page.request, shipment(i)));
  const impossible = await create(page.request, shipment(9, { windowFrom: '05:00', windowTo: '06:00' }));

  await page.goto('/account/shipments');
  await page.getByRole('link', { name: 'Plan the day' }).click();
  await expect(page).toHaveURL(/\/account\/shipments\/plan$/);
  await page.getByTestId('plan-date').fill(date);
  await expect(page.getByTestId('no-plan')).toBeVisible();
  await page.getByTestId('plan-button').click();
  await expect(routes(page)).toHaveCount(3);
  for (const c of couriers) await expect(stopsOf(page, c.email).first()).toBeVisible();
  await expect(page.getByTestId('plan-stop')).toHaveCount(9);
  // Each stop shows its arrival time, and the times rise along each route.
  for (const c of couriers) {
    const times = await stopsOf(page, c.email).getByTestId('plan-stop-eta').allTextContents();
    expect(times.every((t) => /\d{1,2}:\d{2}/.test(t))).toBe(true);
  }
  await expect(page.getByTestId('plan-unplanned').locator(`[data-tid="${impossible}"]`)).toContainText('delivery window');
  // Each route is drawn on the map, in its courier's colour.
  await expect(page.locator('path.st-route-planned')).toHaveCount(3);
  await shot(page, 'desktop-1-planned');

  // Lock the second stop of the first courier: it and the one before it are locked.
  const first = couriers[0]!.email;
  const second = (await stopsOf(page, first).nth(1).getAttribute('data-tid'))!;
  const head = (await stopsOf(page, first).nth(0).getAttribute('data-tid'))!;
  await page.getByRole('button', { name: `Lock stop ${second}` }).click();
  await expect(stopsOf(page, first).nth(0)).toHaveAttribute('data-locked', 'true');
  await expect(stopsOf(page, first).nth(1)).toHaveAttribute('data-locked', 'true');

  // Move the last stop of the second courier to the third.
  const from = couriers[1]!.email;
  const to = couriers[2]!;
  const moving = (await stopsOf(page, from).last().getAttribute('data-tid'))!;
  await page.getByRole('combobox', { name: `Move stop ${moving} to another courier` }).click();
  await page.getByRole('option', { name: to.name }).click();
  await expect(stopsOf(page, to.email).last()).toHaveAttribute('data-tid', moving);
  await expect(stopsOf(page, to.email).last()).toHaveAttribute('data-locked', 'true');
  await expect(stopsOf(page, from).locator(`[data-tid="${moving}"]`)).toHaveCount(0);

  // A shipment comes in; Plan again fits it in and keeps the locked head.
  const added = await create(page.request, shipment(10));
  await page.getByTestId('replan-button').click();
  await expect(page.locator(`[data-testid="plan-stop"][data-tid="${added}"]`)).toBeVisible();
  await expect(page.getByTestId('plan-stop')).toHaveCount(10);
  for (const c of couriers) await expect(stopsOf(page, c.email).first()).toBeVisible();
  await expect(stopsOf(page, first).nth(0)).toHaveAttribute('data-tid', head);
  await expect(stopsOf(page, first).nth(1)).toHaveAttribute('data-tid', second);
  await shot(page, 'desktop-2-replanned');
  // The owner's plan at phone width: the lists stack above the map and nothing runs off the side.
  await page.setViewportSize({ width: 412, height: 915 });
  await expect(page.getByTestId('plan-route').first()).toBeVisible();
  // Once the resized window has settled (a phone never changes from a desk's width), nothing sticks out; a failure
  // names what does.
  await expect.poll(() => sidewaysOverflow(page), { timeout: 10_000 }).toEqual([]);
  await shot(page, 'phone-width-owner-plan');
  await page.setViewportSize({ width: 1366, height: 768 });

  // The stored plan, as the API gives it.
  const plan = (await (await page.request.get(`/v1/plans/${date}`, { headers: { 'sm-api-token': ownerToken } })).json()).payload as {
    routes: { courierEmail: string; stops: { tid: string; eta: string; windowFrom: string; windowTo: string }[] }[];
  };
  const theirs = plan.routes.find((r) => r.courierEmail === to.email)!;
  const list = await apiPost(page.request, ownerToken, '/v1/shipment/getshipments', { numRecords: 5 });
  uid = list.payload[0].uid;

  // The courier's phone: their stops in plan order, each with its time.
  const { defaultBrowserType: _b, ...pixel } = devices['Pixel 7'];
  // The courier's phone and the customer are where the company is.
  const phone = await browser.newContext({ ...pixel, timezoneId: zone });
  const courierPage = await phone.newPage();
  const login = await courierPage.request.post('/v1/user/general/login', { data: { email: to.email, password: 'courierpass1' } });
  const session = ((await login.json()) as { payload: { sessionToken: string; version: string } }).payload;
  await courierPage.goto('/terms-of-service');
  await courierPage.evaluate((s) => localStorage.setItem('shiptrail.session', JSON.stringify(s)), {
    token: session.sessionToken,
    version: session.version,
  });
  await courierPage.goto('/account/dashboard');
  const cards = courierPage.getByTestId('stops').locator('li');
  await expect(cards).toHaveCount(theirs.stops.length);
  for (let i = 0; i < theirs.stops.length; i++) await expect(cards.nth(i)).toHaveAttribute('data-tid', theirs.stops[i]!.tid);
  await expect(cards.first().getByTestId('stop-time')).toHaveText(/\d{1,2}:\d{2}/);
  await shot(courierPage, 'pixel-7-courier-stops');

  // The customer's public page says when to expect the courier.
  await courierPage.evaluate(() => localStorage.removeItem('shiptrail.session'));
  await courierPage.goto(`/track/${uid}/${theirs.stops[0]!.tid}`);
  await expect(courierPage.getByTestId('track-window')).toHaveText(/^Expected between \d{1,2}:\d{2}.* and \d{1,2}:\d{2}/);
  await shot(courierPage, 'pixel-7-customer-window');
  await phone.close();
});
