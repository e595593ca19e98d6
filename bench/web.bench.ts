// Web: initial JavaScript (gzip) of the landing page, the dashboard and the trackings page, and load
// timings in headless Chromium against the real server serving the built app (design.md §6, issue 6).
import { spawn, execSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { BenchResult } from './lib/types.ts';
// @ts-expect-error plain ESM script without types
import { bundleSizes } from '../apps/web/scripts/bundle-size.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 7;
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function webBench(): Promise<BenchResult[]> {
  const dist = path.join(root, 'apps/web/dist');
  if (!existsSync(path.join(dist, '.vite/manifest.json'))) execSync('npm run build --workspace apps/web', { cwd: root, stdio: 'ignore' });
  const sizes = bundleSizes(dist) as Record<string, { bytes: number; files: number }>;
  const results: BenchResult[] = [
    {
      name: 'web: initial JS (gzip)',
      metrics: Object.fromEntries(Object.entries(sizes).map(([k, v]) => [`${k} KB`, Math.round(v.bytes / 102.4) / 10])),
      note: 'entry + route chunk + their static imports, from the Vite manifest; landing budget 200 KB',
    },
  ];

  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) return [...results, { name: 'web: load timings', metrics: {}, note: `skipped: no Chromium at ${executablePath}` }];

  const port = await freePort();
  const dataDir = mkdtempSync('/tmp/st-webbench-');
  const server = spawn(path.join(root, 'node_modules/.bin/tsx'), ['apps/server/src/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if ((await fetch(`${base}/healthz`).catch(() => null))?.ok) break;
      if (i > 600) throw new Error('server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const signup = (await (
      await fetch(`${base}/v1/user/general/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bench@example.com', password: 'password123', repassword: 'password123', terms: true, firstName: 'Bench' }),
      })
    ).json()) as { payload: { sessionToken: string; version: string } };
    await fetch(`${base}/v1/user/general/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sm-api-token': signup.payload.sessionToken },
      body: JSON.stringify({ profile: { showWizard: false } }),
    });

    const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    try {
      const landing: number[] = [];
      const landingFcp: number[] = [];
      const dashboard: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        // A fresh context each run: cold cache, like a first visit.
        const ctx = await browser.newContext();
        const page = await ctx.newPage();
        let t = performance.now();
        await page.goto(`${base}/`);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        landing.push(performance.now() - t);
        landingFcp.push(await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN));
        await page.evaluate((s) => localStorage.setItem('shiptrail.session', JSON.stringify(s)), { token: signup.payload.sessionToken, version: signup.payload.version });
        t = performance.now();
        await page.goto(`${base}/account/dashboard`);
        await page.getByText('Shipments by status').waitFor();
        dashboard.push(performance.now() - t);
        await ctx.close();
      }
      const r = (xs: number[]) => Math.round(median(xs));
      results.push({
        name: 'web: load timings (headless Chromium, cold cache, median of 7)',
        metrics: { 'landing: heading visible ms': r(landing), 'landing: first contentful paint ms': r(landingFcp), 'dashboard (logged in): data shown ms': r(dashboard) },
        note: 'served by the real server on loopback; dashboard time includes /v1/user/info',
      });
    } finally {
      await browser.close();
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}
