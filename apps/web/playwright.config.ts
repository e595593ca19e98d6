import { defineConfig, devices } from '@playwright/test';
import { execSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumArgs, chromiumPath } from './scripts/chromium.mjs';

// One server for the run, on a free port with a fresh data directory. The values go into process.env so the
// worker processes (which load this file again) agree with the runner.
if (!process.env.E2E_PORT) {
  process.env.E2E_PORT = execSync(
    `node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"`,
  )
    .toString()
    .trim();
}
if (!process.env.E2E_DATA_DIR) process.env.E2E_DATA_DIR = mkdtempSync(join(tmpdir(), 'shiptrail-e2e-'));

/**
 * A phone profile of Playwright's device list (viewport, touch, mobile layout, the device's user agent) run in
 * our Chromium: the iPhone profile names WebKit as its browser, which is dropped.
 */
function phone(name: 'Pixel 7' | 'iPhone 13') {
  const { defaultBrowserType: _browser, ...profile } = devices[name];
  return profile;
}
// The courier's and the customer's flows run on both phone profiles, by tap; the rest at a desk.
const PHONE_SPECS = /(courier-day|courier-offline2|offline|plan-day|recipient-live|scan)\.spec\.ts/;

const port = process.env.E2E_PORT;
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: './e2e',
  timeout: 90_000,
  // An expectation's timeout catches a hang; no test claims a speed by it (decision 170). At 10 s a settings page
  // still showed its loader when four spec files ran beside a server that had just started, at load 39 on two cores.
  expect: { timeout: 30_000 },
  // A file's tests run in order in one worker; two workers take files side by side against the one server
  // (decision 180: most of a test's time is waiting on the server, the sandbox's pace and the browser, not CPU).
  // Each test signs up its own accounts; what a spec must not share (a killed server, a rebuilt web app) has a
  // server of its own (e2e/own-server.ts). E2E_WORKERS=1 runs them one at a time as before.
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL,
    viewport: { width: 1366, height: 900 },
    trace: 'retain-on-failure',
    launchOptions: { executablePath: chromiumPath, args: chromiumArgs },
  },
  projects: [
    { name: 'desktop', testIgnore: PHONE_SPECS },
    { name: 'pixel-7', testMatch: PHONE_SPECS, use: phone('Pixel 7') },
    { name: 'iphone-13', testMatch: PHONE_SPECS, use: phone('iPhone 13') },
  ],
  webServer: {
    command: 'npm start',
    cwd: '../..',
    url: `${baseURL}/healthz`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: port,
      DATA_DIR: process.env.E2E_DATA_DIR,
      CARRIER_SANDBOX_PACE: '0.05',
      // Every spec signs up its own accounts from this one address: more than a person would in an hour.
      SIGNUPS_PER_HOUR: '100000',
      PUBLIC_URL: baseURL,
      // No tile server is reachable (a closed loopback port): the maps must fall back to their offline outlines.
      MAP_TILE_URL: 'http://127.0.0.1:9/{z}/{x}/{y}.png',
    },
  },
});
