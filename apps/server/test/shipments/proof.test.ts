import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POD_LIMITS } from '@shiptrail/contract';
import { call, createTestEnv, type TestEnv } from '../helpers.ts';
import { TINY_PNG, company, courier, createShipment, readmeShipment } from './fixtures.ts';

let env: TestEnv;
let owner: Awaited<ReturnType<typeof company>>;
let rider: Awaited<ReturnType<typeof courier>>;
beforeAll(async () => {
  env = await createTestEnv();
  owner = await company(env.app);
  rider = await courier(env.app, owner.session);
});
afterAll(async () => {
  await env?.close();
});

const dataUrl = (type: string, bytes: Buffer) => `data:image/${type};base64,${bytes.toString('base64')}`;
/** A noisy photo (noise does not compress), the size of a phone camera's. */
async function cameraPhoto(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#000000', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .jpeg({ quality: 85 })
    .toBuffer();
}
const deliver = (tid: string, proof: unknown, token = rider.session) =>
  call(env.app, 'POST', '/v1/shipment/update', {
    token,
    body: { tid, status: 'Delivered', location: 'Front door', lat: 34.03, long: -118.48, proof },
  });
const shipmentOf = async (tid: string) => {
  const r = await call(env.app, 'POST', '/v1/shipment/getshipments', { token: owner.session, body: {} });
  return r.body.payload.find((s: { tid: string }) => s.tid === tid);
};

describe('proof of delivery on the Delivered checkpoint', () => {
  it('stores the name, the signature and a downscaled photo with the checkpoint; the public page shows the signer', async () => {
    const s = await createShipment(env.app, owner.session, readmeShipment(rider.email));
    const photo = await cameraPhoto(3000, 2000);
    const r = await deliver(s.tid, { recipientName: 'Rita Receiver', signature: TINY_PNG, photo: dataUrl('jpeg', photo) });
    expect(r.statusCode).toBe(200);
    const cp = r.body.payload.checkpoints[0];
    expect(cp).toMatchObject({
      status: 'Delivered',
      message: 'Delivered, signed by Rita Receiver',
      proof: { recipientName: 'Rita Receiver', hasSignature: true, hasPhoto: true },
      by: { role: 'courier' },
    });
    const proof = await call(env.app, 'GET', `/v1/shipment/proof/${s.tid}/${cp.id}`, { token: owner.session });
    expect(proof.statusCode).toBe(200);
    // The signature is stored re-encoded (pixels only): the same picture, maybe not the same bytes.
    const pixels = (url: string) =>
      sharp(Buffer.from(url.split(',')[1]!, 'base64'))
        .raw()
        .toBuffer({ resolveWithObject: true });
    expect(proof.body.payload.signature).toMatch(/^data:image\/png;base64,/);
    expect(await pixels(proof.body.payload.signature)).toEqual(await pixels(TINY_PNG));
    const stored = Buffer.from(proof.body.payload.photo.split(',')[1], 'base64');
    const meta = await sharp(stored).metadata();
    expect(meta.format).toBe('jpeg');
    expect(Math.max(meta.width!, meta.height!)).toBe(POD_LIMITS.photoMaxSide);
    expect(stored.length).toBeLessThanOrEqual(POD_LIMITS.photoStoredMaxBytes);
    expect(stored.length).toBeLessThan(photo.length);
    const pub = await call(env.app, 'GET', `/v1/track/${owner.profile.uid}_${s.tid}`);
    expect(pub.body.payload[0]).toMatchObject({
      status: 'Delivered',
      signedBy: 'Rita Receiver',
      checkpoints: [{ status: 'Delivered', signedBy: 'Rita Receiver' }, { signedBy: null }],
    });
    // The public page never carries the images.
    expect(JSON.stringify(pub.body.payload)).not.toContain('base64');
  });

  it('refuses bad or oversized uploads with a clear 400, and writes nothing', async () => {
    const s = await createShipment(env.app, owner.session, readmeShipment(rider.email));
    const before = await shipmentOf(s.tid);
    const bigSignature = await sharp({
      create: { width: 900, height: 900, channels: 4, background: '#000000', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
    })
      .png()
      .toBuffer();
    expect(bigSignature.length).toBeGreaterThan(POD_LIMITS.signatureMaxBytes);
    const cases: Array<[unknown, RegExp]> = [
      [{ recipientName: 'A', signature: dataUrl('png', bigSignature) }, /signature is too large/],
      [{ recipientName: 'A', signature: dataUrl('png', Buffer.from('not a png at all')) }, /signature is not a readable image/],
      [{ recipientName: 'A', signature: dataUrl('jpeg', await cameraPhoto(20, 20)) }, /signature must be a PNG/],
      [
        { recipientName: 'A', signature: TINY_PNG, photo: dataUrl('jpeg', Buffer.from('garbage bytes, not a jpeg')) },
        /photo is not a readable image/,
      ],
      [
        { recipientName: 'A', signature: TINY_PNG, photo: dataUrl('jpeg', Buffer.alloc(POD_LIMITS.photoMaxBytes + 1, 7)) },
        /photo is too large/,
      ],
      [{ recipientName: '', signature: TINY_PNG }, /Recipient name is required/],
      [{ recipientName: 'A' }, /Signature is required/],
    ];
    for (const [proof, message] of cases) {
      const r = await deliver(s.tid, proof);
      expect({ status: r.statusCode, message: r.body.message }).toEqual({ status: 400, message: expect.stringMatching(message) });
    }
    const notDelivered = await call(env.app, 'POST', '/v1/shipment/update', {
      token: rider.session,
      body: { tid: s.tid, status: 'InTransit', location: 'x', proof: { recipientName: 'A', signature: TINY_PNG } },
    });
    expect(notDelivered.statusCode).toBe(400);
    expect(notDelivered.body.payload.errors.proof).toBe('Proof of delivery goes with the Delivered status');
    const after = await shipmentOf(s.tid);
    expect(after.checkpoints).toEqual(before.checkpoints);
    expect(after.status).toBe(before.status);
  });
});
