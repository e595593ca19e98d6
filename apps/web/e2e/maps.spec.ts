import { expect as baseExpect, test, type Browser, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { apiPost, signUpViaApi, uniqueEmail } from './helpers';

// The maps with no tile server reachable (the server's MAP_TILE_URL is a closed loopback port): the couriers
// map draws its packaged outlines and a marker per courier, and a courier's new position moves its marker
// without a reload; the shipments map draws a shipment's route; the shipment form fills city and state from a ZIP.
test.describe.configure({ mode: 'serial' });
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(180_000);

const SHOTS = 'test-results/maps-screens';
mkdirSync(SHOTS, { recursive: true });
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let owner: Page;
let ownerToken = '';
const couriers: Array<{ email: string; uid: string; token: string; version: string }> = [];

async function newPage(browser: Browser, viewport = DESKTOP) {
  const context = await browser.newContext({ viewport });
  return context.newPage();
}

async function addCourier(page: Page, firstName: string, at?: { lat: number; lng: number }) {
  const email = uniqueEmail(`map-${firstName.toLowerCase()}`);
  const added = await apiPost(page.request, ownerToken, '/v1/user/general/addmember', {
    email,
    role: 'courier',
    firstName,
    lastName: 'Rider',
    phone: '2125550142',
    password: 'courierpass1',
  });
  const login = await page.request.post('/v1/user/general/login', { data: { email, password: 'courierpass1' } });
  const { sessionToken: token, version } = ((await login.json()) as { payload: { sessionToken: string; version: string } }).payload;
  if (at) expect((await apiPost(page.request, token, '/v1/user/general/position', at)).code).toBe(200);
  couriers.push({ email, uid: added.payload.uid as string, token, version });
}

async function shot(page: Page, name: string) {
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: false });
}

test.beforeAll(async ({ browser }) => {
  owner = await newPage(browser);
  owner.on('pageerror', (e) => console.log('owner pageerror', e.message));
  ownerToken = await signUpViaApi(owner, owner.request, uniqueEmail('map-owner'), 'company');
  await apiPost(owner.request, ownerToken, '/v1/user/general/update', { profile: { company: 'Map Movers', showWizard: false } });
  await addCourier(owner, 'Ann', { lat: 41.88, lng: -87.63 }); // Chicago
  await addCourier(owner, 'Bob', { lat: 32.78, lng: -96.8 }); // Dallas
  await addCourier(owner, 'Cy'); // no position yet: counted, not drawn
});
test.afterAll(async () => {
  await owner.context().close();
});

test('the couriers map draws the offline outlines and a marker per courier, and follows a move without a reload', async () => {
  await owner.goto('/account/couriers/map');
  const map = owner.getByRole('region', { name: 'Couriers map' });
  await expect(map).toBeVisible();
  // The tiles failed (nothing listens on the port): the outlines are drawn as SVG paths under the markers.
  await expect(map).toHaveAttribute('data-offline', 'true');
  await expect.poll(() => map.locator('path.st-outline-country').count()).toBeGreaterThan(50);
  await expect.poll(() => map.locator('path.st-outline-state').count()).toBeGreaterThan(0);
  await expect.poll(() => map.locator('path.st-outline-province').count()).toBeGreaterThan(0);
  await expect(map.locator('.st-marker-courier')).toHaveCount(2);
  await expect(owner.getByTestId('couriers-map-summary')).toHaveText('2 of 3 couriers on the map; 1 has not shared a position yet.');
  const box = await owner.evaluate(() => (document.querySelector('.leaflet-container') as HTMLElement).getBoundingClientRect().height);
  expect(box).toBeGreaterThanOrEqual(700);

  const ann = map.locator(`[data-marker-id="courier-${couriers[0]!.uid}"]`);
  const before = await ann.boundingBox();
  expect(before).not.toBeNull();
  // Ann rides from Chicago to Kansas City.
  await apiPost(owner.request, couriers[0]!.token, '/v1/user/general/position', { lat: 39.1, lng: -94.58 });
  await expect
    .poll(
      async () => {
        const after = await ann.boundingBox();
        return after ? Math.round(Math.hypot(after.x - before!.x, after.y - before!.y)) : 0;
      },
      { timeout: 40_000 },
    )
    .toBeGreaterThan(40);
  await shot(owner, 'couriers-map-1280');
  // Two steps out: the continent, with Canada's provincial borders drawn as the US states are.
  await map.getByRole('button', { name: 'Zoom out' }).click();
  await map.getByRole('button', { name: 'Zoom out' }).click();
  await shot(owner, 'couriers-map-canada-1280');
  await ann.click();
  await expect(owner.locator('.leaflet-popup')).toContainText('Ann Rider');
  await expect(owner.locator('.leaflet-popup')).toContainText('Position at');
});

