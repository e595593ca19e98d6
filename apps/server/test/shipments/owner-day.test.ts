// The owner's day at the desk (issue 26): shipments created unassigned and assigned in bulk, labels that carry
// the note and use the page, the map's light list of every open shipment, and an uploaded logo.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { PNG } from 'pngjs';
import { MSG } from '@shiptrail/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brandStyleOf } from '../../src/modules/notifications/fanout.ts';
import { IMAGES_BUSY_MESSAGE, IMAGE_QUEUE_MAX, IMAGE_SLOTS, inImageSlot } from '../../src/modules/shipments/proof.ts';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { company, courier, createShipment, readmeShipment } from './fixtures.ts';

const run = promisify(execFile);
const REAL = { 'sm-http-status': 'real' };
let env: TestEnv;
let dir = '';
beforeAll(async () => {
  env = await createTestEnv();
  dir = await mkdtemp(path.join(os.tmpdir(), 'shm-owner-'));
});
afterAll(async () => {
  await env?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The README shipment with nobody assigned. */
function unassignedShipment(over: Record<string, unknown> = {}) {
  const { courier: _c, courierEmail: _e, ...rest } = readmeShipment();
  return { ...rest, unassigned: true, ...over };
}

describe('unassigned shipments and bulk assignment', () => {
  it('creates a shipment with nobody assigned when asked to, and still asks for a courier otherwise', async () => {
    const c = await company(env.app);
    const s = await createShipment(env.app, c.session, unassignedShipment());
    expect(s).toMatchObject({ courier: '', courierEmail: '', courierUid: null });
    expect(s.warning).toBeUndefined();
    const { courier: _c, courierEmail: _e, ...noCourier } = readmeShipment();
    const r = await call(env.app, 'POST', '/v1/shipment/create', { token: c.session, body: noCourier });
    expect(r.body.payload.errors).toEqual({ courier: 'Courier is required.', courierEmail: 'Courier is required.' });
    const bad = await call(env.app, 'POST', '/v1/shipment/create', { token: c.session, body: { ...noCourier, unassigned: 'yes' } });
    expect(bad.body.payload.errors).toMatchObject({ unassigned: 'unassigned must be true or false' });
  });

  it('assigns several shipments to a courier in one call, and unassigns them', async () => {
    const c = await company(env.app);
    const k = await courier(env.app, c.session);
    const tids: string[] = [];
    for (let i = 0; i < 3; i++) tids.push((await createShipment(env.app, c.session, unassignedShipment({ orderId: `ORD-${i}` }))).tid);
    expect((await call(env.app, 'POST', '/v1/shipment/getassigned', { token: k.session, body: {} })).body.payload).toHaveLength(0);

    const r = await call(env.app, 'POST', '/v1/shipment/assign', {
      token: c.session,
      body: { tids: tids.map((t) => t.toLowerCase()), courierEmail: k.email.toUpperCase() },
    });
    expect(r.statusCode).toBe(200);
    expect(r.body.message).toBe('3 shipments assigned to Carl Courier');
    expect(r.body.payload.map((s: { tid: string }) => s.tid)).toEqual(tids);
    for (const s of r.body.payload) expect(s).toMatchObject({ courier: 'Carl Courier', courierEmail: k.email, courierUid: k.uid });
    const mine = await call(env.app, 'POST', '/v1/shipment/getassigned', { token: k.session, body: {} });
    expect(mine.body.payload.map((s: { tid: string }) => s.tid).sort()).toEqual([...tids].sort());

    const un = await call(env.app, 'POST', '/v1/shipment/unassign', { token: c.session, body: { tids: tids.slice(0, 2).join(',') } });
    expect(un.statusCode).toBe(200);
    expect(un.body.message).toBe('2 shipments unassigned');
    for (const s of un.body.payload) expect(s).toMatchObject({ courier: '', courierEmail: '', courierUid: null });
    expect((await call(env.app, 'POST', '/v1/shipment/getassigned', { token: k.session, body: {} })).body.payload).toHaveLength(1);
  });

  it('is all or nothing: a shipment of another company or an outside courier changes nothing', async () => {
    const c = await company(env.app);
    const other = await company(env.app);
    const k = await courier(env.app, c.session);
    const theirCourier = await courier(env.app, other.session);
    const mine = (await createShipment(env.app, c.session, unassignedShipment())).tid;
    const theirs = (await createShipment(env.app, other.session, unassignedShipment())).tid;

    const r = await call(env.app, 'POST', '/v1/shipment/assign', {
      token: c.session,
      body: { tids: [mine, theirs], courierEmail: k.email },
    });
    expect(r.statusCode).toBe(404);
    expect(r.body.message).toBe(`${MSG.shipmentNotFound}: ${theirs}`);
    const outside = await call(env.app, 'POST', '/v1/shipment/assign', {
      token: c.session,
      body: { tids: [mine], courierEmail: theirCourier.email },
    });
    expect(outside.statusCode).toBe(400);
    expect(outside.body.payload.errors).toEqual({ courierEmail: MSG.notYourCourier });
    const stranger = await call(env.app, 'POST', '/v1/shipment/assign', {
      token: c.session,
      body: { tids: [mine], courierEmail: 'nobody@example.com' },
    });
    expect(stranger.body.message).toBe(MSG.notYourCourier);
    const list = await call(env.app, 'POST', '/v1/shipment/getshipments', { token: c.session, body: {} });
    expect(list.body.payload[0]).toMatchObject({ tid: mine, courierUid: null, courierEmail: '' });
    const theirList = await call(env.app, 'POST', '/v1/shipment/getshipments', { token: other.session, body: {} });
    expect(theirList.body.payload[0]).toMatchObject({ tid: theirs, courierUid: null });

    // Only the owner: a courier and a person are refused; empty and missing fields get their messages.
    expect(
      (await call(env.app, 'POST', '/v1/shipment/assign', { token: k.session, body: { tids: [mine], courierEmail: k.email } })).statusCode,
    ).toBe(403);
    const person = await signUp(env.app);
    expect((await call(env.app, 'POST', '/v1/shipment/unassign', { token: person.apiKey, body: { tids: [mine] } })).statusCode).toBe(403);
    const empty = await call(env.app, 'POST', '/v1/shipment/assign', { token: c.session, body: { tids: [] } });
    expect(empty.body.payload.errors).toEqual({ tids: 'Choose at least one shipment', courierEmail: MSG.courierRequiredForAssign });
  });
});

describe('labels', () => {
  it('print the note and use the whole page', async () => {
    const c = await company(env.app);
    const s = await createShipment(env.app, c.session, unassignedShipment({ message: 'Fragile: glass' }));
    const res = await env.app.inject({ method: 'GET', url: `/v1/shipment/labels?tids=${s.tid}`, headers: { 'sm-api-token': c.session } });
    expect(res.statusCode).toBe(200);
    const file = path.join(dir, 'note.pdf');
    await writeFile(file, res.rawPayload);
    const { stdout } = await run('pdftotext', ['-layout', file, '-']);
    expect(stdout).toContain('NOTE');
    expect(stdout).toContain('Fragile: glass');
    await run('pdftoppm', ['-png', '-r', '72', file, path.join(dir, 'note')]);
    const [png] = (await readdir(dir)).filter((f) => f.startsWith('note') && f.endsWith('.png'));
    const img = PNG.sync.read(await readFile(path.join(dir, png!)));
    // The lowest printed row: within the bottom 10% of the page (the old layout left the bottom third empty).
    let lowest = 0;
    for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) if (img.data[(y * img.width + x) * 4]! < 128) lowest = y;
    expect(lowest / img.height).toBeGreaterThan(0.9);
  });
});

describe('POST /v1/shipment/markers', () => {
  it("answers every open shipment, past the list's 100, a page at a time, filtered by status", async () => {
    const c = await company(env.app, { email: `markers${Date.now()}@example.com` });
    await call(env.app, 'POST', '/v1/user/general/addbalance', { token: c.session, body: { amount: 20 } });
    const tids: string[] = [];
    for (let i = 0; i < 104; i++) tids.push((await createShipment(env.app, c.session, unassignedShipment())).tid);
    await call(env.app, 'POST', '/v1/shipment/update', {
      token: c.session,
      body: { tid: tids[0], status: 'Delivered', location: 'Door', lat: 34.05, long: -118.25 },
    });
    await call(env.app, 'POST', '/v1/shipment/update', {
      token: c.session,
      body: { tid: tids[1], status: 'OutForDelivery', location: 'Van', lat: 34.1, long: -118.3 },
    });

    const all = await call(env.app, 'POST', '/v1/shipment/markers', { token: c.session, body: {} });
    expect(all.statusCode).toBe(200);
    expect(all.body.payload.nextTid).toBeNull();
    expect(all.body.payload.markers).toHaveLength(103);
    expect(all.body.payload.markers.map((m: { tid: string }) => m.tid)).not.toContain(tids[0]);
    const moving = all.body.payload.markers.find((m: { tid: string }) => m.tid === tids[1]);
    expect(moving).toEqual({
      tid: tids[1],
      status: 'OutForDelivery',
      courier: '',
      origin: { lat: 34.032016, long: -118.482805 },
      position: { lat: 34.1, long: -118.3 },
      destination: { lat: 34.032016, long: -118.482805 },
      originCity: 'sender city, CA',
      destinationCity: 'receiver city, CA',
    });

    // Paged: 40 at a time, every open one exactly once.
    const seen: string[] = [];
    let after: string | null | undefined;
    do {
      const page = await call(env.app, 'POST', '/v1/shipment/markers', {
        token: c.session,
        body: { numRecords: 40, afterTid: after ?? undefined },
      });
      seen.push(...page.body.payload.markers.map((m: { tid: string }) => m.tid));
      after = page.body.payload.nextTid;
    } while (after);
    expect(seen).toHaveLength(103);
    expect(new Set(seen).size).toBe(103);

    const delivered = await call(env.app, 'POST', '/v1/shipment/markers', { token: c.session, body: { status: 'Delivered' } });
    expect(delivered.body.payload.markers.map((m: { tid: string }) => m.tid)).toEqual([tids[0]]);
    const bad = await call(env.app, 'POST', '/v1/shipment/markers', { token: c.session, body: { status: ['Lost'] } });
    expect(bad.statusCode).toBe(400);

    // Another company sees none of them; a person is refused.
    const other = await company(env.app);
    expect((await call(env.app, 'POST', '/v1/shipment/markers', { token: other.session, body: {} })).body.payload.markers).toEqual([]);
    const person = await signUp(env.app);
    expect((await call(env.app, 'POST', '/v1/shipment/markers', { token: person.apiKey, body: {} })).statusCode).toBe(403);
  }, 120_000);
});

describe('the company logo', () => {
  const dataUrl = (type: string, bytes: Buffer) => `data:image/${type};base64,${bytes.toString('base64')}`;

  it('takes a PNG or JPEG, re-encodes it at most 512 px a side, and serves it from our origin to everyone', async () => {
    const c = await company(env.app);
    const big = await sharp({ create: { width: 1200, height: 600, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 1 } } })
      .png()
      .toBuffer();
    const r = await call(env.app, 'POST', '/v1/user/general/logo', { token: c.session, body: { image: dataUrl('png', big) } });
    expect(r.statusCode).toBe(200);
    expect(r.body.message).toBe('Logo saved');
    const logo = r.body.payload.logo as string;
    expect(logo).toMatch(new RegExp(`^/v1/brand/logo/${c.profile.uid}\\.png\\?v=\\d+$`));
    const info = await call(env.app, 'GET', '/v1/user/info', { token: c.session });
    expect(info.body.payload.profile.image).toBe(logo);

    const served = await env.app.inject({ method: 'GET', url: logo });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    const meta = await sharp(served.rawPayload).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 512, height: 256 });

    // The public page's brand and the customer mails point at it (mails in full, with the public address).
    const s = await createShipment(env.app, c.session, unassignedShipment());
    const pub = await call(env.app, 'GET', `/v1/track/${c.profile.uid}_${s.tid}`);
    expect(pub.body.payload[0].brand.logo).toBe(logo);
    expect(
      brandStyleOf({ ...(info.body.payload.profile as object), image: logo, settings: {} } as never, 'https://ship.example').logo,
    ).toBe(`https://ship.example${logo}`);

    const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#123456' } })
      .jpeg()
      .toBuffer();
    const j = await call(env.app, 'POST', '/v1/user/general/logo', { token: c.session, body: { image: dataUrl('jpeg', jpeg) } });
    expect(j.statusCode).toBe(200);
    expect((await sharp((await env.app.inject({ method: 'GET', url: j.body.payload.logo })).rawPayload).metadata()).format).toBe('png');

    const removed = await call(env.app, 'POST', '/v1/user/general/logo/remove', { token: c.session });
    expect(removed.body.payload).toEqual({ logo: '' });
    expect((await env.app.inject({ method: 'GET', url: j.body.payload.logo, headers: REAL })).statusCode).toBe(404);
    expect((await call(env.app, 'GET', '/v1/user/info', { token: c.session })).body.payload.profile.image).toBe('');
  });

  it('takes its turn in the image slot the proof photos use: with the slot and its queue full, 503 in words, nothing saved', async () => {
    const c = await company(env.app);
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    // Hold the slot and fill its queue with work that ends when we say.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = Array.from({ length: IMAGE_SLOTS + IMAGE_QUEUE_MAX }, () => inImageSlot(() => gate));
    try {
      const r = await call(env.app, 'POST', '/v1/user/general/logo', { token: c.session, body: { image: dataUrl('png', png) } });
      expect(r.statusCode).toBe(503);
      expect(r.body.message).toBe(IMAGES_BUSY_MESSAGE);
      expect((await call(env.app, 'GET', '/v1/user/info', { token: c.session })).body.payload.profile.image).toBe('');
    } finally {
      release();
      await Promise.all(held);
    }
    // The slot free again, the same upload goes through.
    const ok = await call(env.app, 'POST', '/v1/user/general/logo', { token: c.session, body: { image: dataUrl('png', png) } });
    expect(ok.statusCode).toBe(200);
  });

  it('refuses what is not a PNG or JPEG, a lying type, a pixel bomb, too many bytes, and people', async () => {
    const c = await company(env.app);
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const bomb = await sharp({ create: { width: 6000, height: 6000, channels: 3, background: '#fff' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    const cases: Array<[string, string]> = [
      [dataUrl('gif', gif), MSG.logoUnreadable],
      [dataUrl('svg+xml', svg), MSG.logoUnreadable],
      [dataUrl('jpeg', png), MSG.logoUnreadable],
      [dataUrl('png', Buffer.from('not an image at all')), MSG.logoUnreadable],
      [dataUrl('png', Buffer.concat([png.subarray(0, 40)])), MSG.logoUnreadable],
      [dataUrl('png', bomb), MSG.logoUnreadable],
      ['https://example.com/logo.png', MSG.logoUnreadable],
      ['', MSG.logoRequired],
      [dataUrl('png', Buffer.concat([png, Buffer.alloc(2 * 1024 * 1024)])), 'The logo is too large (at most 2 MB)'],
    ];
    for (const [image, message] of cases) {
      const r = await call(env.app, 'POST', '/v1/user/general/logo', { token: c.session, body: { image } });
      expect(r.statusCode, message).toBe(400);
      expect(r.body.message).toBe(message);
    }
    expect((await call(env.app, 'GET', '/v1/user/info', { token: c.session })).body.payload.profile.image).toBe('');
    const person = await signUp(env.app);
    expect(
      (await call(env.app, 'POST', '/v1/user/general/logo', { token: person.apiKey, body: { image: dataUrl('png', png) } })).statusCode,
    ).toBe(403);
    expect((await env.app.inject({ method: 'GET', url: '/v1/brand/logo/..%2F..%2Fetc.png', headers: REAL })).statusCode).toBe(404);
    expect((await env.app.inject({ method: 'GET', url: `/v1/brand/logo/${c.profile.uid}.png`, headers: REAL })).statusCode).toBe(404);
  }, 120_000);
});
