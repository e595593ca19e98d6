// The label PDF is rendered to an image with poppler's pdftoppm and its barcode read back with ZXing: what a
// scanner would read is the tracking number.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BarcodeFormat, BinaryBitmap, Code128Reader, DecodeHintType, HybridBinarizer, RGBLuminanceSource } from '@zxing/library';
import { PNG } from 'pngjs';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers.ts';
import { company, createShipment, readmeShipment } from './fixtures.ts';

const run = promisify(execFile);
let env: TestEnv;
let dir = '';
beforeAll(async () => {
  env = await createTestEnv();
  dir = await mkdtemp(path.join(os.tmpdir(), 'shm-labels-'));
});
afterAll(async () => {
  await env?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Decode the Code 128 barcode in a PNG file. */
function readBarcode(png: Buffer): string {
  const img = PNG.sync.read(png);
  const luminances = new Uint8ClampedArray(img.width * img.height);
  for (let i = 0; i < luminances.length; i++) {
    const r = img.data[i * 4]!;
    const g = img.data[i * 4 + 1]!;
    const b = img.data[i * 4 + 2]!;
    luminances[i] = (r * 299 + g * 587 + b * 114) / 1000;
  }
  const bitmap = new BinaryBitmap(new HybridBinarizer(new RGBLuminanceSource(luminances, img.width, img.height)));
  const hints = new Map<DecodeHintType, unknown>([
    [DecodeHintType.POSSIBLE_FORMATS, [BarcodeFormat.CODE_128]],
    [DecodeHintType.TRY_HARDER, true],
  ]);
  return new Code128Reader().decode(bitmap, hints).getText();
}

async function labels(token: string, tids: string[]) {
  return env.app.inject({ method: 'GET', url: `/v1/shipment/labels?tids=${tids.join(',')}`, headers: { 'sm-api-token': token } });
}

describe('GET /v1/shipment/labels', () => {
  it('renders a 4x6 in label whose barcode reads back as the tracking number', async () => {
    const c = await company(env.app);
    const s = await createShipment(env.app, c.session);
    const res = await labels(c.session, [s.tid]);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const pdf = res.rawPayload;
    const doc = await PDFDocument.load(pdf);
    expect(doc.getPageCount()).toBe(1);
    expect(doc.getPage(0).getSize()).toEqual({ width: 288, height: 432 });
    const file = path.join(dir, 'one.pdf');
    await writeFile(file, pdf);
    // 203 dpi, a thermal printer's resolution.
    await run('pdftoppm', ['-png', '-r', '203', file, path.join(dir, 'one')]);
    const [png] = (await readdir(dir)).filter((f) => f.startsWith('one') && f.endsWith('.png'));
    expect(readBarcode(await readFile(path.join(dir, png!)))).toBe(s.tid);
    // The printed text: sender, order id, ship-to and the number.
    const { stdout } = await run('pdftotext', ['-layout', file, '-']);
    for (const t of [
      'sender name',
      'sender city, CA 90403',
      'ORDER ID: 0113191348',
      'SHIP TO',
      'receiver address',
      'receiver city, CA 90401',
      s.tid,
      'Acme Deliveries',
    ])
      expect(stdout).toContain(t);
  });

  it('prints several shipments as one PDF, one page each, in the order asked', async () => {
    const c = await company(env.app);
    const a = await createShipment(env.app, c.session);
    const b = await createShipment(env.app, c.session, {
      ...readmeShipment(),
      orderId: 'B-2',
      destination: { ...readmeShipment().destination, name: 'Zoë Ünïcødé 测试' },
    });
    const res = await labels(c.session, [b.tid, a.tid]);
    expect(res.statusCode).toBe(200);
    const file = path.join(dir, 'two.pdf');
    await writeFile(file, res.rawPayload);
    expect((await PDFDocument.load(res.rawPayload)).getPageCount()).toBe(2);
    await run('pdftoppm', ['-png', '-r', '203', file, path.join(dir, 'two')]);
    const pngs = (await readdir(dir)).filter((f) => f.startsWith('two') && f.endsWith('.png')).sort();
    const read = await Promise.all(pngs.map(async (f) => readBarcode(await readFile(path.join(dir, f)))));
    expect(read).toEqual([b.tid, a.tid]);
  });

  it('refuses an empty list and names a number that is not yours', async () => {
    const c = await company(env.app);
    const none = await env.app.inject({
      method: 'GET',
      url: '/v1/shipment/labels?tids=',
      headers: { 'sm-api-token': c.session, 'sm-http-status': 'real' },
    });
    expect(none.statusCode).toBe(400);
    const other = await env.app.inject({
      method: 'GET',
      url: '/v1/shipment/labels?tids=SHM000000000000',
      headers: { 'sm-api-token': c.session, 'sm-http-status': 'real' },
    });
    expect(other.statusCode).toBe(404);
    expect(other.json().message).toContain('SHM000000000000');
  });
});
