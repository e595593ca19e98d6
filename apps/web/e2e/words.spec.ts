// Words for people and the spec's leftovers (issue 26): the menu says Shipments, the top-up has an on/off switch,
// payment history speaks in words (and fits a phone), dates follow the browser's locale, the reset page titles
// its result and takes the sign-up rule, an invitation survives the landing's links, a signed-out visitor can
// ask for a new activation link, a refused webhook URL shows under its field with the other choices kept, the
// add-tracking form offers sandbox numbers that move, and the pricing page shows a shipment's price.
// WORDS_SHOTS=<dir> saves the screenshots of the changed screens at 1366 px and on the iPhone 13 profile.
import { devices, expect, test, type Browser, type Page } from '@playwright/test';
import { apiPost, linkFromOutbox, signUpViaApi, uniqueEmail } from './helpers';

const shots = process.env.WORDS_SHOTS;
const shot = async (page: Page, name: string) => {
  if (shots) await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
};
const slow = { timeout: 30_000 };

/**
 * The same signed-in account on a real phone profile (Playwright's iPhone 13: mobile viewport, touch, its user
 * agent; in our Chromium), not a desktop window made narrow.
 */
async function onPhone(browser: Browser, desk: Page, path: string): Promise<Page> {
  const session = await desk.evaluate(() => localStorage.getItem('shiptrail.session'));
  const { defaultBrowserType: _engine, ...iphone } = devices['iPhone 13'];
  const phone = await (await browser.newContext(iphone)).newPage();
  await phone.goto('/terms-of-service');
  await phone.evaluate((s) => localStorage.setItem('shiptrail.session', s!), session);
  await phone.goto(path);
  return phone;
}

async function info(page: Page, token: string) {
  const res = await page.request.get('/v1/user/info?v=x', { headers: { 'sm-api-token': token } });
  return ((await res.json()) as { payload: { profile: { balance: number; referralCode: string; uid: string } } }).payload.profile;
}

/** A card on file (the sandbox form) and one $20 top-up through the API. */
async function cardAndTopUp(page: Page, token: string) {
  const added = (await apiPost(page.request, token, '/v1/user/payment/add', { paymentMethodToken: 'fake-valid-visa-nonce' })) as {
    status: string;
  };
  expect(added.status).toBe('success');
  const paid = (await apiPost(page.request, token, '/v1/user/general/addbalance', { amount: 20 })) as { status: string };
  expect(paid.status).toBe('success');
}

