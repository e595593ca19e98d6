import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { apiPost, linkFromOutbox, OUTBOX_API, signUpViaApi, uniqueEmail } from './helpers';

// Issue 26, "no silent form": every refusal reaches the person, in the server's own words, on every form. One
// table: each row puts a refused value into one form and names the words that must appear. Rows marked `server`
// are refusals only the server can make (the value passes the form's checks and is sent); the others are caught
// as typed by the contract's schema, the server's schema, with the same words, and their submit stays disabled.

const shots = process.env.ALERTS_SHOTS ?? '/work/shots-alerts';
const slow = { timeout: 30_000 };

interface Row {
  form: string;
  url: string;
  server: boolean;
  fill(page: Page, ctx: { email: string }): Promise<void>;
  submit?: string;
  words: string;
  /** The submit button that must be disabled while the refused value is in the form. */
  disabled?: string;
}

const fillCard = async (page: Page, number: string, expiry: string) => {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry').fill(expiry);
  await page.getByLabel('CVV').fill('123');
  await page.getByLabel('Postal code').fill('94107');
  await page.getByLabel('Postal code').blur();
};

const ROWS: Row[] = [
  {
    form: 'add balance $0',
    url: '/account/profile/settings/balance',
    server: false,
    fill: (p) => p.getByLabel('Amount').fill('0'),
    words: 'Enter a whole number of dollars from 1 to 1000',
    disabled: 'Add Balance',
  },
  {
    form: 'add balance $100000',
    url: '/account/profile/settings/balance',
    server: false,
    fill: (p) => p.getByLabel('Amount').fill('100000'),
    words: 'Enter a whole number of dollars from 1 to 1000',
    disabled: 'Add Balance',
  },
  {
    form: 'automatic top-up $5000',
    url: '/account/profile/settings/payment/autofill',
    server: false,
    fill: async (p) => {
      await p.getByRole('switch', { name: 'Automatic top-up' }).check();
      await p.getByLabel('Top-up amount', { exact: true }).fill('5000');
    },
    words: 'Enter a whole number of dollars from 0 to 1000',
    disabled: 'Save automatic top-up',
  },
  {
    form: 'card: expired 01/20',
    url: '/account/profile/settings/payment/add',
    server: false,
    fill: (p) => fillCard(p, '4111 1111 1111 1111', '01/20'),
    words: 'This card has expired: check the expiry date',
    disabled: 'Save card',
  },
  {
    form: 'card: declined when verified',
    url: '/account/profile/settings/payment/add',
    server: true,
    fill: (p) => fillCard(p, '4000 1111 1111 1115', '12/30'),
    submit: 'Save card',
    words: 'Your card was declined: Do Not Honor',
  },
  {
    form: 'password: wrong current password',
    url: '/account/profile/settings/profile/password',
    server: true,
    fill: async (p) => {
      await p.getByLabel(/^Current password/).fill('not-my-password');
      await p.getByLabel(/^New password/).fill('brand-new-pass1');
      await p.getByLabel(/^Confirm new password/).fill('brand-new-pass1');
    },
    submit: 'Update password',
    words: 'Current password is not correct',
  },
  {
    form: 'profile: first name too long',
    url: '/account/profile/settings/profile/profile',
    server: false,
    fill: async (p) => {
      await p.getByLabel('First name').fill('x'.repeat(150));
      await p.getByLabel('First name').blur();
    },
    words: 'Must be at most 100 characters',
    disabled: 'Save changes',
  },
  {
    form: 'notification settings: loopback webhook',
    url: '/account/profile/settings/triggers',
    server: true,
    fill: async (p) => {
      await p.getByRole('checkbox', { name: 'Webhook on Delivered' }).check();
      await p.getByLabel('Webhook URL').fill('http://127.0.0.1:9/hook');
    },
    submit: 'Save',
    words: 'The webhook URL must point to a public address (not loopback, private, link-local or metadata)',
  },
  {
    form: 'invite a friend: yourself',
    url: '/account/invite',
    server: true,
    fill: (p, c) => p.getByLabel(/^Email/).fill(c.email),
    submit: 'Send Invite',
    words: 'You cannot invite yourself',
  },
];

test("every refused value, on every form, shows the server's words (table-driven)", async ({ page, request }) => {
  test.setTimeout(300_000);
  mkdirSync(shots, { recursive: true });
  const email = uniqueEmail('refusals');
  const token = await signUpViaApi(page, request, email);
  // A card on file, so the balance form is usable.
  const card = (await apiPost(request, token, '/v1/user/payment/add', { paymentMethodToken: 'fake-valid-visa-nonce' })) as {
    status: string;
  };
  expect(card.status).toBe('success');

  for (const row of ROWS) {
    await test.step(row.form, async () => {
      await page.goto(row.url);
      // The account pages keep the live stream open, so the network is never idle: wait for the page itself.
      await page.locator('#account-main').waitFor(slow);
      await row.fill(page, { email });
      if (row.submit) {
        const sent = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/v1/'));
        await page.getByRole('button', { name: row.submit, exact: true }).first().click();
        await sent;
      }
      await expect(page.getByText(row.words, { exact: true }).first(), row.form).toBeVisible(slow);
      if (row.disabled) await expect(page.getByRole('button', { name: row.disabled, exact: true })).toBeDisabled();
    });
  }
});

