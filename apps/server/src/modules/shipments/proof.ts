import { POD_LIMITS, type ProofInput } from '@shiptrail/contract';
import { badRequest } from '../../lib/errors.ts';

/** A proof of delivery ready to store: every image checked, the photo downscaled. */
export interface PreparedProof {
  recipientName: string;
  signature: Buffer;
  photo: Buffer | null;
  photoType: string | null;
}

export const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function decode(dataUrl: string, field: string): { type: string; bytes: Buffer } {
  const m = /^data:image\/(png|jpeg|webp);base64,(.*)$/s.exec(dataUrl.trim());
  if (!m) throw badRequest(`The ${field} must be an image data URL`, { [`proof.${field}`]: `The ${field} must be an image data URL` });
  return { type: m[1]!, bytes: Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64') };
}

const tooLarge = (field: string, max: number) => {
  const msg = `The ${field} is too large (at most ${Math.round(max / 1024)} KB)`;
  return badRequest(msg, { [`proof.${field}`]: msg });
};
const notAnImage = (field: string) => {
  const msg = `The ${field} is not a readable image`;
  return badRequest(msg, { [`proof.${field}`]: msg });
};

type SharpFn = typeof import('sharp').default;
let sharpLoaded: Promise<SharpFn | null> | undefined;
/** sharp is a native module; where it cannot load, photos are only size-capped and checked, not downscaled. */
export function loadSharp(): Promise<SharpFn | null> {
  sharpLoaded ??= import('sharp').then((m) => m.default).catch(() => null);
  return sharpLoaded;
}

/**
 * Check and shrink the images before any database work, so a bad upload is refused with nothing written.
 * The signature must be a PNG within its cap; the photo (JPEG, PNG or WebP) is decoded, turned upright,
 * scaled to at most POD_LIMITS.photoMaxSide a side and stored as JPEG.
 */
export async function prepareProof(p: { recipientName: string; signature: string; photo?: string }): Promise<PreparedProof> {
  const sig = decode(p.signature, 'signature');
  if (sig.type !== 'png') throw notAnImage('signature');
  if (sig.bytes.length > POD_LIMITS.signatureMaxBytes) throw tooLarge('signature', POD_LIMITS.signatureMaxBytes);
  if (sig.bytes.length < PNG_MAGIC.length || !sig.bytes.subarray(0, 8).equals(PNG_MAGIC)) throw notAnImage('signature');
  const sharp = await loadSharp();
  if (sharp) {
    const meta = await sharp(sig.bytes).metadata().catch(() => null);
    if (!meta || meta.format !== 'png') throw notAnImage('signature');
  }
  if (!p.photo) return { recipientName: p.recipientName, signature: sig.bytes, photo: null, photoType: null };

  const photo = decode(p.photo, 'photo');
  if (photo.bytes.length > POD_LIMITS.photoMaxBytes) throw tooLarge('photo', POD_LIMITS.photoMaxBytes);
  if (!sharp) {
    if (photo.bytes.length > POD_LIMITS.photoStoredMaxBytes) throw tooLarge('photo', POD_LIMITS.photoStoredMaxBytes);
    return { recipientName: p.recipientName, signature: sig.bytes, photo: photo.bytes, photoType: photo.type };
  }
  let out: Buffer;
  try {
    out = await sharp(photo.bytes, { limitInputPixels: 50_000_000 })
      .rotate()
      .resize({ width: POD_LIMITS.photoMaxSide, height: POD_LIMITS.photoMaxSide, fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 75 })
      .toBuffer();
  } catch {
    throw notAnImage('photo');
  }
  if (out.length > POD_LIMITS.photoStoredMaxBytes) {
    out = await sharp(out).jpeg({ quality: 50 }).toBuffer();
    if (out.length > POD_LIMITS.photoStoredMaxBytes) throw tooLarge('photo', POD_LIMITS.photoStoredMaxBytes);
  }
  return { recipientName: p.recipientName, signature: sig.bytes, photo: out, photoType: 'jpeg' };
}

export type { ProofInput };
