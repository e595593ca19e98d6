import { expect, test } from '@playwright/test';
import { execSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, OwnServer, webDist } from './own-server';

// The service worker: installs the app shell, controls the page, serves the shell offline, and never keeps
// users on an old shell after a deploy.
//
// The deploy rebuilds the web app. The run's server serves apps/web/dist to the specs running beside this one (two
// workers), which a rebuild there would empty and rewrite under them: this file serves a copy of the build from a
// server of its own, and rebuilds into that copy. Its directory is named by the port, not made, when the file
// loads (the runner loads it too, and would leave one behind).
const port = freePort();
const dist = path.join(tmpdir(), `shiptrail-e2e-sw-dist-${port}`);
const server = new OwnServer(port, 'sw', dist);
test.use({ baseURL: server.base });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  rmSync(dist, { recursive: true, force: true });
  cpSync(webDist, dist, { recursive: true });
  await server.start();
});

test.afterAll(async () => {
  await server.kill9();
  rmSync(dist, { recursive: true, force: true });
  if (server.dataDir) rmSync(server.dataDir, { recursive: true, force: true });
});

const buildId = () => document.querySelector('meta[name="shiptrail-build"]')?.getAttribute('content') ?? '';

test('the service worker controls the page, works offline, and a rebuild shows on the next reload', async ({ page, context }) => {
  test.setTimeout(240_000);
  await page.goto('/');
  await page.evaluate(() => navigator.serviceWorker.ready);
  // clients.claim() hands the open page to the worker; wait for it.
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
  const firstId = await page.evaluate(buildId);
  expect(firstId).not.toBe('');
  await expect.poll(() => page.evaluate(() => caches.keys())).toEqual([`shiptrail-${firstId}`]);

  const manifest = await page.evaluate(async () => (await fetch('/manifest.webmanifest')).json());
  expect(manifest).toMatchObject({ name: 'Shiptrail', display: 'standalone' });
  for (const icon of manifest.icons as { src: string }[]) expect((await page.request.get(icon.src)).ok()).toBe(true);

  // A visit under the worker caches the page's chunks; offline, a navigation then gets the cached shell
  // and the app still renders.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  await context.setOffline(true);
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await context.setOffline(false);

  // A deploy: rebuild the web app with a changed index. The very next reload shows it.
  const nextId = `e2e-${Date.now()}`;
  execSync(`npx vite build --outDir ${dist} --emptyOutDir`, {
    cwd: process.cwd(),
    env: { ...process.env, SHELL_BUILD_ID: nextId },
    stdio: 'ignore',
  });
  await page.reload();
  await expect.poll(() => page.evaluate(buildId)).toBe(nextId);
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();

  // The new worker takes over and deletes the old deploy's cache.
  await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.update());
  await expect.poll(() => page.evaluate(() => caches.keys()), { timeout: 30_000 }).toEqual([`shiptrail-${nextId}`]);
});
