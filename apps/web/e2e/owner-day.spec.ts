import { expect as baseExpect, test, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { apiPost, austinRecipient, fillWizardAddress, fillWizardParcel, signUpViaApi, SPRINGFIELD_DEPOT, uniqueEmail } from './helpers';

// The owner's day at a desk (issue 26), at 1366x768: three shipments created with nobody assigned (one through
// the wizard), assigned to a courier in one go from the table, their labels fetched with the note printed, and
// the map showing every open shipment (more than the list's 100), grouped, with a status filter.
test.describe.configure({ mode: 'serial' });
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(300_000);
test.use({ viewport: { width: 1366, height: 768 } });

const SHOTS = process.env.OWNER_SHOTS ?? 'test-results/owner-day-screens';
mkdirSync(SHOTS, { recursive: true });
const courierEmail = uniqueEmail('day-courier');
let owner: Page;
let token = '';
const tids: string[] = [];

const place = (name: string, city: string, state: string, zip: string, lat: number, long: number) => ({
  name,
  address1: '1 Main St',
  city,
  state,
  zip,
  country: 'US',
  lat,
  long,
});
const warehouse = place('Acme Warehouse', 'Springfield', 'IL', '62701', 39.8, -89.65);

test.beforeAll(async ({ browser }) => {
  owner = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
  owner.on('pageerror', (e) => console.log('owner pageerror', e.message));
  token = await signUpViaApi(owner, owner.request, uniqueEmail('day-owner'), 'company');
  await apiPost(owner.request, token, '/v1/user/general/update', { profile: { company: 'SwiftParcel Couriers', showWizard: false } });
  const added = await apiPost(owner.request, token, '/v1/user/general/addmember', {
    email: courierEmail,
    role: 'courier',
    firstName: 'Dana',
    lastName: 'Lee',
    phone: '2125550142',
    password: 'courierpass1',
  });
  expect(added.code).toBe(201);
});
test.afterAll(async () => {
  await owner.context().close();
});

test('three shipments created with nobody assigned, the first through the wizard', async () => {
  await owner.goto('/account/shipments');
  await owner.getByRole('button', { name: 'Add New Shipment' }).click();
  const form = owner.getByRole('form', { name: 'Add New Shipment' });
  await form.getByRole('combobox', { name: 'Courier' }).click();
  await owner.getByRole('option', { name: 'Nobody yet (assign later)' }).click();
  await form.getByLabel('Order ID').fill('ORD-2001');
  await form.getByLabel('Note').fill('Fragile: glass');
  const origin = form.getByRole('group', { name: 'Origin (sender)' });
  await fillWizardAddress(origin, SPRINGFIELD_DEPOT);
  const dest = form.getByRole('group', { name: 'Destination (recipient)' });
  await fillWizardAddress(dest, austinRecipient('Jo Customer'));
  await form.getByRole('button', { name: 'Next' }).click();
  const parcel = form.getByRole('group', { name: 'Parcel 1' });
  await fillWizardParcel(parcel, { name: 'Vase', length: '12', width: '9', height: '4', weight: '3' });
  await form.getByRole('button', { name: 'Create shipment' }).click();
  await expect(form).toHaveCount(0);
  for (const [name, city, state, zip, lat, long] of [
    ['Sam Buyer', 'Denver', 'CO', '80202', 39.74, -104.99],
    ['Ana Client', 'Chicago', 'IL', '60601', 41.88, -87.63],
  ] as const) {
    const r = await apiPost(owner.request, token, '/v1/shipment/create', {
      origin: warehouse,
      destination: place(name, city, state, zip, lat, long),
      parcels: [{ name: 'Box', length: 10, width: 8, height: 4, weight: 2 }],
      message: 'Fragile: glass',
      unassigned: true,
    });
    expect(r.code).toBe(201);
  }
  const table = owner.getByTestId('shipments-table');
  await expect(table.locator('tbody tr')).toHaveCount(3);
  for (const row of await table.locator('tbody tr').all()) tids.push((await row.getAttribute('data-tid'))!);
  // Recipient and destination columns; nobody assigned yet.
  await expect(table.getByRole('columnheader', { name: 'Recipient' })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: 'Destination' })).toBeVisible();
  await expect(table.locator('td[data-col="recipient"]')).toHaveText(['Ana Client', 'Sam Buyer', 'Jo Customer']);
  await expect(table.locator('td[data-col="destination"]')).toHaveText(['Chicago, IL 60601', 'Denver, CO 80202', 'Austin, TX 73301']);
  await expect(table.locator('td[data-col="courier"]')).toHaveText(['Unassigned', 'Unassigned', 'Unassigned']);
});

