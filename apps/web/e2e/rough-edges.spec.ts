import { expect, test, type Page } from '@playwright/test';
import { apiPost, signUpViaApi, uniqueEmail } from './helpers';

// What a new user meets on first use: messages written for people, shown once, tables that fit the screen,
// and pages named for what they show.

const DEV_WORDING = /Too big|Too small|expected string|Invalid input|Something went wrong/;

async function signedIn(page: Page, request: Parameters<typeof signUpViaApi>[1], userType: 'person' | 'company' = 'person') {
  const token = await signUpViaApi(page, request, uniqueEmail('edges'), userType);
  return token;
}

test.describe('messages', () => {
  test('an over-long support message says why Send is disabled, with a counter', async ({ page, request }) => {
    await signedIn(page, request);
    await page.goto('/account/support');
    const form = page.getByRole('form', { name: 'Support request' });
    await expect(form).toBeVisible({ timeout: 30_000 });
    const message = form.getByLabel('Message');
    await message.fill('x'.repeat(5001));
    await expect(form.getByRole('button', { name: 'Send message' })).toBeDisabled();
    await expect(form.getByText('Must be at most 5,000 characters: remove 1')).toBeVisible();
    await expect(form.getByTestId('support-counter')).toHaveText('5,001 / 5,000 characters');
    await message.blur();
    await expect(form.getByText('Must be at most 5,000 characters: remove 1')).toBeVisible();
    await expect(form).not.toContainText(DEV_WORDING);
    await message.fill('Where is my parcel?');
    await expect(form.getByTestId('support-counter')).toHaveText('19 / 5,000 characters');
    await expect(form.getByRole('button', { name: 'Send message' })).toBeEnabled();
    await form.getByRole('button', { name: 'Send message' }).click();
    const toast = page.locator('.mantine-Notification-root');
    await expect(toast).toContainText('Sent');
    await expect(toast).not.toContainText(/success|Something went wrong/);
  });

  test('a field longer than allowed says so in words', async ({ page, request }) => {
    await signedIn(page, request, 'company');
    await page.goto('/account/trackings');
    await page.getByRole('button', { name: 'Add tracking' }).first().click();
    const form = page.getByRole('form', { name: 'Add New Tracking Number' });
    await expect(form).toBeVisible({ timeout: 30_000 });
    await form.getByLabel('Order ID').fill('x'.repeat(101));
    await form.getByLabel('Order ID').blur();
    await expect(form.getByText('Must be at most 100 characters')).toBeVisible();
    await expect(form).not.toContainText(DEV_WORDING);
  });

  test('the server answers bad input in words too', async ({ request }) => {
    const res = await request.post('/v1/user/general/supportrequest', { data: { message: 'x'.repeat(5001) } });
    const body = (await res.json()) as { message: string };
    // Without a session the server may refuse first; either way the text is for a person.
    expect(body.message).not.toMatch(DEV_WORDING);
    const signup = await request.post('/v1/user/general/signup', {
      data: { email: uniqueEmail('edges'), password: 'password1', repassword: 'password1', terms: true },
    });
    const token = ((await signup.json()) as { payload: { sessionToken: string } }).payload.sessionToken;
    const bad = (await apiPost(request, token, '/v1/trackings/add', { tid: '1Z999AA10123456784', orderId: 'x'.repeat(101) })) as {
      message: string;
      payload: { errors: Record<string, string> };
    };
    expect(bad.payload.errors.orderId).toBe('Must be at most 100 characters');
  });

  test('"already tracking" shows once and goes when the number changes', async ({ page, request }) => {
    const token = await signedIn(page, request);
    await apiPost(request, token, '/v1/trackings/add', { tid: '1Z999AA10123456784', courier: null });
    await page.goto('/account/trackings');
    await page.getByRole('button', { name: 'Add tracking' }).first().click();
    const form = page.getByRole('form', { name: 'Add New Tracking Number' });
    const tid = form.getByRole('textbox', { name: 'Tracking number', exact: true });
    await tid.fill('1Z999AA10123456784');
    await form.getByRole('button', { name: 'Add tracking' }).click();
    await expect(form.getByText('You are already tracking 1Z999AA10123456784')).toBeVisible();
    await expect(page.getByText(/already tracking/)).toHaveCount(1);
    await tid.fill('1Z12345E0205271688');
    await expect(page.getByText(/already tracking/)).toHaveCount(0);
  });

  test('a wrong current password shows once, next to the field', async ({ page, request }) => {
    await signedIn(page, request);
    await page.goto('/account/profile/settings/profile/password');
    const form = page.getByRole('form', { name: 'Change password' });
    await expect(form).toBeVisible({ timeout: 30_000 });
    await form.getByLabel('Current password').fill('wrongpass1');
    await form.getByLabel(/^New password/).fill('newpassword1');
    await form.getByLabel(/^Confirm new password/).fill('newpassword1');
    await form.getByRole('button', { name: 'Update password' }).click();
    await expect(form.getByText('Current password is not correct')).toBeVisible();
    // Hold a quiet window in which a toast would have appeared if one were coming (the page keeps its live-updates
    // stream open, so the network is never idle to wait for): the message stays single, no error toast.
    for (let i = 0; i < 8; i++) {
      await expect(page.getByText('Current password is not correct')).toHaveCount(1);
      await expect(page.getByText('Something went wrong')).toHaveCount(0);
      await page.waitForTimeout(250);
    }
  });

  test('the Google return panel names the outcome and explains it', async ({ page }) => {
    // A return without the state Google must echo: the request is refused before anything else.
    await page.goto('/?code=abc');
    const alert = page.getByRole('alert', { name: 'Could not sign up with Google' });
    await expect(alert).toBeVisible({ timeout: 30_000 });
    await expect(alert).toContainText('Google sign-in failed. Please try again.');
    await expect(alert).not.toContainText(DEV_WORDING);
    await expect(page.getByText('fail', { exact: true })).toHaveCount(0);
    await page.goto('/?code=abc&state=xyz&login=1');
    await expect(page.getByRole('alert', { name: 'Could not sign in with Google' })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByText('fail', { exact: true })).toHaveCount(0);
  });

  test('status boxes carry a real title', async ({ page }) => {
    await page.goto('/#tab-login');
    const form = page.getByRole('form', { name: 'Log in' });
    await form.getByRole('textbox', { name: 'Email' }).fill('nobody@example.com');
    await form.getByRole('textbox', { name: 'Password', exact: true }).fill('password1');
    await form.getByRole('button', { name: 'Log in', exact: true }).click();
    await expect(form.getByTestId('status-box')).toContainText('Could not sign in');
    await expect(form.getByTestId('status-box')).toContainText('Invalid email or password');
  });
});