test('the shipments map draws a shipment from its origin through its last checkpoint to its destination', async () => {
  const created = await apiPost(owner.request, ownerToken, '/v1/shipment/create', {
    origin: { name: 'Warehouse', address1: '1 Main St', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' },
    destination: { name: 'Customer', address1: '9 Elm St', city: 'Denver', state: 'CO', zip: '80202', country: 'US' },
    parcels: [{ name: 'Box', length: 10, width: 8, height: 4, weight: 2 }],
    courier: 'Ann Rider',
    courierEmail: couriers[0]!.email,
  });
  expect(created.code).toBe(201);
  const tid = created.payload.tid as string;
  const cp = await apiPost(owner.request, couriers[0]!.token, '/v1/shipment/update', {
    tid,
    status: 'InTransit',
    location: 'Kansas City, MO',
    lat: 39.1,
    long: -94.58,
  });
  expect(cp.code).toBe(200);
  await owner.goto('/account/shipments/map');
  const map = owner.getByRole('region', { name: 'Shipments map' });
  await expect(map.locator('.st-marker-origin')).toHaveCount(1);
  await expect(map.locator('.st-marker-checkpoint')).toHaveCount(1);
  await expect(map.locator('.st-marker-destination')).toHaveCount(1);
  await expect(map.locator('path.st-route')).toHaveCount(1);
  await shot(owner, 'shipments-map-1280');
  await map.locator('.st-marker-origin').click();
  await expect(owner.locator('.leaflet-popup')).toContainText(tid);
  await owner.locator('.leaflet-popup').getByRole('link', { name: 'Open details' }).click();
  await expect(owner).toHaveURL(/\/account\/shipments\?tid=/);
  const panel = owner.getByTestId('shipment-panel');
  await expect(panel).toContainText(tid);
  await expect(panel.getByTestId('shipment-panel-map').locator('.st-marker-checkpoint')).toHaveCount(1);
});

test('both maps at phone width', async ({ browser }) => {
  const phone = await newPage(browser, PHONE);
  const session = await owner.evaluate(() => localStorage.getItem('shiptrail.session'));
  await phone.goto('/terms-of-service');
  await phone.evaluate((s) => localStorage.setItem('shiptrail.session', s!), session);
  await phone.goto('/account/couriers/map');
  await expect(phone.getByRole('region', { name: 'Couriers map' }).locator('.st-marker-courier')).toHaveCount(2);
  await expect.poll(() => phone.locator('path.st-outline-country').count()).toBeGreaterThan(50);
  await shot(phone, 'couriers-map-390');
  await phone.goto('/account/shipments/map');
  await expect(phone.getByRole('region', { name: 'Shipments map' }).locator('.st-marker-origin')).toHaveCount(1);
  await shot(phone, 'shipments-map-390');
  await phone.context().close();
});

test('the shipment form fills city and state from a ZIP, and an address from a search', async () => {
  await owner.goto('/account/shipments?add=1');
  const form = owner.getByRole('form', { name: 'Add New Shipment' });
  await expect(form).toBeVisible();
  const origin = form.getByRole('group', { name: 'Origin (sender)' });
  await origin.getByLabel('Zip').fill('90210');
  await expect(origin.getByLabel('City')).toHaveValue('Beverly Hills');
  await expect(origin.getByLabel('State')).toHaveValue('CA');
  // What the person typed stays: a new ZIP does not replace a city they wrote themselves.
  const destination = form.getByRole('group', { name: 'Destination (recipient)' });
  await destination.getByLabel('City').fill('My Town');
  await destination.getByLabel('Zip').fill('M5V 3L9');
  await expect(destination.getByLabel('State')).toHaveValue('ON');
  await expect(destination.getByLabel('Country')).toHaveValue('CA');
  await expect(destination.getByLabel('City')).toHaveValue('My Town');
  // The search box offers places (offline: cities and ZIPs) and fills the fields from the pick.
  await destination.getByRole('combobox', { name: 'Find the destination address' }).fill('Springfield, IL');
  await owner
    .getByRole('option', { name: /Springfield, IL/ })
    .first()
    .click();
  await expect(destination.getByLabel('City')).toHaveValue('Springfield');
  await expect(destination.getByLabel('State')).toHaveValue('IL');
  await expect(destination.getByLabel('Zip')).toHaveValue(/^62/);
});

test("a courier's Share my location sends the browser's position, and stays on after a reload", async ({ browser }) => {
  const cy = couriers[2]!;
  const context = await browser.newContext({
    viewport: PHONE,
    geolocation: { latitude: 44.98, longitude: -93.27 },
    permissions: ['geolocation'],
  });
  const phone = await context.newPage();
  await phone.goto('/terms-of-service');
  await phone.evaluate((s) => localStorage.setItem('shiptrail.session', JSON.stringify(s)), { token: cy.token, version: cy.version });
  await phone.goto('/account/shipments');
  const share = phone.getByRole('switch', { name: 'Share my location' });
  await expect(share).not.toBeChecked();
  await share.click();
  await expect(share).toBeChecked();
  await expect
    .poll(async () => {
      const list = await apiPost(owner.request, ownerToken, '/v1/user/general/getmembers', {});
      return (list.payload as Array<{ uid: string; geo: unknown }>).find((m) => m.uid === cy.uid)?.geo ?? null;
    })
    .toEqual({ lat: 44.98, lng: -93.27 });
  await expect(phone.getByTestId('share-location-sent')).toBeVisible();
  await phone.reload();
  await expect(phone.getByRole('switch', { name: 'Share my location' })).toBeChecked();
  await context.close();
});
