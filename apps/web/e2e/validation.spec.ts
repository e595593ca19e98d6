import { expect, test } from '@playwright/test';

// The server's words (packages/contract/src/messages.ts), written out: the E2E reads what a person reads.
const MSG = {
  recoverSent: 'If an account exists for this email, we sent a link to reset the password',
  messageSent: 'Thank you! We received your message and will reply soon.',
  resetLinkInvalid: 'This reset link is invalid or has expired',
};

// Validation messages of product rules §5, shown from the same contract schemas the server uses.

test('login form shows the spec messages and stays disabled while invalid', async ({ page }) => {
  await page.goto('/#tab-login');
  const form = page.getByRole('form', { name: 'Log in' });
  const email = form.getByRole('textbox', { name: 'Email' });
  const password = form.getByRole('textbox', { name: 'Password', exact: true });
  await email.focus();
  await email.blur();
  await expect(form.getByText('Email is required')).toBeVisible();
  await email.fill('not-an-email');
  await email.blur();
  await expect(form.getByText('Invalid email address')).toBeVisible();
  await password.fill('123');
  await password.blur();
  await expect(form.getByText('Must be 6 characters or greater than')).toBeVisible();
  await expect(form.getByRole('button', { name: 'Log in', exact: true })).toBeDisabled();
  await email.fill('someone@example.com');
  await password.fill('123456');
  await expect(form.getByRole('button', { name: 'Log in', exact: true })).toBeEnabled();
});

test('wrong credentials show a fail box', async ({ page }) => {
  await page.goto('/#tab-login');
  const form = page.getByRole('form', { name: 'Log in' });
  await form.getByRole('textbox', { name: 'Email' }).fill('nobody@example.com');
  await form.getByRole('textbox', { name: 'Password', exact: true }).fill('password1');
  await form.getByRole('button', { name: 'Log in', exact: true }).click();
  await expect(form.getByTestId('status-box')).toContainText('Invalid email or password');
});

test('register form checks passwords and terms', async ({ page }) => {
  await page.goto('/#tab-register');
  const form = page.getByRole('form', { name: 'Create an account' });
  await form.getByRole('textbox', { name: 'Email' }).fill('new@example.com');
  await form.getByRole('textbox', { name: 'Password', exact: true }).fill('short');
  await form.getByRole('textbox', { name: 'Password', exact: true }).blur();
  await expect(form.getByText('Must be 8 characters or greater than')).toBeVisible();
  await form.getByRole('textbox', { name: 'Password', exact: true }).fill('longenough');
  await form.getByLabel('Repeat password').fill('different');
  await form.getByLabel('Repeat password').blur();
  await expect(form.getByText('Passwords do not match')).toBeVisible();
  await form.getByLabel('Repeat password').fill('longenough');
  // Terms not ticked: still invalid.
  await expect(form.getByRole('button', { name: 'Create free account' })).toBeDisabled();
  await form.getByRole('checkbox').check();
  await expect(form.getByRole('button', { name: 'Create free account' })).toBeEnabled();
  await form.getByRole('checkbox').uncheck();
  await form.getByRole('checkbox').blur();
  await expect(form.getByText('Be sure to agree to the terms of service')).toBeVisible();
});

test('recover form checks the email', async ({ page }) => {
  await page.goto('/#tab-login');
  await page.getByRole('tab', { name: 'Recover' }).click();
  const form = page.getByRole('form', { name: 'Recover password' });
  const email = form.getByRole('textbox', { name: 'Email' });
  await email.fill('bad');
  await email.blur();
  await expect(form.getByText('Invalid email address')).toBeVisible();
  await email.fill('someone@example.com');
  await form.getByRole('button', { name: 'Send reset link' }).click();
  // The outcome, not the box: the box shows failures too (in red, role="alert").
  const box = form.getByTestId('status-box');
  await expect(box).toHaveAttribute('role', 'status');
  await expect(box).toContainText(MSG.recoverSent);
});