test.describe('tables', () => {
  // A USPS sandbox parcel that reaches Delivered, with origin, destination and checkpoint text.
  const TID = '9400111899223397623910';

  /** Signs up, adds the parcel and waits until it has moved; returns its last checkpoint's message. */
  /** The newest tracking's last checkpoint message, once it has a destination and a checkpoint ('' before). */
  async function lastCheckpointOf(request: Parameters<typeof signUpViaApi>[1], token: string): Promise<string> {
    const list = (await (await request.get('/v1/trackings/get?numRecords=5', { headers: { 'sm-api-token': token } })).json()) as {
      payload: { destination: string; lastCheckPoint: string | { message?: string } | null }[];
    };
    const c = list.payload[0]?.lastCheckPoint;
    const last = (typeof c === 'string' ? c : c?.message) ?? '';
    return list.payload[0]?.destination ? last : '';
  }

  async function withMovedParcel(page: Page, request: Parameters<typeof signUpViaApi>[1]) {
    const token = await signedIn(page, request);
    let last = '';
    await apiPost(request, token, '/v1/trackings/add', { tid: TID, courier: null, title: 'Running shoes' });
    await expect
      .poll(
        async () => {
          last = await lastCheckpointOf(request, token);
          return !!last;
        },
        { timeout: 60_000 },
      )
      .toBe(true);
    return { last, token };
  }

  test('at 1366 px nothing in a row is cut off and the table does not scroll sideways', async ({ page, request }) => {
    await withMovedParcel(page, request);
    await page.goto('/account/trackings');
    const table = page.getByTestId('trackings-table');
    const row = table.locator(`tbody tr[data-tid="${TID}"]`);
    await expect(row).toBeVisible({ timeout: 30_000 });
    const clipped = await row.evaluate((tr) =>
      [...tr.querySelectorAll('td p')]
        .filter((p) => p.scrollHeight > p.clientHeight + 1 || p.scrollWidth > p.clientWidth + 1)
        .map((p) => p.textContent),
    );
    expect(clipped).toEqual([]);
    const scrolls = await table.evaluate((t) => {
      const box = t.parentElement!;
      return box.scrollWidth > box.clientWidth + 1;
    });
    expect(scrolls).toBe(false);
  });

  test('on a phone each tracking is a card with status, number, courier and last checkpoint', async ({ page, request }) => {
    const { last, token } = await withMovedParcel(page, request);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/account/trackings');
    const card = page.getByTestId('trackings-cards').locator(`li[data-tid="${TID}"]`);
    await expect(card).toBeVisible({ timeout: 30_000 });
    await expect(card).toContainText(TID);
    await expect(card).toContainText('Running shoes');
    await expect(card).toContainText('USPS');
    // The parcel goes on moving while the page loads (its scans are pushed within a second): the card shows the
    // last checkpoint the API has at that moment, and follows it.
    let current = last;
    await expect
      .poll(
        async () => {
          current = (await lastCheckpointOf(request, token)) || current;
          return ((await card.textContent()) ?? '').includes(current);
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    const box = (await card.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await card.getByRole('button', { name: `Open ${TID}` }).click();
    await expect(page.getByRole('dialog')).toContainText(TID);
  });
});

test.describe('names', () => {
  test('the log and the settings are named apart; webhook log says what is true; no floating captions', async ({ page, request }) => {
    await signedIn(page, request);
    await page.goto('/account/dashboard');
    const nav = page.getByRole('navigation', { name: 'Account navigation' });
    await nav.getByRole('link', { name: 'Notification log' }).click();
    await expect(page.getByRole('heading', { name: 'Notification log', level: 1 })).toBeVisible({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Account menu' }).click();
    await expect(page.getByRole('menuitem', { name: 'Notification log' })).toBeVisible();
    await page.keyboard.press('Escape');
    await page.goto('/account/profile/settings/triggers/receiveNotification');
    await expect(page.getByRole('tab', { name: 'Notification settings' })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole('tab', { name: 'Notifications', exact: true })).toHaveCount(0);
    await expect(page.getByText('No webhook deliveries yet')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByText('No notifications yet')).toHaveCount(0);
    await expect(page.locator('caption')).toHaveCount(0);
    await expect(page.getByRole('table', { name: 'Notifications you receive' })).toBeVisible();
  });
});

test("a tracking deleted from its row's menu leaves the list and the account, after its confirmation; Cancel keeps it", async ({
  page,
  request,
}) => {
  const token = await signedIn(page, request);
  const [kept, gone] = ['1ZEDGEKEEP0000001', '1ZEDGEGONE0000001'];
  for (const tid of [kept, gone]) expect((await apiPost(request, token, '/v1/trackings/add', { tid, courier: 'ups' })).code).toBe(201);
  await page.goto('/account/trackings');
  const rowOf = (tid: string) => page.locator(`tr[data-tid="${tid}"]`);
  await expect(rowOf(gone)).toBeVisible({ timeout: 20_000 });
  const confirm = page.getByRole('dialog', { name: 'Delete tracking?' });

  // The row's menu, Delete, the confirmation naming the tracking, then its button `answer`.
  const deleteFromMenu = async (tid: string, answer: 'Cancel' | 'Delete') => {
    await rowOf(tid)
      .getByRole('button', { name: `Actions for ${tid}` })
      .click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await expect(confirm).toContainText(tid);
    await confirm.getByRole('button', { name: answer }).click();
    await expect(confirm).toBeHidden();
  };
  await deleteFromMenu(kept, 'Cancel');
  await deleteFromMenu(gone, 'Delete');
  await expect(rowOf(gone)).toHaveCount(0);
  await expect(rowOf(kept)).toBeVisible();

  const list = (await (await request.get('/v1/trackings/get', { headers: { 'sm-api-token': token } })).json()) as {
    payload: Array<{ tid: string }>;
  };
  expect(list.payload.map((t) => t.tid).sort()).toEqual([kept]);
});
