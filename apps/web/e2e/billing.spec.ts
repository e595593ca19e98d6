import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { apiPost, signUpViaApi, uniqueEmail } from './helpers';

const shots = process.env.BILLING_SHOTS;
const shot = async (page: import('@playwright/test').Page, name: string) => {
  if (shots) await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
};

test('billing with nothing configured: sandbox card, top-up, history, receipt PDF, autofill, automatic recharge', async ({
  page,
  request,
}) => {
  // The billing screens are a lazily loaded chunk; on a busy machine the first paint of each page can be slow.
  test.setTimeout(240_000);
  const slow = { timeout: 30_000 };
  const token = await signUpViaApi(page, request, uniqueEmail('billing'));
  const sent: string[] = [];
  page.on('request', (r) => sent.push(r.postData() ?? ''));

  // Add a sandbox card: the number is turned into a test nonce in the browser.
  await page.goto('/account/profile/settings/payment/add');
  await expect(page.getByTestId('sandbox-badge').first()).toBeVisible(slow);
  await page.getByLabel('Card number').fill('4111 1111 1111 1111');
  await page.getByLabel('Expiry').fill('12/30');
  await page.getByLabel('CVV').fill('123');
  await page.getByLabel('Postal code').fill('94107');
  await page.getByRole('button', { name: 'Save card' }).click();
  await expect(page.getByText('Visa ending in 1111')).toBeVisible();
  expect(sent.some((b) => b.includes('4111'))).toBe(false);
  await shot(page, '1-payment-add');

  // Top up $20 (the default quick amount).
  await page.goto('/account/profile/settings/balance');
  await expect(page.getByRole('button', { name: 'Add Balance' })).toBeEnabled(slow);
  await page.getByRole('button', { name: 'Add Balance' }).click();
  await expect(page.getByTestId('billing-balance')).toHaveText('$30.00');
  await shot(page, '2-balance');

  // The history row, and its receipt.
  await page.goto('/account/profile/settings/paymentHistory');
  const row = page.getByTestId('payment-history').getByRole('row').nth(1);
  await expect(row).toContainText('$20.00', slow);
  await expect(row).toContainText('Top-up');
  await shot(page, '3-history');
  await row.getByRole('link', { name: 'View receipt' }).click();
  await expect(page.getByText('Payment Receipt')).toBeVisible(slow);
  await expect(page.getByTestId('receipt-total')).toHaveText('20.00 USD');
  await shot(page, '4-receipt');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save as PDF' }).click()]);
  expect(download.suggestedFilename()).toBe('invoice.pdf');
  expect(
    readFileSync(await download.path())
      .subarray(0, 5)
      .toString(),
  ).toBe('%PDF-');

  // Autofill: $20 whenever the balance falls under $50.
  await page.goto('/account/profile/settings/payment/autofill');
  await expect(page.getByRole('button', { name: 'Save automatic top-up' })).toBeVisible(slow);
  await page.getByRole('switch', { name: 'Automatic top-up' }).check();
  await page.getByTestId('amountAutoRecharge-quick-20').click();
  await page.getByTestId('minimumBalanceForAutoRecharge-quick-50').click();
  await page.getByRole('button', { name: 'Save automatic top-up' }).click();
  await expect(page.getByText('Automatic top-up saved').first()).toBeVisible();
  await shot(page, '5-autofill');

  // Spend: one tracking takes the balance ($30) further under the minimum, so one recharge happens.
  const added = (await apiPost(request, token, '/v1/trackings/add', { tid: '1Z5R89390350075608' })) as { status: string };
  expect(added.status).toBe('success');
  await expect
    .poll(
      async () => {
        await page.goto('/account/profile/settings/paymentHistory');
        await expect(page.getByTestId('payment-history')).toBeVisible(slow);
        return page.getByTestId('payment-history').getByText('Automatic top-up').count();
      },
      { timeout: 60_000 },
    )
    .toBe(1);
  await shot(page, '6-recharged');
  await page.goto('/account/profile/settings/paymentHistory/usage');
  await expect(page.getByTestId('usage-table')).toContainText('$0.05', slow);
  await shot(page, '7-usage');
});
