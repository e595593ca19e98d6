import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { apiPost, signUpViaApi, uniqueEmail } from './helpers';

// Decision 129: a company ticks "Courier a few stops away" / "Courier arriving now" for its customers like a status,
// and sets how many stops and how many meters; a value out of bounds is refused in words, not silently changed.
mkdirSync('test-results/approach-settings', { recursive: true });

test('a company chooses when its customers hear that the courier is coming', async ({ page, request }) => {
  const token = await signUpViaApi(page, request, uniqueEmail('approach-settings'), 'company');
  await apiPost(request, token, '/v1/user/general/update', { profile: { company: 'Near Co', showWizard: false } });
  await page.goto('/account/profile/settings/triggers/sendNotifications');
  const grid = page.getByRole('form', { name: 'Notifications sent to your customers' });
  await expect(grid).toBeVisible({ timeout: 20_000 });
  await grid.getByRole('checkbox', { name: 'SMS on Courier arriving now' }).check();
  await grid.getByRole('checkbox', { name: 'Email on Courier a few stops away' }).check();
  await grid.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved').first()).toBeVisible();

  const approach = page.getByRole('form', { name: 'When the courier is coming' });
  const stops = approach.getByLabel('Courier a few stops away: this many stops or fewer');
  await expect(stops).toHaveValue('3');
  await expect(approach.getByLabel('Courier arriving now: within (meters)')).toHaveValue('150');
  await stops.fill('25');
  await stops.blur();
  // Out of bounds: the value stays as typed and the field says why, in the contract's words (no silent change).
  await expect(stops).toHaveValue('25');
  const refused = 'Stops away must be a whole number from 1 to 20';
  await expect(approach.getByText(refused)).toBeVisible();
  await approach.getByRole('button', { name: 'Save' }).click();
  await expect(approach.getByText(refused)).toBeVisible();
  await stops.fill('2');
  await expect(approach.getByText(refused)).toHaveCount(0);
  await approach.getByLabel('Courier arriving now: within (meters)').fill('300');
  await approach.getByRole('button', { name: 'Save' }).click();
  await expect
    .poll(async () => {
      const info = (await (await request.get('/v1/user/info', { headers: { 'sm-api-token': token } })).json()) as {
        payload: { settings: { approach: unknown; sendNotification: { email: { triggers: Record<string, boolean> } } } };
      };
      return info.payload.settings.approach;
    })
    .toEqual({ stops: 2, meters: 300 });
  await page.setViewportSize({ width: 1366, height: 768 });
  await approach.scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/approach-settings/settings-1366.png' });
});
