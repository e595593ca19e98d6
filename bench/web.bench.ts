// Web: the JavaScript the landing page really transfers in headless Chromium (bytes on the wire, as the
// browser's network layer counts them) against the 200 KB budget, the build's gzip estimate of the initial
// JavaScript, and load timings, all against the real server serving a fresh build, as `npm start` does.
import { spawn, execSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { BenchResult } from './lib/types.ts';
import { chromiumArgs, chromiumPath } from '../apps/web/scripts/chromium.mjs';
// @ts-expect-error plain ESM script without types
import { bundleSizes } from '../apps/web/scripts/bundle-size.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 7;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
const LANDING_BUDGET_KB = 200;

/**
 * Bytes received for each script the page loads, from the DevTools protocol: encodedDataLength of
 * Network.loadingFinished is what came over the wire (compressed body plus headers), which is what the
 * user pays for, unlike the decoded size or a build-time estimate.
 */
async function scriptTransfer(ctx: BrowserContext, page: Page) {
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Network.enable');
  const scripts = new Map<string, { url: string; encoding: string; body: number }>();
  const done = new Map<string, number>();
  cdp.on('Network.responseReceived', (e) => {
    // By content, not by resource type: a chunk fetched through <link rel="modulepreload"> is not typed Script.
    if (!/javascript/.test(e.response.mimeType) && !/\.m?js(\?|$)/.test(e.response.url)) return;
    const h = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
    scripts.set(e.requestId, {
      url: e.response.url,
      encoding: h['content-encoding'] ?? 'identity',
      body: Number(h['content-length'] ?? 0),
    });
  });
  cdp.on('Network.loadingFinished', (e) => done.set(e.requestId, e.encodedDataLength));
  return () => {
    let bytes = 0;
    let body = 0;
    const encodings = new Set<string>();
    for (const [id, s] of scripts) {
      bytes += done.get(id) ?? 0;
      body += s.body;
      encodings.add(s.encoding);
    }
    return { bytes, body, files: scripts.size, encodings: [...encodings].sort().join(' ') };
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function webBench(): Promise<BenchResult[]> {
  const dist = path.join(root, 'apps/web/dist');
  // Always a fresh build of the current code, as `npm start` does.
  execSync('npm run build --workspace apps/web', { cwd: root, stdio: 'ignore' });
  const sizes = bundleSizes(dist) as Record<string, { bytes: number; files: number }>;
  const results: BenchResult[] = [
    {
      name: 'web: initial JS (gzip)',
      metrics: Object.fromEntries(Object.entries(sizes).map(([k, v]) => [`${k} KB`, Math.round(v.bytes / 102.4) / 10])),
      note: 'entry + route chunk + their static imports, from the Vite manifest; landing budget 200 KB',
    },
  ];

  const executablePath = chromiumPath;
  if (!existsSync(executablePath))
    return [...results, { name: 'web: load timings', metrics: {}, note: `skipped: no Chromium at ${executablePath}` }];

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
        body: JSON.stringify({
          email: 'bench@example.com',
          password: 'password123',
          repassword: 'password123',
          terms: true,
          firstName: 'Bench',
        }),
      })
    ).json()) as { payload: { sessionToken: string; version: string } };
    await fetch(`${base}/v1/user/general/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sm-api-token': signup.payload.sessionToken },
      body: JSON.stringify({ profile: { showWizard: false } }),
    });

    const browser = await chromium.launch({ executablePath, args: chromiumArgs });
    try {
      const landing: number[] = [];
      const landingFcp: number[] = [];
      const dashboard: number[] = [];
      const firstPaintJs: number[] = [];
      const allJs: number[] = [];
      const allJsBodies: number[] = [];
      let jsFiles = 0;
      let encodings = '';
      for (let i = 0; i < RUNS; i++) {
        // A fresh context each run: cold cache, like a first visit. The service worker is blocked: once it
        // controls the page, the page's own network events no longer carry the bytes (the worker fetches
        // them), and its precache on a first visit is served from the HTTP cache the page just filled.
        const ctx = await browser.newContext({ serviceWorkers: 'block' });
        const page = await ctx.newPage();
        const transfer = await scriptTransfer(ctx, page);
        let t = performance.now();
        await page.goto(`${base}/`);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        landing.push(performance.now() - t);
        firstPaintJs.push(transfer().bytes);
        // The forms below the fold load right after the first paint: count them too, that is the page.
        await page.waitForLoadState('networkidle');
        const all = transfer();
        allJs.push(all.bytes);
        allJsBodies.push(all.body);
        jsFiles = all.files;
        encodings = all.encodings;
        landingFcp.push(await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN));
        await page.evaluate((s) => localStorage.setItem('shiptrail.session', JSON.stringify(s)), {
          token: signup.payload.sessionToken,
          version: signup.payload.version,
        });
        t = performance.now();
        await page.goto(`${base}/account/dashboard`);
        await page.getByText('Shipments by status').waitFor();
        dashboard.push(performance.now() - t);
        await ctx.close();
      }
      const r = (xs: number[]) => Math.round(median(xs));
      const kb = (xs: number[]) => Math.round(median(xs) / 102.4) / 10;
      const landingKb = kb(allJs);
      if (landingKb > LANDING_BUDGET_KB)
        console.error(`[bench] landing transfers ${landingKb} KB of JavaScript, over the ${LANDING_BUDGET_KB} KB budget`);
      results.push({
        name: 'web: landing JavaScript transferred (headless Chromium, cold cache, median of 7)',
        metrics: {
          'at heading visible KB': kb(firstPaintJs),
          'at network idle KB': landingKb,
          'of which bodies KB': kb(allJsBodies),
          files: jsFiles,
          'content-encoding': encodings,
          'budget KB': LANDING_BUDGET_KB,
          'within budget': landingKb <= LANDING_BUDGET_KB ? 'yes' : 'NO',
        },
        note: 'bytes received per script (CDP Network.loadingFinished encodedDataLength: body as sent plus response headers, about 1.1 KB a file over HTTP/1.1); the budget applies to the network-idle figure, headers included',
      });
      results.push({
        name: 'web: load timings (headless Chromium, cold cache, median of 7)',
        metrics: {
          'landing: heading visible ms': r(landing),
          'landing: first contentful paint ms': r(landingFcp),
          'dashboard (logged in): data shown ms': r(dashboard),
        },
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
