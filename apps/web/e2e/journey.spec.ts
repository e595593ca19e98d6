import { expect, test, type Page } from '@playwright/test';
import { linkFromOutbox, uniqueEmail } from './helpers';

// The main journey of a new person account, in order: sign up, wizard, verify, trackings, theme, API key, sign out.
test.describe.configure({ mode: 'serial' });

let page: Page;
const email = uniqueEmail('journey');
const password = 'password1';
// A UPS sandbox number whose journey ends Delivered (docs/carriers.md lists one per carrier and journey).
const TID = '1Z5R89390350075608';

test.beforeAll(async ({ browser }) => {
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  page = await context.newPage();
});
test.afterAll(async () => {
  await page.context().close();
});

test('sign up from the landing page', async () => {
  await page.goto('/#tab-register');
  const form = page.getByRole('form', { name: 'Create an account' });
  await form.getByLabel('First name').fill('Riley');
  await form.getByLabel('Last name').fill('Park');
  await form.getByRole('textbox', { name: 'Email' }).fill(email);
  await form.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
  await form.getByLabel('Repeat password').fill(password);
  await form.getByRole('checkbox').check();
  await form.getByRole('button', { name: 'Create free account' }).click();
  await expect(page).toHaveURL(/\/account\/init$/);
  await expect(page.getByRole('heading', { name: 'Set up your account' })).toBeVisible();
  await expect(page.getByTestId('sidebar-balance')).toHaveText('$10.00');
});

test('wizard: SMS without a phone is blocked, then saved', async () => {
  await expect(page.getByRole('textbox', { name: 'Email' })).toHaveValue(email);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('checkbox', { name: 'SMS on Delivered' }).check();
  await page.getByRole('checkbox', { name: 'Email on In Transit' }).check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('wizard-error')).toHaveText('Please provide valid phone number on previous step to receive SMS alerts.');
  await page.getByRole('button', { name: 'Previous' }).click();
  await expect(page.getByText('Phone is required')).toBeVisible();
  await page.getByLabel('Phone').fill('12');
  await page.getByLabel('Phone').blur();
  await expect(page.getByText('Invalid phone number')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled();
  await page.getByLabel('Phone').fill('(212) 555-0142');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByRole('checkbox', { name: 'SMS on Delivered' })).toBeChecked();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('wizard-done')).toBeVisible();
  await expect(page.getByText('Congratulations!')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Add Credit card' })).toHaveAttribute('href', '/account/profile/settings/payment/add');
  await page.getByRole('link', { name: 'Skip', exact: true }).click();
  await expect(page).toHaveURL(/\/account\/trackings$/);
});

test('dashboard shows the unverified banner; the emailed link verifies and logs in', async () => {
  await page.goto('/account/dashboard');
  await expect(page.getByTestId('verify-banner')).toBeVisible();
  await expect(page.getByTestId('dashboard-total')).toHaveText('0');
  await expect(page.locator('[data-status="Delivered"] td').nth(2)).toHaveText('0%');
  await page.getByRole('button', { name: 'Resend activation email' }).click();
  await expect(page.getByText('We sent a new activation email')).toBeVisible();
  const link = await linkFromOutbox(page.request, email, '/verify/');
  await page.goto(link);
  await expect(page.getByTestId('verify-message')).toBeVisible();
  await expect(page).toHaveURL(/\/account\/dashboard$/, { timeout: 15_000 });
  await expect(page.getByTestId('verify-banner')).toHaveCount(0);
});

