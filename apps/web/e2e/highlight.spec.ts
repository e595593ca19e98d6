import { expect, test, type Route } from '@playwright/test';
import { apiPost, signUpViaApi, uniqueEmail } from './helpers';

// A tracking just added stands out in the list for 3 seconds (product rules §2, §9). On a slow connection the list
// that brings the new row can come later than that: the 3 seconds start when the row is there, so the person still
// sees which row is new.
test('on a slow connection the new row is still highlighted when the list brings it', async ({ page, request }) => {
  const token = await signUpViaApi(page, request, uniqueEmail('highlight'));
  await apiPost(request, token, '/v1/user/general/update', { profile: { showWizard: false } });
  await page.goto('/account/trackings');
  await expect(page.getByRole('button', { name: 'Add tracking' }).first()).toBeVisible({ timeout: 30_000 });

  // From now on the list answers 4 s late, more than the 3 s of the highlight.
  const slow = async (route: Route) => {
    await new Promise((r) => setTimeout(r, 4_000));
    await route.continue().catch(() => undefined);
  };
  await page.route('**/v1/trackings/get?*', slow);
  const tid = '1Z5R89390350075626';
  await page.getByRole('button', { name: 'Add tracking' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add New Tracking Number' });
  await dialog.getByRole('textbox', { name: 'Tracking number', exact: true }).fill(tid);
  await expect(dialog.getByTestId('detected-courier')).toContainText('UPS');
  await dialog.getByRole('button', { name: 'Add tracking' }).click();
  await expect(dialog).toBeHidden();
  const row = page.locator(`tr[data-tid="${tid}"]`);
  await expect(row).toBeVisible({ timeout: 30_000 });
  await expect(row).toHaveClass(/row-new/);
  await page.unroute('**/v1/trackings/get?*', slow);
  await expect(row).not.toHaveClass(/row-new/, { timeout: 10_000 });
});
