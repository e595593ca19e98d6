import { expect, test } from '@playwright/test';
import { linkFromOutbox, signUpViaApi, uniqueEmail } from './helpers';

// Decision 109: an unverified company is told, where it sets what its customers get, that those messages are
// held until it verifies its email; once verified, the notice is gone.
test('customer notification settings say messages are held until the email is verified', async ({ page, request }) => {
  const email = uniqueEmail('held');
  await signUpViaApi(page, request, email, 'company');
  await page.goto('/account/profile/settings/triggers/sendNotifications');
  const notice = page.getByTestId('customer-messages-held');
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('held until you verify your email address');
  await page.screenshot({ path: 'test-results/customer-messages-held.png', fullPage: true });

  await page.goto(await linkFromOutbox(request, email, '/verify/'));
  await expect(page).toHaveURL(/\/account\/dashboard/);
  await page.goto('/account/profile/settings/triggers/sendNotifications');
  await expect(page.getByRole('form', { name: 'Notifications sent to your customers' })).toBeVisible();
  await expect(page.getByTestId('customer-messages-held')).toHaveCount(0);
});