test('add a sandbox tracking with courier detection; the new row is highlighted', async () => {
  await page.goto('/account/trackings');
  await page.getByRole('button', { name: 'Add tracking' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add New Tracking Number' });
  await dialog.getByRole('textbox', { name: 'Tracking number', exact: true }).fill(TID);
  await expect(dialog.getByTestId('detected-courier')).toContainText('UPS');
  await dialog.getByText('Details and customer notifications').click();
  await dialog.getByLabel('Title').fill('Camera lens');
  await dialog.getByLabel('Notify phone').fill('12');
  await dialog.getByLabel('Notify phone').blur();
  await expect(dialog.getByText('Invalid phone number')).toBeVisible();
  await dialog.getByLabel('Notify phone').fill('');
  await dialog.getByRole('button', { name: 'Add tracking' }).click();
  await expect(dialog).toBeHidden();
  const row = page.locator(`tr[data-tid="${TID}"]`);
  await expect(row).toBeVisible();
  await expect(row).toHaveClass(/row-new/);
  await expect(row).toContainText('Camera lens');
  await expect(row).not.toHaveClass(/row-new/, { timeout: 6_000 });
});

test('watch the tracking move through the sandbox to Delivered', async () => {
  const row = page.locator(`tr[data-tid="${TID}"]`);
  // The sandbox plays this number's 'delivered' journey (docs/carriers.md) in about 12-18 s at the E2E pace.
  await expect
    .poll(
      async () => {
        await page.getByRole('button', { name: 'Reload' }).click();
        return row.getAttribute('data-status');
      },
      { timeout: 60_000, intervals: [2000] },
    )
    .toBe('Delivered');
  // Details and checkpoints in the side panel: the whole journey, newest first.
  await row.click();
  const panel = page.getByRole('dialog', { name: 'Tracking details' });
  await panel.getByRole('tab', { name: /Checkpoints/ }).click();
  const items = panel.getByLabel('Checkpoints', { exact: true }).locator('.mantine-Timeline-item');
  await expect(items).toHaveCount(6);
  const titles = await items.evaluateAll((els) => els.map((el) => el.querySelector('.mantine-Timeline-itemTitle')?.textContent?.trim()));
  expect(titles).toEqual(['Delivered', 'Out For Delivery', 'In Transit', 'In Transit', 'In Transit', 'Info Received']);
  // Each row carries the carrier's message and a time.
  for (const text of await items.allInnerTexts()) expect(text.split('\n').filter((l) => l.trim()).length).toBeGreaterThanOrEqual(3);
  // How the carrier's news arrives (pushed or polled: the server tests prove which) and when it was last heard.
  await panel.getByRole('tab', { name: 'Details' }).click();
  await expect(panel.getByText(/^(Pushed by the carrier|Polled)$/)).toBeVisible();
  await expect(panel.getByText('Last heard from the carrier')).toBeVisible();
  await expect(panel.getByText('Not yet')).toHaveCount(0);
  await panel.screenshot({ path: test.info().outputPath('tracking-panel-details.png') });
  await page.keyboard.press('Escape');
});

test('edit the tracking: title and note, from the row menu and the side panel', async () => {
  const row = page.locator(`tr[data-tid="${TID}"]`);
  await row.getByRole('button', { name: `Actions for ${TID}` }).click();
  await page.getByRole('menuitem', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit tracking' });
  // Prefilled; the number is shown but cannot be changed.
  const number = dialog.getByRole('textbox', { name: 'Tracking number' });
  await expect(number).toHaveValue(TID);
  await expect(number).toHaveAttribute('readonly', '');
  await expect(dialog.getByLabel('Title')).toHaveValue('Camera lens');
  // Picking another courier warns that the history is reloaded; picking the old one back removes the warning.
  await dialog.getByRole('combobox', { name: 'Courier' }).click();
  await page.getByRole('option', { name: 'FedEx' }).click();
  await expect(dialog.getByTestId('courier-change-warning')).toContainText('history will be reloaded from FedEx');
  await dialog.getByRole('combobox', { name: 'Courier' }).click();
  await page.getByRole('option', { name: 'UPS' }).click();
  await expect(dialog.getByTestId('courier-change-warning')).toHaveCount(0);
  // An invalid contact blocks saving.
  await dialog.getByLabel('Notify email').fill('not-an-email');
  await dialog.getByLabel('Notify email').blur();
  await expect(dialog.getByRole('button', { name: 'Save changes' })).toBeDisabled();
  await dialog.getByLabel('Notify email').fill('');
  await dialog.getByLabel('Title').fill('Camera lens 50mm');
  await dialog.getByLabel('Note').fill('Leave with the neighbour');
  await dialog.getByRole('button', { name: 'Save changes' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Saved', { exact: true })).toBeVisible();
  await expect(row).toContainText('Camera lens 50mm');
  // The side panel shows the note and opens the same form, prefilled with the saved values.
  await row.click();
  const panel = page.getByRole('dialog', { name: 'Tracking details' });
  await expect(panel).toContainText('Leave with the neighbour');
  await panel.getByRole('button', { name: 'Edit' }).click();
  await expect(dialog.getByLabel('Title')).toHaveValue('Camera lens 50mm');
  await expect(dialog.getByLabel('Note')).toHaveValue('Leave with the neighbour');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
});

test('import a CSV, then filter and page', async () => {
  const lines = ['tid,courier,title'];
  for (let i = 0; i < 11; i++) lines.push(`1Z999AA1${String(1000000000 + i)},ups,Imported ${i}`);
  lines.push('9400111899223397623910,usps,A USPS parcel');
  await page.getByRole('button', { name: 'Import CSV' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import trackings from CSV' });
  await dialog
    .locator('input[type="file"]')
    .setInputFiles({ name: 'trackings.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n')) });
  await dialog.getByRole('button', { name: 'Import' }).click();
  await expect(dialog.getByTestId('import-result')).toContainText('12 of 12 rows imported');
  await dialog.getByRole('button', { name: 'Done' }).click();

  // 13 trackings: with 10 per page, Next appears, and page 2 holds the rest.
  await page.getByRole('combobox', { name: 'Per page' }).click();
  await page.getByRole('option', { name: '10', exact: true }).click();
  await expect(page.locator('[data-testid="trackings-table"] tbody tr')).toHaveCount(10);
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByTestId('page-info')).toContainText('Page 2 · 3 trackings');
  await expect(page.getByRole('button', { name: 'Next' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Prev' }).click();
  await expect(page.getByTestId('page-info')).toContainText('Page 1 · 10 trackings');

  // Courier filter: USPS only.
  await page.getByRole('combobox', { name: 'Courier' }).click();
  await page.getByRole('option', { name: 'USPS' }).click();
  await page.keyboard.press('Escape');
  await expect(page.locator('[data-testid="trackings-table"] tbody tr')).toHaveCount(1);
  await expect(page.locator('[data-testid="trackings-table"] tbody tr').first()).toContainText('9400111899223397623910');
});

test('change the theme', async () => {
  await page.goto('/account/profile/settings/profile/theme');
  const before = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--mantine-primary-color-filled'));
  await page.getByTestId('theme-C').click();
  await expect(page.getByTestId('theme-C')).toHaveAttribute('aria-checked', 'true');
  await expect
    .poll(() => page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--mantine-primary-color-filled')))
    .not.toBe(before);
  // Persisted in settings.themeid: still there after a reload.
  await page.reload();
  await expect(page.getByTestId('theme-C')).toHaveAttribute('aria-checked', 'true');
});

test('view, copy and regenerate the API key', async () => {
  await page.goto('/account/profile/settings/apiKey');
  await page.getByRole('button', { name: 'Show API key' }).click();
  const input = page.getByTestId('api-key');
  const oldKey = await input.inputValue();
  expect(oldKey.length).toBeGreaterThan(10);
  await page.getByRole('button', { name: 'Copy', exact: true }).click();
  await expect(page.getByText('API key copied to clipboard')).toBeVisible();
  await page.getByRole('button', { name: 'Regenerate API key' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Regenerate' }).click();
  await expect(input).not.toHaveValue(oldKey);
  // The old key no longer works against the API (asking for real HTTP statuses; by default it is 200 with code 401).
  const res = await page.request.get('/v1/trackings/get?numRecords=1', { headers: { 'sm-api-token': oldKey, 'sm-http-status': 'real' } });
  expect(res.status()).toBe(401);
});

test('sign out clears the session', async () => {
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/$/);
  expect(await page.evaluate(() => localStorage.getItem('shiptrail.session'))).toBeNull();
  await page.goto('/account/trackings');
  await expect(page).toHaveURL(/\/$/);
  // And logs back in with the password.
  await page.goto('/#tab-login');
  const form = page.getByRole('form', { name: 'Log in' });
  await form.getByRole('textbox', { name: 'Email' }).fill(email);
  await form.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
  await form.getByRole('button', { name: 'Log in', exact: true }).click();
  await expect(page).toHaveURL(/\/account\/dashboard$/);
});