async function widthFits(page: Page) {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

test('company menu says Shipments; the pricing page and call show a shipment costs 5¢', async ({ page, request, browser }) => {
  const pricing = await (await request.get('/v1/info/pricing')).json();
  expect(pricing.payload.perShipment).toBe(0.05);
  await page.goto('/#pricing');
  await expect(page.getByTestId('price-shipment')).toHaveText('5¢', slow);
  await expect(page.getByText('per shipment you deliver')).toBeVisible();
  await page.getByTestId('price-shipment').scrollIntoViewIfNeeded();
  await shot(page, 'landing-pricing-1366');
  const phone = await onPhone(browser as Browser, page, '/#pricing');
  await expect(phone.getByTestId('price-shipment')).toBeVisible(slow);
  expect(await widthFits(phone)).toBe(true);
  await shot(phone, 'landing-pricing-iphone13');
  await phone.context().close();

  await signUpViaApi(page, request, uniqueEmail('menu'), 'company');
  await page.goto('/account/dashboard');
  const nav = page.getByRole('navigation', { name: 'Account navigation' });
  await expect(nav.getByRole('link', { name: 'Shipments', exact: true })).toHaveAttribute('href', '/account/shipments', slow);
  await expect(page.getByText('SHM System')).toHaveCount(0);
});

test('automatic top-up: an on/off switch that saves and reads back', async ({ page, request, browser }) => {
  test.setTimeout(180_000);
  const token = await signUpViaApi(page, request, uniqueEmail('topup'));
  await cardAndTopUp(page, token);
  await page.goto('/account/profile/settings/payment/autofill');
  // The billing screens are a lazily loaded chunk: slow to first paint on a busy machine.
  await expect(page.getByRole('tab', { name: 'Automatic top-up' })).toBeVisible({ timeout: 90_000 });
  await expect(page.getByText('Autofill setting')).toHaveCount(0);
  const sw = page.getByRole('switch', { name: 'Automatic top-up' });
  const payment = async () =>
    (await (await page.request.get('/v1/user/payment/info', { headers: { 'sm-api-token': token } })).json()).payload;
  // The switch shows what the server holds (a card on file starts with the product's defaults, $20 under $5).
  const initial = (await payment()).amountAutoRecharge > 0;
  await expect(sw).toBeChecked({ checked: initial, ...slow });
  await expect(page.getByLabel('Top-up amount', { exact: true })).toHaveCount(initial ? 1 : 0);
  // Off is saved as 0 and 0 (the API's off), and the amounts go away.
  if (initial) {
    await sw.uncheck();
    await expect(page.getByLabel('Top-up amount', { exact: true })).toHaveCount(0);
    await page.getByRole('button', { name: 'Save automatic top-up' }).click();
    await expect.poll(async () => (await payment()).amountAutoRecharge).toBe(0);
    await page.reload();
    await expect(sw).not.toBeChecked(slow);
    await expect(page.getByLabel('Top-up amount', { exact: true })).toHaveCount(0);
    await shot(page, 'settings-topup-off-1366');
  }
  await sw.check();
  await page.getByTestId('amountAutoRecharge-quick-50').click();
  await page.getByTestId('minimumBalanceForAutoRecharge-quick-10').click();
  await page.getByRole('button', { name: 'Save automatic top-up' }).click();
  await expect(page.getByText('Automatic top-up saved').first()).toBeVisible();
  expect(await payment()).toMatchObject({ amountAutoRecharge: 50, minimumBalanceForAutoRecharge: 10 });
  await page.reload();
  await expect(sw).toBeChecked(slow);
  await expect(page.getByLabel('Top-up amount', { exact: true })).toHaveValue('$50');
  await shot(page, 'settings-topup-1366');
  const phone = await onPhone(browser as Browser, page, '/account/profile/settings/payment/autofill');
  await expect(phone.getByRole('switch', { name: 'Automatic top-up' })).toBeChecked({ timeout: 90_000 });
  expect(await widthFits(phone)).toBe(true);
  await shot(phone, 'settings-topup-iphone13');
  await phone.context().close();
});

test('payment history in words, in the browser locale, and within a phone screen', async ({ page, request, browser }) => {
  test.setTimeout(180_000);
  const token = await signUpViaApi(page, request, uniqueEmail('history'));
  await cardAndTopUp(page, token);
  await page.goto('/account/profile/settings/paymentHistory');
  const table = page.getByTestId('payment-history');
  await expect(table).toContainText('Paid', slow);
  await expect(table).toContainText('Visa ending in 1111');
  await expect(table).not.toContainText(/SUBMITTED|submitted for settlement|411111/i);
  await expect(table.getByRole('link', { name: 'View receipt' })).toBeVisible();
  await shot(page, 'payment-history-1366');

  const phone = await onPhone(browser as Browser, page, '/account/profile/settings/paymentHistory');
  const cards = phone.getByTestId('payment-history-cards');
  await expect(cards).toContainText('Paid', slow);
  await expect(cards).toContainText('Visa ending in 1111');
  await expect(cards.getByRole('link', { name: 'View receipt' })).toBeVisible();
  await expect(phone.getByTestId('payment-history')).toBeHidden();
  expect(await widthFits(phone)).toBe(true);
  await shot(phone, 'payment-history-iphone13');
  await phone.context().close();

  // One date format per person: the same payment reads 11/26/2026 in a US browser and 26/11/2026 in a British one.
  const session = await page.evaluate(() => localStorage.getItem('shiptrail.session'));
  for (const locale of ['en-US', 'en-GB']) {
    const expected = new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric' }).format(new Date());
    const ctx = await (browser as Browser).newContext({ locale, viewport: { width: 1366, height: 900 } });
    const p = await ctx.newPage();
    await p.goto('/terms-of-service');
    await p.evaluate((s) => localStorage.setItem('shiptrail.session', s!), session);
    await p.goto('/account/profile/settings/paymentHistory');
    await expect(p.getByTestId('payment-history').getByRole('row').nth(1), locale).toContainText(expected, slow);
    await ctx.close();
  }
});

test('password reset: the sign-up rule (8) and a result titled in words', async ({ page, request }) => {
  const email = uniqueEmail('reset');
  await request.post('/v1/user/general/signup', { data: { email, password: 'password1', repassword: 'password1', terms: true } });
  await request.get(`/v1/user/password/recover/${encodeURIComponent(email)}`);
  const link = await linkFromOutbox(request, email, '/password/reset/');
  await page.goto(link);
  const form = page.getByRole('form', { name: 'Reset password' });
  await expect(page.getByText('Use at least 8 characters')).toBeVisible();
  await form.getByLabel('New password').fill('abcdef1');
  await form.getByLabel('Confirm password').fill('abcdef1');
  await form.getByLabel('Confirm password').blur();
  await expect(form.getByText('Must be 8 characters or greater than')).toBeVisible();
  await expect(form.getByRole('button', { name: 'Reset password' })).toBeDisabled();
  // The API refuses it too.
  const api = await (
    await request.post('/v1/user/general/passwordreset', { data: { verifycode: link.split('/').pop(), password: 'abcdef1' } })
  ).json();
  expect(api).toMatchObject({ code: 400, message: 'Must be 8 characters or greater than' });
  await form.getByLabel('New password').fill('abcdefg1');
  await form.getByLabel('Confirm password').fill('abcdefg1');
  await form.getByRole('button', { name: 'Reset password' }).click();
  const result = page.getByTestId('reset-result');
  await expect(result).toContainText('Password changed');
  await expect(result.getByText('success', { exact: true })).toHaveCount(0);
});

test('an invitation survives START FREE, LOGIN, Pricing and Features, and the sign-up carries it', async ({ page, request }) => {
  test.setTimeout(180_000);
  const inviterToken = await signUpViaApi(page, request, uniqueEmail('inviter'));
  const inviter = await info(page, inviterToken);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`/referrer/${inviter.referralCode}`);
  const invited = page.getByText('You were invited by a friend');
  await expect(invited).toBeVisible(slow);
  const header = page.getByRole('banner');
  for (const link of ['Pricing', 'Features', 'LOGIN', 'START FREE']) {
    await header.getByRole('link', { name: link, exact: true }).first().click();
    await expect(page).not.toHaveURL(/referrer/);
  }
  await expect(page).toHaveURL(/#tab-register$/);
  await expect(invited).toBeVisible();
  const friend = uniqueEmail('friend');
  const form = page.getByRole('form', { name: 'Create an account' });
  await form.getByLabel('First name').fill('Fran');
  await form.getByLabel('Last name').fill('Friend');
  await form.getByRole('textbox', { name: 'Email' }).fill(friend);
  await form.getByRole('textbox', { name: 'Password', exact: true }).fill('password1');
  await form.getByLabel('Repeat password').fill('password1');
  await form.getByRole('checkbox').check();
  const signup = page.waitForRequest((r) => r.url().endsWith('/v1/user/general/signup') && r.method() === 'POST');
  await form.getByRole('button', { name: 'Create free account' }).click();
  // The sign-up names the inviter. Whether the reward is then paid is the server's rule (decision 110: held until
  // the friend's payments settle, and never for a friend who signs up from the inviter's address, as this test
  // does from one machine); test/billing/referral-abuse.test.ts covers it.
  expect((await signup).postDataJSON()).toMatchObject({ referrer: inviter.referralCode });
  await expect(page).toHaveURL(/\/account\//, slow);
  // Used once: the stored invitation is gone.
  expect(await page.evaluate(() => localStorage.getItem('shiptrail.invite'))).toBeNull();
});

test('a signed-out visitor asks for a new activation link by address', async ({ page, request }) => {
  const email = uniqueEmail('resend');
  await request.post('/v1/user/general/signup', { data: { email, password: 'password1', repassword: 'password1', terms: true } });
  await page.goto('/verify/not-a-real-key');
  await expect(page.getByRole('heading', { name: 'We could not verify this link' })).toBeVisible(slow);
  const form = page.getByRole('form', { name: 'Resend activation email' });
  await form.getByLabel('Your email').fill(email);
  await form.getByRole('button', { name: 'Send a new activation link' }).click();
  await expect(page.getByTestId('resend-result')).toHaveText(
    'If an account waiting for activation uses this email, we sent it a new activation email',
  );
  const mails = async () =>
    ((await (await request.get('/dev/mail/api')).json()) as Array<{ to: string; text: string }>).filter(
      (m) => m.to === email && m.text.includes('/verify/'),
    ).length;
  await expect.poll(mails, { timeout: 20_000 }).toBe(2);
  const link = await linkFromOutbox(request, email, '/verify/');
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Email verified' })).toBeVisible(slow);
});

test('a webhook host that does not resolve: the reason under the URL, every other choice kept', async ({ page, request }) => {
  await signUpViaApi(page, request, uniqueEmail('hook'));
  await page.goto('/account/profile/settings/triggers/receiveNotification');
  const form = page.getByRole('form', { name: 'Notifications you receive' });
  await expect(form).toBeVisible(slow);
  await form.getByRole('checkbox', { name: 'Email on Delivered' }).check();
  await form.getByRole('checkbox', { name: 'Webhook on Delivered' }).check();
  await form.getByLabel('Webhook URL').fill('https://no-such-host.invalid/hooks');
  await form.getByRole('button', { name: 'Save' }).click();
  const url = form.getByLabel('Webhook URL');
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByText(/could not be resolved/)).toBeVisible();
  await expect(url).toHaveValue('https://no-such-host.invalid/hooks');
  await expect(form.getByRole('checkbox', { name: 'Email on Delivered' })).toBeChecked();
  // Fix the URL (clear the webhook) and save: the email choice was kept to save.
  await form.getByRole('checkbox', { name: 'Webhook on Delivered' }).uncheck();
  await url.fill('');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved').first()).toBeVisible();
});

test('the add-tracking form of a sandbox deployment offers numbers that move', async ({ page, request }) => {
  test.setTimeout(120_000);
  const token = await signUpViaApi(page, request, uniqueEmail('sandboxnum'));
  await page.goto('/account/trackings');
  await page.getByRole('button', { name: 'Add tracking' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add New Tracking Number' });
  const offered = dialog.getByTestId('sandbox-numbers');
  await expect(offered).toBeVisible(slow);
  for (const name of ['UPS', 'USPS', 'FedEx', 'Canada Post'])
    await expect(offered.getByRole('button', { name: `Use the ${name} sandbox number` })).toBeVisible();
  await offered.getByRole('button', { name: 'Use the UPS sandbox number' }).click();
  await expect(dialog.getByRole('textbox', { name: 'Tracking number' })).toHaveValue('1Z5R89390350075608');
  await dialog.getByRole('button', { name: 'Add tracking' }).click();
  await expect(dialog).toBeHidden();
  // It moves: past Info Received on the sandbox (pace 0.05 in the E2E server).
  await expect
    .poll(
      async () =>
        ((await (await page.request.get('/v1/trackings/get?numRecords=5', { headers: { 'sm-api-token': token } })).json()).payload[0]
          ?.status as string) ?? '',
      { timeout: 60_000 },
    )
    .toMatch(/InTransit|OutForDelivery|Delivered/);
});