test('all three assigned to a courier in one go', async () => {
  const table = owner.getByTestId('shipments-table');
  await expect(owner.getByRole('button', { name: 'Assign to courier' })).toBeDisabled();
  await table.getByRole('checkbox', { name: 'Select all shipments' }).check();
  await owner.getByRole('button', { name: 'Assign to courier (3)' }).click();
  const dialog = owner.getByRole('dialog', { name: 'Assign 3 shipments' });
  // Nothing chosen: the dialog says so.
  await dialog.getByRole('button', { name: 'Assign 3 shipments' }).click();
  await expect(dialog.getByText('Choose a courier')).toBeVisible();
  await dialog.getByRole('combobox', { name: 'Courier' }).click();
  await owner.getByRole('option', { name: /Dana Lee/ }).click();
  await dialog.getByRole('button', { name: 'Assign 3 shipments' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(owner.getByText('3 shipments assigned to Dana Lee')).toBeVisible();
  await expect(table.locator('td[data-col="courier"]')).toHaveText(['Dana Lee', 'Dana Lee', 'Dana Lee']);
  // The courier's own list has them.
  const login = await owner.request.post('/v1/user/general/login', { data: { email: courierEmail, password: 'courierpass1' } });
  const courierToken = ((await login.json()) as { payload: { sessionToken: string } }).payload.sessionToken;
  expect((await apiPost(owner.request, courierToken, '/v1/shipment/getassigned', {})).payload).toHaveLength(3);
  await owner.waitForTimeout(300);
  await owner.screenshot({ path: `${SHOTS}/shipments-table-1366.png` });
});

test('the labels PDF carries the note', async () => {
  const res = await owner.request.get(`/v1/shipment/labels?tids=${tids.join(',')}`, { headers: { 'sm-api-token': token } });
  expect(res.headers()['content-type']).toBe('application/pdf');
  const file = `${SHOTS}/labels.pdf`;
  writeFileSync(file, await res.body());
  const text = execFileSync('pdftotext', ['-layout', file, '-']).toString();
  expect(text.match(/Fragile: glass/g)).toHaveLength(3);
  for (const t of tids) expect(text).toContain(t);
  execFileSync('pdftoppm', ['-png', '-r', '150', '-f', '1', '-l', '1', '-singlefile', file, `${SHOTS}/label-page`]);
});

test('the map shows every open shipment, grouped, with a status filter', async () => {
  // 120 more open shipments around four cities, and one of the first three delivered: 122 open in all.
  const cities = [
    ['Denver', 'CO', '80202', 39.74, -104.99],
    ['Chicago', 'IL', '60601', 41.88, -87.63],
    ['Dallas', 'TX', '75201', 32.78, -96.8],
    ['Atlanta', 'GA', '30303', 33.75, -84.39],
  ] as const;
  for (let i = 0; i < 120; i++) {
    const [city, state, zip, lat, long] = cities[i % 4]!;
    const r = await apiPost(owner.request, token, '/v1/shipment/create', {
      origin: warehouse,
      destination: place(`Customer ${i}`, city, state, zip, lat + ((i * 7) % 11) / 100, long + ((i * 5) % 13) / 100),
      parcels: [{ name: 'Box', length: 10, width: 8, height: 4, weight: 2 }],
      unassigned: true,
    });
    expect(r.code).toBe(201);
  }
  expect(
    (await apiPost(owner.request, token, '/v1/shipment/update', { tid: tids[0], status: 'Delivered', location: 'Chicago, IL' })).code,
  ).toBe(200);

  await owner.goto('/account/shipments/map');
  const map = owner.getByRole('region', { name: 'Shipments map' });
  const summary = owner.getByTestId('shipments-map-summary');
  await expect(summary).toHaveAttribute('data-count', '122');
  await expect(summary).toContainText('122 of 122 open shipments on the map');
  // Grouped: clusters on screen, and their counts with the single markers add up to every point (2 a shipment).
  await expect.poll(() => map.locator('.st-cluster').count()).toBeGreaterThan(0);
  const onScreen = async () => {
    const counts = await map.locator('.st-cluster').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-cluster-count'))));
    return counts.reduce((a, b) => a + b, 0) + (await map.locator('.st-marker').count());
  };
  await expect.poll(onScreen).toBe(244);
  await owner.waitForTimeout(500);
  await owner.screenshot({ path: `${SHOTS}/shipments-map-clusters-1366.png` });
  // A click on a group zooms into it.
  const zoomBefore = await map
    .locator('.leaflet-container')
    .evaluate(() => document.querySelector('.leaflet-map-pane')?.getAttribute('style') ?? '');
  await map.locator('.st-cluster').first().click();
  await expect
    .poll(() => map.locator('.leaflet-container').evaluate(() => document.querySelector('.leaflet-map-pane')?.getAttribute('style') ?? ''))
    .not.toBe(zoomBefore);

  // Filter: Delivered only, the one delivered shipment.
  const filter = owner.getByRole('textbox', { name: 'Status' }).or(owner.getByLabel('Status'));
  await filter.first().click();
  await owner.getByRole('option', { name: 'Delivered' }).click();
  await owner.keyboard.press('Escape');
  await expect(summary).toHaveAttribute('data-count', '1');
  await expect(summary).toContainText('1 of 1 Delivered shipment on the map');
});

test('the company logo is uploaded from Settings and served from our own origin', async () => {
  await owner.goto('/account/profile/settings');
  const section = owner.getByRole('region', { name: 'Company logo' });
  await expect(section.getByText('No logo yet')).toBeVisible();
  // Not an image: the server's sentence, nothing saved.
  await section.locator('input[type="file"]').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from('not a png') });
  await expect(section.getByTestId('logo-error')).toHaveText('The logo must be a PNG or JPEG image');
  // A 2x2 PNG.
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
    'base64',
  );
  await section.locator('input[type="file"]').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
  const img = section.getByTestId('company-logo');
  await expect(img).toBeVisible();
  const src = (await img.getAttribute('src'))!;
  expect(src).toMatch(/^\/v1\/brand\/logo\/[A-Za-z0-9_-]+\.png\?v=\d+$/);
  const served = await owner.request.get(src);
  expect(served.headers()['content-type']).toBe('image/png');
  await owner.screenshot({ path: `${SHOTS}/logo-settings-1366.png` });
});

