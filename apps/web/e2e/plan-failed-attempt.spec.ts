import { devices, expect as baseExpect, test, type Browser, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { addCourierViaApi, apiPost, signUpViaApi, uniqueEmail, planShipment, zoneWithMorning } from './helpers';

// Decision 137: a courier marks "Attempt failed" on their first stop of today's plan; the owner's plan page
// shows that stop done at the head of the route, marked "attempt failed" with its time, and the courier's other
// stops after it. Looked at on a desk (1366x768) and on a Pixel 7 (the phone profile in our Chromium).
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(240_000);

const SHOTS = process.env.PLAN_SHOTS ?? 'test-results/plan-failed';
mkdirSync(SHOTS, { recursive: true });

const { zone, date } = zoneWithMorning();

const shipment = (i: number) => planShipment(date, i, { around: 6, street: 'Hill St', firstNumber: 300, orderPrefix: 'FAIL' });

async function ownerPage(browser: Browser, session: { token: string; version: string }, phone: boolean): Promise<Page> {
  const { defaultBrowserType: _b, ...pixel } = devices['Pixel 7'];
  const context = await browser.newContext(
    phone
      ? { ...pixel, timezoneId: zone }
      : { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false, timezoneId: zone },
  );
  const page = await context.newPage();
  await page.goto('/terms-of-service');
  await page.evaluate((s) => localStorage.setItem('shiptrail.session', JSON.stringify(s)), session);
  await page.goto('/account/shipments/plan');
  await page.getByTestId('plan-date').fill(date);
  return page;
}

test('a failed attempt shows at the head of its route, marked, with its time; the rest follows', async ({ browser, page }) => {
  const ownerEmail = uniqueEmail('fail-owner');
  const ownerToken = await signUpViaApi(page, page.request, ownerEmail, 'company');
  const upd = await apiPost(page.request, ownerToken, '/v1/user/general/update', {
    profile: { timeZone: zone, company: 'Fail Co', showWizard: false },
  });
  expect(upd.code, JSON.stringify(upd)).toBe(200);
  const couriers: string[] = [];
  for (const first of ['Ada', 'Ben']) {
    const email = uniqueEmail(first.toLowerCase());
    const r = await addCourierViaApi(page.request, ownerToken, email, { firstName: first, lastName: 'Driver' });
    expect(r.code, JSON.stringify(r)).toBe(201);
    couriers.push(email);
  }
  for (let i = 0; i < 6; i++) expect((await apiPost(page.request, ownerToken, '/v1/shipment/create', shipment(i))).code).toBe(201);
  const planned = await apiPost(page.request, ownerToken, '/v1/plans', { date, seconds: 0.5 });
  expect(planned.code, JSON.stringify(planned)).toBe(201);
  const route = (planned.payload.routes as { courierEmail: string; stops: { tid: string }[] }[]).find((r) => r.stops.length >= 2)!;

  // The courier, at their first stop, records that nobody was in.
  const login = await page.request.post('/v1/user/general/login', { data: { email: route.courierEmail, password: 'courierpass1' } });
  const courierToken = ((await login.json()) as { payload: { sessionToken: string } }).payload.sessionToken;
  const failed = route.stops[0]!.tid;
  const checkpoint = await apiPost(page.request, courierToken, '/v1/shipment/update', {
    tid: failed,
    status: 'FailAttempt',
    location: 'Los Angeles, CA',
  });
  expect(checkpoint.code, JSON.stringify(checkpoint)).toBe(200);

  const ownerLogin = await page.request.post('/v1/user/general/login', { data: { email: ownerEmail, password: 'password1' } });
  const s = ((await ownerLogin.json()) as { payload: { sessionToken: string; version: string } }).payload;
  for (const phone of [false, true]) {
    const owner = await ownerPage(browser, { token: s.sessionToken, version: s.version }, phone);
    const stops = owner.locator(`[data-testid="plan-route"][data-courier="${route.courierEmail}"] [data-testid="plan-stop"]`);
    await expect(stops.first()).toHaveAttribute('data-tid', failed);
    await expect(stops.first().getByText('attempt failed')).toBeVisible();
    await expect(stops.first().getByTestId('plan-stop-eta')).toHaveText(/\d{1,2}:\d{2}/);
    await expect(stops).toHaveCount(route.stops.length);
    await expect(owner.getByText('attempt failed')).toHaveCount(1);
    // Done for today: it cannot be dragged, locked or moved, and nothing moves above it.
    await expect(stops.first()).toHaveAttribute('data-done', 'true');
    await expect(stops.first().getByTestId('plan-stop-handle')).toBeDisabled();
    await expect(stops.first().getByRole('button', { name: `Lock stop ${failed}` })).toBeDisabled();
    await expect(stops.first().getByRole('button', { name: `Move stop ${failed} down` })).toBeDisabled();
    await expect(stops.first().getByLabel(`Move stop ${failed} to another courier`)).toBeDisabled();
    await expect(stops.nth(1).getByRole('button', { name: /^Move stop .* up$/ })).toBeDisabled();
    await expect(stops.nth(1).getByTestId('plan-stop-handle')).toBeEnabled();
    await stops.first().scrollIntoViewIfNeeded();
    await owner.waitForTimeout(300);
    await owner.screenshot({ path: `${SHOTS}/${phone ? 'pixel-7' : 'desk-1366'}-failed-stop.png` });
    await owner.context().close();
  }
});
