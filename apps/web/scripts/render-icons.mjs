// Usage: node scripts/render-icons.mjs public/icons  (writes icon-192.png and icon-512.png from icon.svg)
// Renders the app icon SVG to PNGs through Chromium (no image library needed).
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
const dir = process.argv[2];
const svg = readFileSync(`${dir}/icon.svg`, 'utf8');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
for (const size of [192, 512]) {
  const page = await browser.newPage({ viewport: { width: size, height: size } });
  await page.setContent(`<html><body style="margin:0">${svg.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`);
  await page.screenshot({ path: `${dir}/icon-${size}.png`, clip: { x: 0, y: 0, width: size, height: size } });
  await page.close();
}
await browser.close();
