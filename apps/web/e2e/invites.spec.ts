import { expect as baseExpect, devices, test, type Browser, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { apiPost, linkFromOutbox, OUTBOX_API, signUpViaApi, uniqueEmail } from './helpers';

// A company invites its couriers by email: the owner fills the Invite courier form, the courier opens the link
// from the dev outbox on a phone, chooses a password and is signed in; the owner sees the invitation accepted and
// the courier listed; a revoked invitation's link says so in words.
test.describe.configure({ mode: 'serial' });
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(180_000);

const SHOTS = process.env.INVITE_SHOTS ?? 'test-results/invites-screens';
mkdirSync(SHOTS, { recursive: true });
const DESKTOP = { width: 1366, height: 768 };

const ownerEmail = uniqueEmail('inv-owner');
const courierEmail = uniqueEmail('inv-courier');
const otherEmail = uniqueEmail('inv-other');
let owner: Page;
let ownerToken = '';

async function shot(page: Page, name: string) {
  await page.waitForFunction(() => !document.querySelector('[role="status"][aria-label^="Loading"]'), null, { timeout: 20_000 });
  await page.waitForTimeout(400);
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: false });
}
const phone = (browser: Browser) => browser.newContext({ ...devices['Pixel 7'] }).then((c) => c.newPage());

test.beforeAll(async ({ browser }) => {
  owner = await (await browser.newContext({ viewport: DESKTOP })).newPage();
  ownerToken = await signUpViaApi(owner, owner.request, ownerEmail, 'company');
  const named = await apiPost(owner.request, ownerToken, '/v1/user/general/update', {
    profile: { company: 'SwiftParcel Couriers', showWizard: false },
  });
  expect(named.status).toBe('success');
});

test('the owner invites a courier; the courier sets a password from the mailed link and is signed in', async ({ browser }) => {
  await owner.goto('/account/couriers');
  await owner.getByRole('button', { name: 'Invite courier' }).click();
  const form = owner.getByRole('form', { name: 'Invite courier' });
  await form.getByLabel('Email').fill('not-an-address');
  await form.getByLabel('Email').blur();
  await expect(form.getByText('Invalid email address')).toBeVisible();
  await expect(form.getByRole('button', { name: 'Send invitation' })).toBeDisabled();
  await form.getByLabel('Email').fill(courierEmail);
  await form.getByLabel('First name').fill('Dana');
  await form.getByLabel('Last name').fill('Lee');
  await form.getByLabel('Phone (optional)').fill('(212) 555-0142');
  await form.getByRole('button', { name: 'Send invitation' }).click();
  await expect(form).toBeHidden();
  await expect(owner.getByText('Invitation sent by email and SMS ($0.04)')).toBeVisible();
  const row = owner.locator(`[data-testid="invitations-table"] tr[data-email="${courierEmail}"]`);
  await expect(row).toContainText('Waiting');
  await expect(row).toContainText('Dana Lee');
  // A second one, through the API, to show a list of pending invitations.
  const other = await apiPost(owner.request, ownerToken, '/v1/user/invitations/create', {
    email: otherEmail,
    firstName: 'Sam',
    lastName: 'Other',
  });
  expect(other.status).toBe('success');
  await owner.reload();
  await expect(owner.locator(`tr[data-email="${otherEmail}"]`)).toContainText('Waiting');
  await shot(owner, 'couriers-pending-1366');

  const link = await linkFromOutbox(owner.request, courierEmail, '/invite/');
  const courier = await phone(browser);
  await courier.goto(link);
  await expect(courier.getByRole('heading', { name: 'Join SwiftParcel Couriers on Shiptrail' })).toBeVisible();
  await expect(courier.getByLabel('Email')).toHaveValue(courierEmail);
  await courier.getByRole('textbox', { name: 'Password', exact: true }).fill('short');
  await courier.getByRole('textbox', { name: 'Repeat password' }).fill('shorter');
  await courier.getByRole('textbox', { name: 'Repeat password' }).blur();
  await expect(courier.getByText('Must be 8 characters or greater than')).toBeVisible();
  await expect(courier.getByText('Passwords do not match')).toBeVisible();
  await courier.getByRole('textbox', { name: 'Password', exact: true }).fill('danapass123');
  await courier.getByRole('textbox', { name: 'Repeat password' }).fill('danapass123');
  await shot(courier, 'accept-pixel7');
  await courier.getByRole('button', { name: 'Set password and sign in' }).tap();
  // Signed in: inside the account area, with a courier's session stored like any login.
  await expect(courier).toHaveURL(/\/account(\/|$)/);
  const session = await courier.evaluate(() => JSON.parse(localStorage.getItem('shiptrail.session') ?? 'null') as { token: string } | null);
  expect(session?.token).toMatch(/^sess_/);
  const info = await (await courier.request.get('/v1/user/info', { headers: { 'sm-api-token': session!.token } })).json();
  expect(info.payload.profile).toMatchObject({ email: courierEmail, role: 'courier', emailVerified: true });

  // The link is single use, and says so in words.
  const again = await phone(browser);
  await again.goto(link);
  await expect(again.getByTestId('invite-result')).toHaveText('This invitation was already accepted. Log in with your email and password.');
  await again.context().close();
  await courier.context().close();

  // The owner sees it accepted and the courier listed.
  await owner.reload();
  await expect(owner.locator(`[data-testid="invitations-table"] tr[data-email="${courierEmail}"]`)).toContainText('Accepted');
  await expect(owner.locator(`[data-testid="couriers-table"] tr[data-email="${courierEmail}"]`)).toContainText('Dana');
});