test('billing form errors and a saved card leave no stray error, at 1366 and at phone size', async ({ page, request }) => {
  test.setTimeout(240_000);
  mkdirSync(shots, { recursive: true });
  const token = await signUpViaApi(page, request, uniqueEmail('cardform'));
  expect(
    ((await apiPost(request, token, '/v1/user/payment/add', { paymentMethodToken: 'fake-valid-visa-nonce' })) as { status: string }).status,
  ).toBe('success');
  for (const [w, h, tag] of [
    [1366, 768, '1366'],
    [390, 844, 'phone'],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.goto('/account/profile/settings/balance');
    await page.getByLabel('Amount').fill('100000');
    await expect(page.getByText('Enter a whole number of dollars from 1 to 1000')).toBeVisible(slow);
    await page.screenshot({ path: `${shots}/billing-add-balance-${tag}.png`, fullPage: true });
    await page.goto('/account/profile/settings/payment/autofill');
    await page.getByRole('switch', { name: 'Automatic top-up' }).check();
    await page.getByLabel('Top-up amount', { exact: true }).fill('5000');
    await expect(page.getByText('Enter a whole number of dollars from 0 to 1000')).toBeVisible(slow);
    await page.screenshot({ path: `${shots}/billing-autofill-${tag}.png`, fullPage: true });
    await page.goto('/account/profile/settings/payment/add');
    await fillCard(page, '4111 1111 1111 1111', '01/20');
    await expect(page.getByText('This card has expired: check the expiry date')).toBeVisible(slow);
    await expect(page.getByRole('button', { name: 'Save card' })).toBeDisabled();
    await page.screenshot({ path: `${shots}/billing-card-expired-${tag}.png`, fullPage: true });
    await fillCard(page, '4000 1111 1111 1115', '12/30');
    await page.getByRole('button', { name: 'Save card' }).click();
    await expect(page.getByText('Your card was declined: Do Not Honor')).toBeVisible(slow);
    await page.screenshot({ path: `${shots}/billing-card-declined-${tag}.png`, fullPage: true });
  }
  // A successful save: the card shows its own expiry, and the emptied form shows no error.
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.goto('/account/profile/settings/payment/add');
  await fillCard(page, '5555 5555 5555 4444', '07/31');
  await page.getByRole('button', { name: 'Save card' }).click();
  await expect(page.getByText('MasterCard ending in 4444')).toBeVisible(slow);
  await expect(page.getByText(/expires 07\/2031/)).toBeVisible();
  await page.waitForTimeout(500);
  await expect(page.getByText('CVV is 3 or 4 digits')).toHaveCount(0);
  await expect(page.getByText('Card number is required')).toHaveCount(0);
  await expect(page.getByText(MSG_EXPIRY)).toHaveCount(0);
});

const MSG_EXPIRY = 'Enter the expiry as MM/YY';

test("a failed attempt reaches the company's customer: the mail in the outbox", async ({ page, request }) => {
  test.setTimeout(120_000);
  mkdirSync(shots, { recursive: true });
  const ownerEmail = uniqueEmail('swift');
  const res = await request.post('/v1/user/general/signup', {
    data: {
      email: ownerEmail,
      password: 'password1',
      repassword: 'password1',
      terms: true,
      userType: 'company',
      company: 'Swift Parcel',
      firstName: 'Sam',
      lastName: 'Owner',
      timeZone: 'America/New_York',
    },
  });
  const key = ((await res.json()) as { payload: { profile: { token: string } } }).payload.profile.token;
  // A company's customer messages wait until its email is verified (decision 109): verify it as its owner would.
  await page.goto(await linkFromOutbox(request, ownerEmail, '/verify/'));
  await expect(page).toHaveURL(/\/account\/dashboard/);
  const customer = uniqueEmail('jane');
  const body = {
    origin: {
      name: 'Swift Parcel',
      address1: '1 Main St',
      city: 'Brooklyn',
      state: 'NY',
      zip: '11201',
      country: 'US',
      phone: '+12125550100',
      email: 'depot@example.com',
    },
    destination: {
      name: 'Jane Doe',
      address1: '22 Elm St',
      city: 'Brooklyn',
      state: 'NY',
      zip: '11215',
      country: 'US',
      phone: '+12125550101',
      email: customer,
    },
    parcels: [
      {
        id: 'P1',
        quantity: 1,
        name: 'Box',
        length: 12,
        width: 8,
        height: 3,
        distanceUnit: 'in',
        weight: 1.5,
        weightUnit: 'lb',
        metadata: {},
      },
    ],
    orderId: 'ORD-2002',
    status: 'InfoReceived',
    courier: 'Swift Parcel',
    courierEmail: 'courier@example.com',
  };
  const created = (await apiPost(request, key, '/v1/shipment/create', body)) as { status: string; payload: { tid: string } };
  expect(created.status, JSON.stringify(created)).toBe('success');
  const up = (await apiPost(request, key, '/v1/shipment/update', {
    tid: created.payload.tid,
    status: 'FailAttempt',
    location: 'Brooklyn, NY',
    message: 'Nobody home',
    time: '2026-11-26T15:18:00Z',
  })) as { status: string };
  expect(up.status, JSON.stringify(up)).toBe('success');
  let id = 0;
  await expect
    .poll(
      async () => {
        const list = (await (await request.get(OUTBOX_API)).json()) as Array<{ id: number; to: string; subject: string }>;
        id = list.find((m) => m.to === customer && /attempt failed/.test(m.subject))?.id ?? 0;
        return id;
      },
      { timeout: 30_000 },
    )
    .not.toBe(0);
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto(`/dev/mail/${id}`);
  await expect(page.getByText('Nobody home, Brooklyn, NY · Nov 26, 2026, 10:18 AM EST')).toBeVisible();
  await page.screenshot({ path: `${shots}/failed-attempt-mail-1366.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${shots}/failed-attempt-mail-phone.png`, fullPage: true });
  await page.goto('/dev/mail');
  await expect(page.getByText(`Swift Parcel: delivery attempt failed for your parcel ${created.payload.tid}`)).toBeVisible();
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.screenshot({ path: `${shots}/outbox-1366.png` });
});
