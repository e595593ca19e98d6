import { expect, test } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { uniqueEmail } from './helpers';

/**
 * reCAPTCHA switched on: a second server with RECAPTCHA_SECRET and RECAPTCHA_SITE_KEY set, and a loopback
 * stand-in for Google that serves both halves: api.js (the invisible widget's ready/render/execute/reset,
 * handing out tokens it remembers) and siteverify (accepting only those tokens, each once).
 */
const SITE_KEY = 'e2e-site-key';
const SECRET = 'e2e-secret';

const FAKE_API_JS = `(() => {
  const widgets = [];
  let n = 0;
  window.grecaptcha = {
    ready(cb) { setTimeout(cb, 0); },
    render(el, params) {
      if (params.sitekey !== ${JSON.stringify(SITE_KEY)} || params.size !== 'invisible') throw new Error('bad render params');
      widgets.push(params);
      el.setAttribute('data-fake-recaptcha', 'invisible');
      return widgets.length - 1;
    },
    execute(id) {
      const w = widgets[id ?? 0];
      setTimeout(() => w.callback('fake-token-' + (++n) + '-' + Math.random().toString(36).slice(2)), 20);
    },
    reset() {},
  };
})();`;

let fake: Server;
let fakeUrl = '';
const verified: string[] = [];
let app: ChildProcess;
let appUrl = '';
let dataDir = '';

function listen(server: Server): Promise<number> {
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as AddressInfo).port)));
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  fake = createServer((req, res) => {
    if (req.url?.startsWith('/recaptcha/api.js')) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(FAKE_API_JS);
      return;
    }
    if (req.method === 'POST' && req.url === '/recaptcha/api/siteverify') {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const form = new URLSearchParams(raw);
        const token = form.get('response') ?? '';
        const ok = form.get('secret') === SECRET && token.startsWith('fake-token-') && !verified.includes(token);
        if (ok) verified.push(token);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: ok }));
      });
      return;
    }
    res.writeHead(404).end();
  });
  fakeUrl = `http://127.0.0.1:${await listen(fake)}`;

  const probe = createServer();
  const port = await listen(probe);
  await new Promise((r) => probe.close(r));
  dataDir = mkdtempSync(join(tmpdir(), 'shiptrail-e2e-recaptcha-'));
  const root = resolve(process.cwd(), '../..');
  // The web app is already built (the main E2E server's `npm start` did it); run the server alone.
  app = spawn(join(root, 'node_modules/.bin/tsx'), ['apps/server/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      RECAPTCHA_SECRET: SECRET,
      RECAPTCHA_SITE_KEY: SITE_KEY,
      RECAPTCHA_SCRIPT_URL: `${fakeUrl}/recaptcha/api.js`,
      RECAPTCHA_VERIFY_URL: `${fakeUrl}/recaptcha/api/siteverify`,
    },
    stdio: 'ignore',
  });
  appUrl = `http://127.0.0.1:${port}`;
  await expect
    .poll(async () => (await fetch(`${appUrl}/healthz`).catch(() => null))?.ok ?? false, { timeout: 150_000, intervals: [250] })
    .toBe(true);
});

test.afterAll(async () => {
  if (app && app.exitCode === null) {
    app.kill('SIGTERM');
    await new Promise((r) => app.once('exit', r));
  }
  await new Promise((r) => fake?.close(r));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('with reCAPTCHA on, sign-up, log-in and the contact form send a token the server verifies', async ({ page, browser }) => {
  const email = uniqueEmail('recaptcha');
  await page.goto(`${appUrl}/#tab-register`);
  const form = page.getByRole('form', { name: 'Create an account' });
  await form.getByLabel('First name').fill('Casey');
  await form.getByRole('textbox', { name: 'Email' }).fill(email);
  await form.getByRole('textbox', { name: 'Password', exact: true }).fill('password1');
  await form.getByLabel('Repeat password').fill('password1');
  await form.getByRole('checkbox').check();
  await form.getByRole('button', { name: 'Create free account' }).click();
  await expect(page).toHaveURL(/\/account\/init$/);
  expect(verified).toHaveLength(1);
  await expect(page.locator('[data-fake-recaptcha="invisible"]')).toHaveCount(1);

  // Log in again from a fresh browser profile: the widget gives a new token, a used one would be refused.
  const other = await browser.newContext();
  const login = await other.newPage();
  await login.goto(`${appUrl}/#tab-login`);
  const lf = login.getByRole('form', { name: 'Log in' });
  await lf.getByRole('textbox', { name: 'Email' }).fill(email);
  await lf.getByRole('textbox', { name: 'Password' }).fill('password1');
  await lf.getByRole('button', { name: 'Log in', exact: true }).click();
  await expect(login).toHaveURL(/\/account\/(init|dashboard)$/);
  expect(verified).toHaveLength(2);
  await other.close();

  await page.goto(`${appUrl}/get-in-touch`);
  const contact = page.getByRole('form', { name: 'Contact form' });
  await contact.getByLabel('Full name').fill('Casey Doe');
  await contact.getByRole('textbox', { name: 'Email' }).fill(email);
  await contact.getByLabel('Message').fill('Hello from the reCAPTCHA test.');
  await contact.getByRole('button', { name: 'Send message' }).click();
  await expect(page.getByTestId('status-box')).toHaveAttribute('role', 'status');
  await expect.poll(() => verified.length).toBe(3);
});

test('without a site key the page loads no reCAPTCHA script at all', async ({ page, baseURL }) => {
  const foreign: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(baseURL!)) foreign.push(r.url());
  });
  await page.goto('/#tab-register');
  await expect(page.getByRole('form', { name: 'Create an account' })).toBeVisible({ timeout: 30_000 });
  await page.waitForLoadState('networkidle');
  expect(foreign).toEqual([]);
  expect(await page.evaluate(() => 'grecaptcha' in window)).toBe(false);
});
