import { expect as baseExpect, test, type APIRequestContext, type BrowserContext, type Locator, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { apiPost, linkFromOutbox, OUTBOX_API, signByTouch, signInByTap, signUpViaApi, uniqueEmail } from './helpers';

// A courier's day on a real phone profile (playwright.config.ts runs this file once as Pixel 7 and once as
// iPhone 13: mobile viewport, touch, the device's user agent), everything by tap: the owner invites the courier
// (Invite courier, at a desk), the courier opens the mailed link, chooses a password, sees today's stops in order,
// sets Out For Delivery, records one failed attempt (whose mail reaches the customer) and one delivery with a
// signature drawn by touch and a photo. Each outcome is checked in
// what the server stored, through the owner's API, not only on the screen. The customer follows the parcel on
// its public page on the same kind of phone.
test.describe.configure({ mode: 'serial' });
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(240_000);

const SHOTS = process.env.PHONE_SHOTS ?? 'test-results/courier-day';
mkdirSync(SHOTS, { recursive: true });
const PHOTO = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);
const OWNER_ONLY =
  "That page belongs to your company's owner, so we brought you to your stops: as a courier you have your stops, your shipments and your account.";

const courierPassword = 'courierpass1';
let courierEmail = '';
let ownerToken = '';
let uid = '';
const tids: string[] = [];
const customerEmails = [uniqueEmail('alex'), uniqueEmail('jo'), uniqueEmail('sam')];

