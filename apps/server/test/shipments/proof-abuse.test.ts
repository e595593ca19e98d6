import { pngOf } from './png.ts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POD_LIMITS } from '@shiptrail/contract';
import { call, createTestEnv, type TestEnv } from '../helpers.ts';
import {
  headerSize,
  sniffFormat,
  PHOTO_FORMAT_MESSAGE,
  PHOTO_PIXELS_MESSAGE,
  SIGNATURE_SIZE_MESSAGE,
} from '../../src/modules/shipments/proof.ts';
import { PROOF_UPLOADS_MESSAGE } from '../../src/modules/shipments/shipments.service.ts';
import { TINY_PNG, company, courier, createShipment, readmeShipment, updateShipment } from './fixtures.ts';

// The attack of 2026-11-26 (the attack review of that day, findings 1 and 6): images that are not what
// they say, or that declare more pixels than anyone draws or photographs.

let env: TestEnv;
let owner: Awaited<ReturnType<typeof company>>;
let rider: Awaited<ReturnType<typeof courier>>;
beforeAll(async () => {
  env = await createTestEnv({ PROOF_UPLOADS_PER_HOUR: '1000' });
  owner = await company(env.app);
  rider = await courier(env.app, owner.session);
});
afterAll(async () => {
  await env?.close();
});

const dataUrl = (type: string, bytes: Buffer) => `data:image/${type};base64,${bytes.toString('base64')}`;
const deliver = (e: TestEnv, token: string, tid: string, proof: unknown) =>
  updateShipment(e.app, token, { tid, status: 'Delivered', location: 'Front door', proof });

const SMALL_SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300"><rect width="300" height="300" fill="red"/></svg>',
);