test('contact form validates and sends', async ({ page }) => {
  await page.goto('/get-in-touch');
  const form = page.getByRole('form', { name: 'Contact form' });
  await form.getByLabel('Full name').focus();
  await form.getByLabel('Full name').blur();
  await expect(form.getByText('Full name is required')).toBeVisible();
  await form.getByLabel('Phone').fill('12');
  await form.getByLabel('Phone').blur();
  await expect(form.getByText('Invalid phone number')).toBeVisible();
  await form.getByLabel('Message').focus();
  await form.getByLabel('Message').blur();
  await expect(form.getByText('Message is required')).toBeVisible();
  await form.getByLabel('Full name').fill('Jane Cooper');
  await form.getByRole('textbox', { name: 'Email' }).fill('jane@example.com');
  await form.getByLabel('Phone').fill('+1 212 555 0142');
  const words = `Hello, I would like a demo. (${Date.now()})`;
  await form.getByLabel('Message').fill(words);
  await form.getByRole('button', { name: 'Send message' }).click();
  const box = form.getByTestId('status-box');
  await expect(box).toHaveAttribute('role', 'status');
  await expect(box).toContainText(MSG.messageSent);
  // And the message reached the support inbox (the dev outbox stands in for it).
  await expect
    .poll(async () =>
      ((await (await page.request.get('/dev/mail/api')).json()) as Array<{ text: string }>).some((m) => m.text.includes(words)),
    )
    .toBe(true);
});

test('reset password form checks the confirmation, then reports a bad key', async ({ page }) => {
  await page.goto('/password/reset/not-a-real-key');
  const form = page.getByRole('form', { name: 'Reset password' });
  await form.getByLabel('New password').fill('abc');
  await form.getByLabel('New password').blur();
  await expect(form.getByText('Must be 8 characters or greater than')).toBeVisible();
  // Seven characters: refused, as at sign-up (decision 103).
  await form.getByLabel('New password').fill('abcdef1');
  await form.getByLabel('New password').blur();
  await expect(form.getByText('Must be 8 characters or greater than')).toBeVisible();
  await expect(form.getByRole('button', { name: 'Reset password' })).toBeDisabled();
  await form.getByLabel('New password').fill('abcdefg1');
  await form.getByLabel('Confirm password').fill('abcdefg2');
  await form.getByLabel('Confirm password').blur();
  await expect(form.getByText('Passwords do not match')).toBeVisible();
  await form.getByLabel('Confirm password').fill('abcdefg1');
  await form.getByRole('button', { name: 'Reset password' }).click();
  // Titles in words, never the raw "success" / "fail".
  await expect(page.getByTestId('reset-result')).toContainText('Could not change the password');
  await expect(page.getByTestId('reset-result')).toContainText(MSG.resetLinkInvalid);
  await expect(page.getByTestId('reset-result')).not.toContainText(/^fail/);
});

test('public pages render: tracking not found, developers docs, legal, bad verify key', async ({ page }) => {
  await page.goto('/track/nobody/NOPE123');
  await expect(page.getByRole('heading', { name: 'Shipment not found' })).toBeVisible();
  await page.goto('/developers');
  await expect(page.getByText('sm-api-token').first()).toBeVisible();
  await expect(page.getByText('/v1/trackings/add').first()).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Trackings' })).toBeVisible();
  await page.goto('/privacy-policy');
  await expect(page.getByText('February 07, 2019')).toBeVisible();
  await page.goto('/terms-of-service');
  await expect(page.getByText(/30 days after/)).toBeVisible();
  await page.goto('/verify/not-a-key');
  await expect(page.getByRole('heading', { name: 'We could not verify this link' })).toBeVisible();
});

test('logged-in routes redirect to the landing page without a session', async ({ page }) => {
  await page.goto('/account/dashboard');
  await expect(page).toHaveURL(/\/$/);
});

test('phone width: the navbar collapses behind a toggle', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/');
  await page.getByRole('button', { name: 'Toggle navigation' }).click();
  const nav = page.getByRole('navigation', { name: 'Mobile' });
  await expect(nav.getByRole('link', { name: 'Developers' })).toBeVisible();
  await nav.getByRole('link', { name: 'Get in touch' }).click();
  await expect(page).toHaveURL(/get-in-touch/);
});
