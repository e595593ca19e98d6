// Screenshots of every page at desktop and phone widths, for a visual check.
// Usage: BASE=http://127.0.0.1:3300 OUT=/tmp/shots node scripts/screenshots.mjs [filter]
import { chromium } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { chromiumArgs, chromiumPath } from './chromium.mjs';

const BASE = process.env.BASE ?? 'http://127.0.0.1:3300';
const OUT = process.env.OUT ?? '/tmp/shots';
const filter = process.argv[2];
mkdirSync(OUT, { recursive: true });

async function api(path, body, token) {
  const res = await fetch(BASE + path, {
    method: body ? 'POST' : 'GET',
    headers: { 'content-type': 'application/json', ...(token ? { 'sm-api-token': token } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
}

const email = `shots+${Date.now()}@example.com`;
const signup = await api('/v1/user/general/signup', {
  email,
  password: 'password1',
  repassword: 'password1',
  terms: true,
  userType: 'company',
  firstName: 'Avery',
  lastName: 'Stone',
});
const session = signup.payload;
const token = session.sessionToken;
for (const tid of ['1Z999AA10123456784', '9400111899223397623910', '122816215025810', '1Z12345E0205271688', '7316971234567890']) {
  await api(
    '/v1/trackings/add',
    {
      tid,
      courier: null,
      title: `Order ${tid.slice(-4)}`,
      orderId: `ORD-${tid.slice(-3)}`,
      customer: 'Jane Cooper',
      notify: { email: 'jane@example.com' },
    },
    token,
  );
}
const list = await api('/v1/trackings/get?numRecords=5', undefined, token);
const first = list.payload?.[0];

const publicPages = [
  ['landing', '/'],
  ['landing-register', '/#tab-register'],
  ['pricing', '/#pricing'],
  ['get-in-touch', '/get-in-touch'],
  ['developers', '/developers'],
  ['terms', '/terms-of-service'],
  ['privacy', '/privacy-policy'],
  ['track', first ? `/track/${first.uid}/${first.tid}` : '/track/x/y'],
  ['track-missing', '/track/nobody/NOPE'],
  ['verify-bad', '/verify/not-a-key'],
  ['reset', '/password/reset/some-key'],
  ['not-found', '/nope'],
  // The return from Google with no state: the panel must explain the failure in words.
  ['google-return', '/?code=abc'],
];
const accountPages = [
  ['wizard', '/account/init'],
  ['dashboard', '/account/dashboard'],
  ['trackings', '/account/trackings'],
  ['notifications', '/account/notifications'],
  ['invite', '/account/invite'],
  ['support', '/account/support'],
  ['alerts', '/account/alerts'],
  ['settings-profile', '/account/profile/settings'],
  ['settings-theme', '/account/profile/settings/profile/theme'],
  ['settings-apikey', '/account/profile/settings/apiKey'],
  ['settings-triggers', '/account/profile/settings/triggers/receiveNotification'],
  ['settings-payment', '/account/profile/settings/payment/add'],
];

/** Waits until the page shows content rather than a loader (fixed sleeps are too short on a busy machine). */
async function settle(page) {
  await page.waitForLoadState('networkidle');
  await page
    .waitForFunction(() => !document.querySelector('[role="status"][aria-label="Loading"], .mantine-Loader-root'), null, {
      timeout: 20_000,
    })
    .catch(() => {});
  await page.waitForTimeout(400);
}

const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
for (const [vp, size] of [
  ['desktop', { width: 1366, height: 900 }],
  ['phone', { width: 390, height: 844 }],
]) {
  const ctx = await browser.newContext({ viewport: size, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.error(`[${vp}] pageerror`, e.message));
  page.on('console', (m) => m.type() === 'error' && console.error(`[${vp}] console`, m.text()));
  for (const [name, path] of publicPages) {
    if (filter && !name.includes(filter)) continue;
    await page.goto(BASE + path);
    await settle(page);
    await page.screenshot({ path: `${OUT}/${vp}-${name}.png`, fullPage: !['landing-register', 'pricing', 'google-return'].includes(name) });
  }
  await page.goto(BASE + '/');
  await page.evaluate((s) => localStorage.setItem('shiptrail.session', JSON.stringify(s)), { token, version: session.version });
  for (const [name, path] of accountPages) {
    if (filter && !name.includes(filter)) continue;
    await page.goto(BASE + path);
    await settle(page);
    await page.screenshot({ path: `${OUT}/${vp}-${name}.png`, fullPage: true });
  }
  if (!filter || 'support-too-long'.includes(filter)) {
    // A validation error: a support message over the limit.
    await page.goto(BASE + '/account/support');
    await settle(page);
    await page.getByLabel('Message').fill('x'.repeat(5020));
    await page.getByLabel('Message').blur();
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${OUT}/${vp}-support-too-long.png` });
  }
  if (!filter || 'trackings-panel'.includes(filter)) {
    await page.goto(BASE + '/account/trackings');
    await settle(page);
    // Phones get one card per tracking instead of the table.
    await page
      .locator('[data-testid="trackings-table"] tbody tr, [data-testid="trackings-cards"] li button[aria-label^="Open"]')
      .first()
      .click();
    await page.waitForTimeout(600);
    await page.screenshot({ path: `${OUT}/${vp}-trackings-panel.png` });
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Add tracking' }).first().click();
    await page.getByRole('textbox', { name: 'Tracking number', exact: true }).fill('1Z999AA10123456784');
    await page.waitForTimeout(1200);
    await page.screenshot({ path: `${OUT}/${vp}-trackings-add.png` });
  }
  if (vp === 'phone' && (!filter || 'menu'.includes(filter))) {
    await page.goto(BASE + '/account/dashboard');
    await page.getByRole('button', { name: 'Toggle navigation' }).click();
    await page.waitForTimeout(400);
    await page.screenshot({ path: `${OUT}/${vp}-account-menu.png` });
    await page.evaluate(() => localStorage.clear());
    await page.goto(BASE + '/');
    await page.getByRole('button', { name: 'Toggle navigation' }).click();
    await page.waitForTimeout(400);
    await page.screenshot({ path: `${OUT}/${vp}-public-menu.png` });
  }
  await ctx.close();
}
await browser.close();
console.log('screenshots in', OUT);