describe('what the photo and the signature may be', () => {
  it('refuses an SVG, a GIF or a TIFF sent as a photo under a JPEG or PNG label, with a clear message, before decoding', async () => {
    const s = await createShipment(env.app, owner.session, readmeShipment(rider.email));
    const gif = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#336699' } })
      .gif()
      .toBuffer();
    const tiff = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#336699' } })
      .tiff()
      .toBuffer();
    for (const [type, bytes] of [
      ['png', SMALL_SVG],
      ['png', gif],
      ['jpeg', tiff],
      ['webp', SMALL_SVG],
    ] as const) {
      const r = await deliver(env, rider.session, s.tid, { recipientName: 'Bob', signature: TINY_PNG, photo: dataUrl(type, bytes) });
      expect({ status: r.statusCode, message: r.body.message, field: r.body.payload?.errors?.['proof.photo'] }).toEqual({
        status: 400,
        message: PHOTO_FORMAT_MESSAGE,
        field: PHOTO_FORMAT_MESSAGE,
      });
    }
    // An SVG as the signature is no PNG either.
    const sig = await deliver(env, rider.session, s.tid, { recipientName: 'Bob', signature: dataUrl('png', SMALL_SVG) });
    expect([sig.statusCode, sig.body.message]).toEqual([400, 'The signature is not a readable image']);
  });

  it('refuses a photo whose header declares more pixels than allowed, from the header alone', async () => {
    const s = await createShipment(env.app, owner.session, readmeShipment(rider.email));
    const side = Math.ceil(Math.sqrt(POD_LIMITS.photoMaxPixels)) + 1;
    const r = await deliver(env, rider.session, s.tid, {
      recipientName: 'Bob',
      signature: TINY_PNG,
      photo: dataUrl('png', pngOf(side, side)),
    });
    expect([r.statusCode, r.body.message]).toEqual([400, PHOTO_PIXELS_MESSAGE]);
  });

  it('refuses a 31 KB signature that declares 16000 x 16000 pixels', async () => {
    const bomb = pngOf(16_000, 16_000);
    expect(bomb.length).toBeLessThan(POD_LIMITS.signatureMaxBytes);
    const s = await createShipment(env.app, owner.session, readmeShipment(rider.email));
    const r = await deliver(env, rider.session, s.tid, { recipientName: 'Bob', signature: dataUrl('png', bomb) });
    expect({ status: r.statusCode, message: r.body.message, field: r.body.payload?.errors?.['proof.signature'] }).toEqual({
      status: 400,
      message: SIGNATURE_SIZE_MESSAGE,
      field: SIGNATURE_SIZE_MESSAGE,
    });
    // Just inside the bound is a signature like any other.
    const edge = await deliver(env, rider.session, s.tid, {
      recipientName: 'Bob',
      signature: dataUrl('png', pngOf(POD_LIMITS.signatureMaxWidth, POD_LIMITS.signatureMaxHeight)),
    });
    expect(edge.statusCode).toBe(200);
  });

  it('stores the signature re-encoded: text chunks and bytes after the end are gone, the pixels stay', async () => {
    const s = await createShipment(env.app, owner.session, readmeShipment(rider.email));
    // A stroke across a transparent pad, drawn pixel by pixel (sharp here loads only what the server allows).
    const raw = Buffer.alloc(300 * 120 * 4);
    for (let x = 10; x < 290; x++)
      for (let dy = 0; dy < 3; dy++) raw.writeUInt32BE(0x111111ff, ((Math.round(60 + 40 * Math.sin(x / 40)) + dy) * 300 + x) * 4);
    const drawn = await sharp(raw, { raw: { width: 300, height: 120, channels: 4 } })
      .png()
      .withMetadata({ exif: { IFD0: { Copyright: 'EXIF-MARKER-123' } } })
      .toBuffer();
    const planted = Buffer.concat([drawn, Buffer.from('<script>alert(1)</script>')]);
    const r = await deliver(env, rider.session, s.tid, { recipientName: 'Bob', signature: dataUrl('png', planted) });
    expect(r.statusCode).toBe(200);
    const proof = await call(env.app, 'GET', `/v1/shipment/proof/${s.tid}/${r.body.payload.checkpoints[0].id}`, { token: owner.session });
    const stored = Buffer.from(proof.body.payload.signature.split(',')[1], 'base64');
    expect(stored.toString('latin1')).not.toContain('<script>');
    expect(stored.toString('latin1')).not.toContain('EXIF-MARKER-123');
    expect(stored.toString('latin1')).not.toContain('eXIf');
    const [a, b] = await Promise.all([
      sharp(stored).raw().toBuffer({ resolveWithObject: true }),
      sharp(drawn).raw().toBuffer({ resolveWithObject: true }),
    ]);
    expect(a.info).toMatchObject({ width: 300, height: 120 });
    expect(a.data.equals(b.data)).toBe(true);
  });

  it('reads the dimensions of JPEG (baseline and progressive), PNG and WebP (lossy, lossless, extended) headers', async () => {
    const base = sharp({ create: { width: 321, height: 123, channels: 4, background: { r: 10, g: 20, b: 30, alpha: 0.5 } } });
    const cases: Array<[Buffer, string]> = [
      [await base.clone().jpeg().toBuffer(), 'jpeg'],
      [
        await base
          .clone()
          .jpeg({ progressive: true })
          .withMetadata({ exif: { IFD0: { Copyright: 'x' } } })
          .toBuffer(),
        'jpeg',
      ],
      [await base.clone().png().toBuffer(), 'png'],
      [await base.clone().webp({ quality: 50 }).toBuffer(), 'webp'],
      [await base.clone().webp({ lossless: true }).toBuffer(), 'webp'],
      [
        await base
          .clone()
          .webp()
          .withMetadata({ exif: { IFD0: { Copyright: 'x' } } })
          .toBuffer(),
        'webp',
      ],
    ];
    for (const [bytes, format] of cases) {
      expect(sniffFormat(bytes)).toBe(format);
      expect(headerSize(bytes, format as 'png')).toEqual({ width: 321, height: 123 });
    }
    expect(sniffFormat(SMALL_SVG)).toBeNull();
    expect(headerSize(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00]), 'jpeg')).toBeNull();
  });
});

describe('proof uploads per account', () => {
  it('refuses the upload past PROOF_UPLOADS_PER_HOUR with a 429 and a wait; other accounts are not affected', async () => {
    const limited = await createTestEnv({ PROOF_UPLOADS_PER_HOUR: '3' });
    try {
      const boss = await company(limited.app);
      const carl = await courier(limited.app, boss.session);
      const s = await createShipment(limited.app, boss.session, readmeShipment(carl.email));
      for (let i = 0; i < 3; i++)
        expect((await deliver(limited, carl.session, s.tid, { recipientName: 'Bob', signature: TINY_PNG })).statusCode).toBe(200);
      const refused = await deliver(limited, carl.session, s.tid, { recipientName: 'Bob', signature: TINY_PNG });
      expect([refused.statusCode, refused.body.message]).toEqual([429, PROOF_UPLOADS_MESSAGE]);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(60);
      // A checkpoint without a proof is not an upload.
      expect((await updateShipment(limited.app, carl.session, { tid: s.tid, status: 'InTransit', location: 'x' })).statusCode).toBe(200);
      // The owner's own uploads are counted on the owner's account.
      expect((await deliver(limited, boss.session, s.tid, { recipientName: 'Bob', signature: TINY_PNG })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