test("the time zone of the customers' messages is chosen in Settings", async () => {
  await owner.goto('/account/profile/settings');
  const form = owner.getByRole('form', { name: 'Profile settings' });
  const zone = form.getByRole('combobox', { name: 'Time zone' });
  // Signed up through the API without a zone: UTC until the owner says otherwise.
  await expect(zone).toHaveValue('UTC');
  await zone.fill('Chicago');
  await owner.getByRole('option', { name: 'America/Chicago', exact: true }).click();
  await expect(zone).toHaveValue('America/Chicago');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await expect(form.getByRole('button', { name: 'Save changes' })).toBeDisabled();
  const info = await (await owner.request.get('/v1/user/info', { headers: { 'sm-api-token': token } })).json();
  expect(info.payload.profile.timeZone).toBe('America/Chicago');
  await owner.screenshot({ path: `${SHOTS}/time-zone-settings-1366.png` });
});

test('the couriers map fits its couriers, however far apart', async () => {
  // Dana in Anchorage, a second courier in Miami: both outside the default view of the contiguous US.
  const login = await owner.request.post('/v1/user/general/login', { data: { email: courierEmail, password: 'courierpass1' } });
  const dana = ((await login.json()) as { payload: { sessionToken: string } }).payload.sessionToken;
  expect((await apiPost(owner.request, dana, '/v1/user/general/position', { lat: 61.2, lng: -149.9 })).code).toBe(200);
  const otherEmail = uniqueEmail('day-courier2');
  await apiPost(owner.request, token, '/v1/user/general/addmember', {
    email: otherEmail,
    role: 'courier',
    firstName: 'Max',
    lastName: 'Ray',
    phone: '2125550143',
    password: 'courierpass1',
  });
  const login2 = await owner.request.post('/v1/user/general/login', { data: { email: otherEmail, password: 'courierpass1' } });
  const max = ((await login2.json()) as { payload: { sessionToken: string } }).payload.sessionToken;
  expect((await apiPost(owner.request, max, '/v1/user/general/position', { lat: 25.76, lng: -80.19 })).code).toBe(200);
  await owner.goto('/account/couriers/map');
  const map = owner.getByRole('region', { name: 'Couriers map' });
  await expect(map.locator('.st-marker-courier')).toHaveCount(2);
  const box = (await map.locator('.leaflet-container').boundingBox())!;
  await expect
    .poll(async () => {
      const inside = await map
        .locator('.st-marker-courier')
        .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => [r.left, r.top, r.right, r.bottom]));
      return inside.every(([l, t, r, b]) => l! >= box.x && t! >= box.y && r! <= box.x + box.width && b! <= box.y + box.height);
    })
    .toBe(true);
});