async function shot(page: Page, name: string) {
  await page.waitForFunction(() => !document.querySelector('[role="status"][aria-label^="Loading"]'), null, { timeout: 20_000 });
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${SHOTS}/${test.info().project.name}-${name}.png` });
}

/** The page is no wider than the phone: nothing pushed the layout viewport out sideways. */
async function expectNoSidewaysScroll(page: Page) {
  const w = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth,
    screen: window.screen.width,
  }));
  expect(w.scroll, `page ${w.scroll} px wide on a ${w.screen} px phone`).toBeLessThanOrEqual(w.screen);
  expect(w.inner).toBe(w.screen);
}

/** Every word of a button shows: its label is not cut ("Save checkpo"). */
async function expectWholeLabel(button: Locator) {
  const cut = await button.evaluate((b) => {
    const label = b.querySelector('.mantine-Button-label') ?? b;
    const r = b.getBoundingClientRect();
    return { cut: label.scrollWidth > label.clientWidth + 1, right: r.right, vw: window.innerWidth };
  });
  expect(cut.cut).toBe(false);
  expect(cut.right).toBeLessThanOrEqual(cut.vw);
}

/** The owner's view of a shipment, through the API: what the server stored. */
async function stored(request: APIRequestContext, tid: string) {
  const list = await apiPost(request, ownerToken, '/v1/shipment/getshipments', { numRecords: 100 });
  return (
    list.payload as Array<{
      tid: string;
      status: string;
      checkpoints: Array<{
        id: number;
        status: string;
        message: string;
        location: string;
        by: { role: string; name: string };
        proof: { recipientName: string; hasSignature: boolean; hasPhoto: boolean } | null;
      }>;
    }>
  ).find((s) => s.tid === tid)!;
}

/** Picks a status in the checkpoint form by tap, and checks the list opened inside the phone's screen. */
async function pickStatus(page: Page, form: Locator, label: string) {
  await form.getByRole('combobox', { name: 'Status' }).tap();
  const option = page.getByRole('option', { name: label, exact: true });
  await expect(option).toBeVisible();
  const box = (await option.boundingBox())!;
  const vw = await page.evaluate(() => window.innerWidth);
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(vw);
  await expectNoSidewaysScroll(page);
  await option.tap();
  await expect(form.getByRole('combobox', { name: 'Status' })).toHaveValue(label);
}

let desk: BrowserContext;
let owner: Page;

test.beforeAll(async ({ browser }) => {
  // The owner works at a desk (1366x768, no touch): signs up as a company, verifies its address (a company's
  // customer messages wait for that, decision 109) and invites the courier with the Invite courier form.
  desk = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  owner = await desk.newPage();
  const ownerEmail = uniqueEmail('day-owner');
  ownerToken = await signUpViaApi(owner, owner.request, ownerEmail, 'company');
  const named = await apiPost(owner.request, ownerToken, '/v1/user/general/update', {
    profile: { company: 'SwiftParcel Couriers', showWizard: false },
  });
  expect(named.status, JSON.stringify(named)).toBe('success');
  await owner.goto(await linkFromOutbox(owner.request, ownerEmail, '/verify/'));
  await expect(owner).toHaveURL(/\/account\/dashboard/);
  // The verification link signs the owner in afresh: the page's new session is the one to use from here.
  ownerToken = await owner.evaluate(() => (JSON.parse(localStorage.getItem('shiptrail.session') ?? '{}') as { token: string }).token);
  // A new company's customers hear of a failed attempt without the owner switching it on (decision 100), and the
  // grid says it in words ("Attempt failed", not the status code's "Fail Attempt").
  await owner.goto('/account/profile/settings/triggers/sendNotifications');
  const customers = owner.getByRole('form', { name: 'Notifications sent to your customers' });
  for (const t of ['Out For Delivery', 'Attempt failed', 'Delivered', 'Exception'])
    await expect(customers.getByRole('checkbox', { name: `Email on ${t}` })).toBeChecked();
  await expect(customers.getByRole('checkbox', { name: 'Email on In Transit' })).not.toBeChecked();
  courierEmail = uniqueEmail('day-courier');
  await owner.goto('/account/couriers');
  await owner.getByRole('button', { name: 'Invite courier' }).click();
  const form = owner.getByRole('form', { name: 'Invite courier' });
  await form.getByLabel('Email').fill(courierEmail);
  await form.getByLabel('First name').fill('Dana');
  await form.getByLabel('Last name').fill('Lee');
  await form.getByRole('button', { name: 'Send invitation' }).click();
  await expect(form).toBeHidden();
  await expect(owner.locator(`[data-testid="invitations-table"] tr[data-email="${courierEmail}"]`)).toContainText('Waiting');
});

test.afterAll(async () => {
  await desk?.close();
});

/** The owner hands out three stops to Dana, in this order (the SDK's way), the first with a note. */
async function handOutStops() {
  for (const [i, who] of ['Alex Recipient', 'Jo Customer', 'Sam Neighbour'].entries()) {
    const created = await apiPost(owner.request, ownerToken, '/v1/shipment/create', {
      origin: { address1: '1 Main St', city: 'Springfield', zip: '62701' },
      destination: { name: who, address1: `${9 + i} Elm St`, city: 'Austin', zip: '73301', phone: '5125550100', email: customerEmails[i] },
      parcels: [{ name: 'Box', length: 9, width: 6, height: 4, weight: 2 }],
      courier: 'Dana Lee',
      courierEmail,
      message: i === 0 ? 'Fragile: glass' : '',
    });
    expect(created.status, JSON.stringify(created)).toBe('success');
    tids.push(created.payload.tid as string);
    uid = created.payload.uid as string;
  }
}

test("a courier's day by tap: today's stops, Out For Delivery, a failed attempt, a delivery with signature and photo", async ({
  page,
  browser,
}, testInfo) => {
  await test.step('invited by mail: the link opens on the phone, a password chosen by tap, signed in', async () => {
    await page.goto(await linkFromOutbox(page.request, courierEmail, '/invite/'));
    await expect(page.getByRole('heading', { name: 'Join SwiftParcel Couriers on Shiptrail' })).toBeVisible();
    await expect(page.getByLabel('Email')).toHaveValue(courierEmail);
    await page.getByRole('textbox', { name: 'Password', exact: true }).tap();
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(courierPassword);
    await page.getByRole('textbox', { name: 'Repeat password' }).tap();
    await page.getByRole('textbox', { name: 'Repeat password' }).fill(courierPassword);
    await expectNoSidewaysScroll(page);
    await shot(page, 'invitation-accept');
    await page.getByRole('button', { name: 'Set password and sign in' }).tap();
    await expect(page).toHaveURL(/\/account\/dashboard$/, { timeout: 30_000 });
    await expect(page.getByRole('list', { name: "Today's stops" }).getByRole('listitem')).toHaveCount(0);
  });

  await test.step('the owner hands out three stops; signed in again by tap, today’s stops in order', async () => {
    await handOutStops();
    // The owner sees the invitation accepted and the courier listed (at the desk).
    await owner.reload();
    await expect(owner.locator(`[data-testid="invitations-table"] tr[data-email="${courierEmail}"]`)).toContainText('Accepted');
    const badge = owner.locator(`[data-testid="couriers-table"] tr[data-email="${courierEmail}"]`).getByTestId('role-badge');
    // The Role badge reads "courier" in full at 1366 px (it was cut to "COURI…").
    await expect(badge).toHaveText('courier');
    expect(await badge.locator('.mantine-Badge-label').evaluate((l) => l.scrollWidth <= l.clientWidth)).toBe(true);
    // The courier logs out and in again with the password chosen on the invitation page.
    await page.evaluate(() => localStorage.removeItem('shiptrail.session'));
    await signInByTap(page, courierEmail, courierPassword);
    const stops = page.getByRole('list', { name: "Today's stops" }).getByRole('listitem');
    await expect(stops).toHaveCount(3);
    expect(await stops.evaluateAll((li) => li.map((l) => l.getAttribute('data-tid')))).toEqual(tids);
    await expect(stops.first()).toContainText('Alex Recipient');
    await expect(stops.first()).toContainText('Fragile: glass');
    await expect(page.getByTestId('day-left')).toHaveText('3');
    await expect(page.getByTestId('day-done')).toHaveText('0');
    await expect(page.getByTestId('day-failed')).toHaveText('0');
    // No owner screens on the courier's home: no balance, payments, referral or API key.
    await expect(page.getByText(/Balance|Payment history|Invite a friend|API key/)).toHaveCount(0);
    await expectNoSidewaysScroll(page);
    await shot(page, 'courier-home');
    await page.getByRole('button', { name: 'Toggle navigation' }).tap();
    const nav = page.getByRole('navigation', { name: 'Account navigation' });
    await expect(nav.getByRole('link')).toHaveText(['Today', 'My shipments', 'My account', 'Support']);
    await shot(page, 'courier-menu');
    await page.getByRole('button', { name: 'Toggle navigation' }).tap();
  });

  // The customer of the first stop keeps the parcel's public page open on a phone of the same kind.
  const customerContext = await browser.newContext({ ...testInfo.project.use });
  const customer = await customerContext.newPage();
  await customer.goto(`/track/${uid}/${tids[0]}`);
  await expect(customer.getByTestId('track-status')).toHaveAttribute('data-status', 'InfoReceived');

  await test.step('Out For Delivery on the first stop, by tap', async () => {
    await page.getByRole('button', { name: `Add checkpoint to ${tids[0]}` }).tap();
    const form = page.getByRole('form', { name: 'Add checkpoint' });
    await pickStatus(page, form, 'Out For Delivery');
    await form.getByLabel('Location').tap();
    await form.getByLabel('Location').fill('Austin depot');
    await expectWholeLabel(form.getByRole('button', { name: 'Save checkpoint' }));
    await form.getByRole('button', { name: 'Save checkpoint' }).tap();
    await expect(form).toBeHidden();
    const s = await stored(page.request, tids[0]!);
    expect(s.status).toBe('OutForDelivery');
    expect(s.checkpoints[0]).toMatchObject({
      status: 'OutForDelivery',
      location: 'Austin depot',
      by: { role: 'courier', name: 'Dana Lee' },
    });
    await expect(customer.getByTestId('track-status')).toHaveAttribute('data-status', 'OutForDelivery');
  });

  await test.step('one failed attempt: Nobody home', async () => {
    await page.getByRole('button', { name: `Add checkpoint to ${tids[1]}` }).tap();
    const form = page.getByRole('form', { name: 'Add checkpoint' });
    await pickStatus(page, form, 'Fail Attempt');
    await form.getByLabel('Location').tap();
    await form.getByLabel('Location').fill('10 Elm St, Austin');
    await form.getByLabel('Message').tap();
    await form.getByLabel('Message').fill('Nobody home');
    await form.getByRole('button', { name: 'Save checkpoint' }).tap();
    await expect(form).toBeHidden();
    await expect(page.getByTestId('day-failed')).toHaveText('1');
    const s = await stored(page.request, tids[1]!);
    expect(s.status).toBe('FailAttempt');
    expect(s.checkpoints[0]).toMatchObject({ status: 'FailAttempt', message: 'Nobody home', by: { role: 'courier' } });
    // The failed attempt reaches the customer: the company's mail to Jo is in the outbox, with the courier's words.
    await expect
      .poll(async () => {
        const list = (await (await page.request.get(OUTBOX_API)).json()) as Array<{ to: string; subject: string; text: string }>;
        const mail = list.find((m) => m.to === customerEmails[1] && /attempt failed/.test(m.subject));
        return mail ? `${mail.subject} | ${mail.text.includes('Nobody home')}` : '';
      })
      .toBe(`SwiftParcel Couriers: delivery attempt failed for your parcel ${tids[1]} | true`);
  });

  await test.step('Delivered with the recipient’s name, a signature drawn by touch and a photo', async () => {
    await page.getByRole('button', { name: `Add checkpoint to ${tids[0]}` }).tap();
    const form = page.getByRole('form', { name: 'Add checkpoint' });
    await form.getByRole('combobox', { name: 'Status' }).tap();
    await expectNoSidewaysScroll(page);
    await shot(page, 'checkpoint-status-open');
    await page.getByRole('option', { name: 'Delivered', exact: true }).tap();
    await expect(form.getByRole('combobox', { name: 'Status' })).toHaveValue('Delivered');
    await form.getByLabel('Location').tap();
    await form.getByLabel('Location').fill('9 Elm St, Austin');
    // Save stays disabled while the proof is missing, and the sentence under it says what is missing.
    await expect(form.getByRole('button', { name: 'Save checkpoint' })).toBeDisabled();
    await expect(form.getByTestId('checkpoint-missing')).toHaveText('To save: Recipient name is required · Signature is required');
    await form.getByLabel("Recipient's name").tap();
    await form.getByLabel("Recipient's name").fill('Alex Recipient');
    await expect(form.getByTestId('checkpoint-missing')).toHaveText('To save: Signature is required');
    await signByTouch(page, form.getByTestId('signature-pad'));
    await expect(form.getByTestId('checkpoint-missing')).toHaveCount(0);
    await expect(form.getByRole('button', { name: 'Save checkpoint' })).toBeEnabled();
    await form.locator('input[type="file"]').setInputFiles({ name: 'door.png', mimeType: 'image/png', buffer: PHOTO });
    await expect(form.getByRole('img', { name: 'Photo to send' })).toBeVisible();
    await expectNoSidewaysScroll(page);
    await expectWholeLabel(form.getByRole('button', { name: 'Save checkpoint' }));
    await shot(page, 'delivered-form');
    await form.getByRole('button', { name: 'Save checkpoint' }).tap();
    await expect(form).toBeHidden();

    // What the server stored: Delivered by the courier, with the name, the signature and the photo.
    const s = await stored(page.request, tids[0]!);
    expect(s.status).toBe('Delivered');
    expect(s.checkpoints[0]).toMatchObject({
      status: 'Delivered',
      by: { role: 'courier', name: 'Dana Lee' },
      proof: { recipientName: 'Alex Recipient', hasSignature: true, hasPhoto: true },
    });
    const proof = await (
      await page.request.get(`/v1/shipment/proof/${tids[0]}/${s.checkpoints[0]!.id}`, { headers: { 'sm-api-token': ownerToken } })
    ).json();
    expect(proof.payload.signature).toMatch(/^data:image\/png;base64,/);
    expect(proof.payload.photo).toMatch(/^data:image\//);
    // The signature is a drawn stroke, not an empty canvas: well over the bytes of a blank PNG.
    expect(proof.payload.signature.length).toBeGreaterThan(1500);

    // The day: two stops left (the failed one stays), one delivered, one failed.
    const stops = page.getByRole('list', { name: "Today's stops" }).getByRole('listitem');
    await expect(stops).toHaveCount(2);
    expect(await stops.evaluateAll((li) => li.map((l) => l.getAttribute('data-tid')))).toEqual([tids[1], tids[2]]);
    await expect(page.getByTestId('day-done')).toHaveText('1');
    await expect(page.getByTestId('day-failed')).toHaveText('1');
    await expect(page.getByTestId('day-left')).toHaveText('2');
  });

  await test.step('the customer sees the delivery and the signer, live, on the phone', async () => {
    await expect(customer.getByTestId('track-status')).toHaveAttribute('data-status', 'Delivered');
    await expect(customer.getByTestId('track-signed-by')).toContainText('Alex Recipient');
    // The signer is said once in the timeline, not twice ("Delivered, signed by ..." above "Signed by ...").
    await expect(customer.getByTestId('signed-by')).toHaveText('Signed by Alex Recipient');
    await expect(customer.getByText('Delivered, signed by Alex Recipient')).toHaveCount(0);
    await expectNoSidewaysScroll(customer);
    await shot(customer, 'customer-public-page');
    await customerContext.close();
  });
});

test("a courier who types an owner's address is brought to their stops with a sentence saying why", async ({ page }) => {
  const login = await page.request.post('/v1/user/general/login', { data: { email: courierEmail, password: courierPassword } });
  const { payload } = (await login.json()) as { payload: { sessionToken: string; version: string } };
  await page.goto('/terms-of-service');
  await page.evaluate((s) => localStorage.setItem('shiptrail.session', JSON.stringify(s)), {
    token: payload.sessionToken,
    version: payload.version,
  });
  for (const path of [
    '/account/profile/settings/apiKey',
    '/account/trackings',
    '/account/couriers',
    '/account/invite',
    '/account/profile/settings/paymentHistory',
  ]) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/account\/dashboard$/);
    await expect(page.getByTestId('owner-only-notice')).toHaveText(new RegExp(OWNER_ONLY.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    await expect(page.getByRole('button', { name: /Add tracking|Add New Courier/ })).toHaveCount(0);
    await expect(page.getByText(/forbidden|403|Couriers cannot/i)).toHaveCount(0);
  }
  await expect(page.getByRole('list', { name: "Today's stops" }).getByRole('listitem')).toHaveCount(2);
  await shot(page, 'owner-url-redirect');
  // The courier's own account page opens, with the password form.
  await page.getByRole('button', { name: 'Account menu' }).tap();
  await page.getByRole('menuitem', { name: 'My Account' }).tap();
  await expect(page).toHaveURL(/\/account\/me$/);
  await expect(page.getByRole('form', { name: 'Change password' })).toBeVisible();
  await expect(page.getByText(/API key|Payment Method|Add Balance/)).toHaveCount(0);
});
