import { expect, test, type Page } from '@playwright/test';
import { linkFromOutbox, signUpViaApi, uniqueEmail } from './helpers';

// Promo and invite links land on the registration form with the code and the referrer filled in, and the
// real pages keep their own routes.

async function submitSignup(page: Page, email: string) {
  const form = page.getByRole('form', { name: 'Create an account' });
  await form.getByRole('textbox', { name: 'Email' }).fill(email);
  await form.getByRole('textbox', { name: 'Password', exact: true }).fill('password1');
  await form.getByLabel('Repeat password').fill('password1');
  await form.getByRole('checkbox').check();
  const sent = page.waitForRequest((r) => r.url().endsWith('/v1/user/general/signup') && r.method() === 'POST');
  await form.getByRole('button', { name: 'Create free account' }).click();
  return (await sent).postDataJSON() as { promocode?: string; referrer?: string };
}

test('/{promocode}/{userID} opens registration with the promo code and sends both', async ({ page }) => {
  await page.goto('/SPRING10/4242');
  const form = page.getByRole('form', { name: 'Create an account' });
  // The form loads after the first paint, in a chain of lazy chunks: allow for a busy CI machine.
  await expect(form.getByRole('textbox', { name: 'Promo code' })).toHaveValue('SPRING10', { timeout: 30_000 });
  const body = await submitSignup(page, uniqueEmail('promo-ref'));
  expect(body).toMatchObject({ promocode: 'SPRING10', referrer: '4242' });
  await expect(page).toHaveURL(/\/account\/init$/);
});

test('/{promocode} alone and /referrer/{userID} prefill registration too', async ({ page, browser }) => {
  await page.goto('/WELCOME5');
  await expect(page.getByRole('form', { name: 'Create an account' }).getByRole('textbox', { name: 'Promo code' })).toHaveValue('WELCOME5', {
    timeout: 30_000,
  });

  const ctx = await browser.newContext();
  const other = await ctx.newPage();
  await other.goto('/referrer/777');
  await expect(other.getByRole('form', { name: 'Create an account' }).getByRole('textbox', { name: 'Promo code' })).toHaveValue('', {
    timeout: 30_000,
  });
  const body = await submitSignup(other, uniqueEmail('referrer'));
  expect(body.referrer).toBe('777');
  expect(body.promocode).toBeUndefined();
  await ctx.close();
});

test('the promo route does not swallow real pages', async ({ page }) => {
  await page.goto('/get-in-touch');
  await expect(page.getByRole('form', { name: 'Contact form' })).toBeVisible();
  await page.goto('/developers');
  await expect(page.getByRole('form', { name: 'Create an account' })).toHaveCount(0);
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  for (const path of ['/verify', '/track/abc', '/account-x/1/2', '/robots.txt']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: 'Page not found' }), path).toBeVisible();
    await expect(page.getByRole('form', { name: 'Create an account' }), path).toHaveCount(0);
  }
});

test('a failed verification link offers to resend the activation email to a signed-in user', async ({ page, request }) => {
  const email = uniqueEmail('resend');
  await signUpViaApi(page, request, email);
  await page.goto('/verify/not-a-real-key');
  await expect(page.getByRole('heading', { name: 'We could not verify this link' })).toBeVisible();
  await page.getByRole('button', { name: 'Resend activation email' }).click();
  await expect(page.getByTestId('resend-result')).toBeVisible();
  // The new mail's link works: the address is verified and the user lands on the dashboard.
  const link = await linkFromOutbox(request, email, '/verify/');
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Email verified' })).toBeVisible();
  await expect(page).toHaveURL(/\/account\/dashboard$/);
});

test('a failed verification link sends a signed-out user to log in instead', async ({ page }) => {
  await page.goto('/verify/not-a-real-key');
  await expect(page.getByRole('heading', { name: 'We could not verify this link' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Resend activation email' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Go to log in' }).click();
  await expect(page.getByRole('form', { name: 'Log in' })).toBeVisible();
});