test('revoke: the link then says the invitation was withdrawn; resend gives a new link', async ({ browser }) => {
  const oldLink = await linkFromOutbox(owner.request, otherEmail, '/invite/');
  await owner.goto('/account/couriers');
  await owner.getByRole('button', { name: `Resend the invitation to ${otherEmail}` }).click();
  await expect(owner.getByText('Invitation sent again by email: the earlier link no longer works')).toBeVisible();
  const stale = await phone(browser);
  await stale.goto(oldLink);
  await expect(stale.getByTestId('invite-result')).toHaveText(
    'This invitation link is not valid. Check that you copied the whole link from the mail.',
  );
  await stale.context().close();

  const outbox = (await (await owner.request.get(OUTBOX_API)).json()) as Array<{ to: string; text: string }>;
  const newest = outbox
    .filter((m) => m.to === otherEmail && m.text.includes('/invite/'))
    .map((m) => /\/invite\/[^\s]+/.exec(m.text)![0])
    .find((l) => l !== oldLink);
  expect(newest).toBeTruthy();
  await owner.getByRole('button', { name: `Revoke the invitation to ${otherEmail}` }).click();
  await expect(owner.locator(`tr[data-email="${otherEmail}"]`)).toContainText('Revoked');
  const page = await phone(browser);
  await page.goto(newest!);
  await expect(page.getByRole('heading', { name: 'Invitation withdrawn' })).toBeVisible();
  await expect(page.getByTestId('invite-result')).toHaveText('This invitation was withdrawn by SwiftParcel Couriers.');
  await page.context().close();
});

test('the accept page at 1366x768; the owner resends and revokes on a phone, by tap', async ({ browser }) => {
  const fresh = uniqueEmail('inv-third');
  await apiPost(owner.request, ownerToken, '/v1/user/invitations/create', {
    email: fresh,
    firstName: 'Rae',
    lastName: 'Rider',
    phone: '2135550101',
  });
  const link = await linkFromOutbox(owner.request, fresh, '/invite/');
  const desk = await (await browser.newContext({ viewport: DESKTOP })).newPage();
  await desk.goto(link);
  await expect(desk.getByRole('heading', { name: 'Join SwiftParcel Couriers on Shiptrail' })).toBeVisible();
  await shot(desk, 'accept-1366');
  await desk.context().close();

  // The owner on a phone, by tap: the cards, a resend on the Pixel 7 and a revoke on the iPhone 13.
  for (const device of ['Pixel 7', 'iPhone 13'] as const) {
    const { defaultBrowserType: _webkit, ...profile } = devices[device];
    const ownerPhone = await (await browser.newContext(profile)).newPage();
    await ownerPhone.goto('/terms-of-service');
    await ownerPhone.evaluate((t) => localStorage.setItem('shiptrail.session', JSON.stringify({ token: t, version: 'x' })), ownerToken);
    await ownerPhone.goto('/account/couriers');
    const card = ownerPhone.locator(`[data-testid="invitations-cards"] li[data-email="${fresh}"]`);
    await expect(card).toContainText('Waiting');
    await ownerPhone.locator(`[data-testid="invitations-cards"]`).scrollIntoViewIfNeeded();
    const tag = device === 'Pixel 7' ? 'pixel7' : 'iphone13';
    await shot(ownerPhone, `couriers-pending-${tag}`);
    const width = await ownerPhone.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(ownerPhone.viewportSize()!.width);
    if (device === 'Pixel 7') {
      // Rae has a phone: the new link goes by SMS too, and the message says what it cost.
      await card.getByRole('button', { name: `Resend the invitation to ${fresh}` }).tap();
      await expect(ownerPhone.getByText('Invitation sent again by email and SMS ($0.04): the earlier link no longer works')).toBeVisible();
    } else {
      await card.getByRole('button', { name: `Revoke the invitation to ${fresh}` }).tap();
      await expect(card).toContainText('Revoked');
      await shot(ownerPhone, `couriers-revoked-${tag}`);
    }
    await ownerPhone.context().close();
  }
});
