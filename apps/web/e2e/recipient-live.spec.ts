import { expect as baseExpect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { addCourierViaApi, apiPost, signUpViaApi, uniqueEmail } from './helpers';

// Issue 31 (decision 128): the recipient's public page, open on a phone, shows the courier on the map once the
// shipment is out for delivery and the courier shares a position, without a reload (the public live stream).
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(180_000);

const SHOTS = 'test-results/recipient-live-screens';
mkdirSync(SHOTS, { recursive: true });

test("the recipient's page shows the courier coming, live", async ({ page, browser }, info) => {
  const ownerToken = await signUpViaApi(page, page.request, uniqueEmail('recip-owner'), 'company');
  await apiPost(page.request, ownerToken, '/v1/user/general/update', { profile: { company: 'Corner Couriers', showWizard: false } });
  const email = uniqueEmail('recip-courier');
  const added = await addCourierViaApi(page.request, ownerToken, email, { firstName: 'Rita', lastName: 'Rider', phone: '2125550142' });
  expect(added.code).toBe(201);
  const login = await page.request.post('/v1/user/general/login', { data: { email, password: 'courierpass1' } });
  const courierToken = ((await login.json()) as { payload: { sessionToken: string } }).payload.sessionToken;
  const created = await apiPost(page.request, ownerToken, '/v1/shipment/create', {
    origin: { name: 'Depot', address1: '1 Main St', city: 'Chicago', state: 'IL', zip: '60601', country: 'US', lat: 41.886, long: -87.624 },
    destination: {
      name: 'Jane',
      address1: '9 Elm St',
      city: 'Chicago',
      state: 'IL',
      zip: '60614',
      country: 'US',
      lat: 41.922,
      long: -87.652,
    },
    parcels: [{ name: 'Box', length: 10, width: 8, height: 4, weight: 2 }],
    courier: 'Rita Rider',
    courierEmail: email,
  });
  expect(created.code).toBe(201);
  const tid = created.payload.tid as string;
  const me = await page.request.get('/v1/user/info', { headers: { 'sm-api-token': ownerToken } });
  const uid = ((await me.json()) as { payload: { profile: { uid: string } } }).payload.profile.uid;

  await page.goto(`/track/${uid}/${tid}`);
  await expect(page.getByTestId('track-status')).toBeVisible();
  await expect(page.getByTestId('track-courier-map')).toHaveCount(0);
  expect(
    (await apiPost(page.request, courierToken, '/v1/shipment/update', { tid, status: 'OutForDelivery', location: 'Chicago, IL' })).code,
  ).toBe(200);
  // The courier's phone shares a position: the open page shows it without a reload.
  expect((await apiPost(page.request, courierToken, '/v1/user/general/position', { lat: 41.905, lng: -87.64 })).code).toBe(200);
  const map = page.getByTestId('track-courier-map');
  await expect(map).toBeVisible();
  await expect(map.locator('.st-marker-courier')).toHaveCount(1);
  await expect(page.getByTestId('track-status')).toHaveAttribute('data-status', 'OutForDelivery');
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${SHOTS}/recipient-live-${info.project.name}.png`, fullPage: true });

  // The courier drives on, far out of the first view (about 4 km north): the map follows, the marker stays in sight.
  // Recipients hear a courier at most every 15 s (decision 128), so the next report waits that long.
  await page.waitForTimeout(15_500);
  expect((await apiPost(page.request, courierToken, '/v1/user/general/position', { lat: 41.94, lng: -87.64 })).code).toBe(200);
  await expect(map).toHaveAttribute('data-lat', '41.94');
  await expect
    .poll(async () => {
      const frame = (await map.getByRole('region', { name: 'Where your courier is' }).boundingBox())!;
      const dot = (await map.locator('.st-marker-courier').boundingBox())!;
      return (
        dot.x >= frame.x && dot.y >= frame.y && dot.x + dot.width <= frame.x + frame.width && dot.y + dot.height <= frame.y + frame.height
      );
    })
    .toBe(true);

  // The same page at a desk (1366x768).
  const desk = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const deskPage = await desk.newPage();
  await deskPage.goto(`/track/${uid}/${tid}`);
  await expect(deskPage.getByTestId('track-courier-map').locator('.st-marker-courier')).toHaveCount(1);
  await deskPage.waitForTimeout(500);
  await deskPage.screenshot({ path: `${SHOTS}/recipient-live-1366.png` });
  await desk.close();
});
