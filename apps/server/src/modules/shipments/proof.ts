import { POD_LIMITS, type ProofInput } from '@shiptrail/contract';
import { badRequest, unavailable } from '../../lib/errors.ts';

/** A proof of delivery ready to store: every image checked, the signature re-encoded, the photo downscaled. */
export interface PreparedProof {
  recipientName: string;
  signature: Buffer;
  photo: Buffer | null;
  photoType: string | null;
}

export type ImageFormat = 'png' | 'jpeg' | 'webp';

function decode(dataUrl: string, field: string): { type: string; bytes: Buffer } {
  const m = /^data:image\/(png|jpeg|webp);base64,(.*)$/s.exec(dataUrl.trim());
  if (!m) throw badRequest(`The ${field} must be an image data URL`, { [`proof.${field}`]: `The ${field} must be an image data URL` });
  return { type: m[1]!, bytes: Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64') };
}

const refuse = (field: string, msg: string) => badRequest(msg, { [`proof.${field}`]: msg });
const tooLarge = (field: string, max: number) => refuse(field, `The ${field} is too large (at most ${Math.round(max / 1024)} KB)`);
const notAnImage = (field: string) => refuse(field, `The ${field} is not a readable image`);
export const PHOTO_FORMAT_MESSAGE = 'The photo is not a readable image: send a JPEG, PNG or WebP picture';
export const PHOTO_PIXELS_MESSAGE = `The photo is too large (at most ${POD_LIMITS.photoMaxPixels / 1_000_000} megapixels)`;
export const SIGNATURE_SIZE_MESSAGE = `The signature is too large (at most ${POD_LIMITS.signatureMaxWidth} x ${POD_LIMITS.signatureMaxHeight} pixels)`;
export const IMAGES_BUSY_MESSAGE = 'The server is busy with other pictures: try again in a minute';

export const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The format the bytes are, from their magic numbers alone: only the three we decode are named. */
export function sniffFormat(b: Buffer): ImageFormat | null {
  if (b.length >= 8 && b.subarray(0, 8).equals(PNG_MAGIC)) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 16 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return null;
}

// JPEG start-of-frame markers (they carry the dimensions); C4, C8 and CC are other segments.
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** Width and height read from the header of an image sniffFormat named, or null when the header is not there. */
export function headerSize(b: Buffer, format: ImageFormat): { width: number; height: number } | null {
  if (format === 'png') {
    if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (format === 'webp') {
    if (b.length < 30) return null;
    const chunk = b.toString('latin1', 12, 16);
    if (chunk === 'VP8 ' && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a)
      return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    if (chunk === 'VP8L' && b[20] === 0x2f) {
      const bits = b.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    if (chunk === 'VP8X') return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
    return null;
  }
  // JPEG: walk the segments up to the first start of frame.
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null;
    const len = b.readUInt16BE(i + 2);
    if (SOF.has(marker)) return i + 9 <= b.length ? { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) } : null;
    if (len < 2) return null;
    i += 2 + len;
  }
  return null;
}

type SharpFn = typeof import('sharp').default;
let sharpLoaded: Promise<SharpFn | null> | undefined;
/**
 * sharp is a native module; where it cannot load, images are only size-capped and checked, not re-encoded.
 * Loaded, libvips may only load JPEG, PNG and WebP from memory (no SVG, TIFF, GIF, PDF, HEIF, ...), whatever
 * the bytes say, and uses one thread per image.
 */
export function loadSharp(): Promise<SharpFn | null> {
  sharpLoaded ??= import('sharp')
    .then((m) => {
      const sharp = m.default;
      sharp.block({ operation: ['VipsForeignLoad'] });
      sharp.unblock({ operation: ['VipsForeignLoadJpegBuffer', 'VipsForeignLoadPngBuffer', 'VipsForeignLoadWebpBuffer'] });
      sharp.concurrency(1);
      return sharp;
    })
    .catch(() => null);
  return sharpLoaded;
}

/**
 * Image work runs on libuv's thread pool, which also hashes passwords (argon2), reads files and resolves names:
 * at most IMAGE_SLOTS images at a time, so a burst of uploads leaves the rest of the pool to logins. A few more
 * wait their turn; past that the upload is refused (503) rather than queued without end.
 */
export const IMAGE_SLOTS = 1;
export const IMAGE_QUEUE_MAX = 16;
let running = 0;
const waiting: Array<() => void> = [];
export async function inImageSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= IMAGE_SLOTS) {
    if (waiting.length >= IMAGE_QUEUE_MAX) throw unavailable(IMAGES_BUSY_MESSAGE);
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

const decodeOptions = (maxPixels: number) => ({ limitInputPixels: maxPixels, failOn: 'error' as const, pages: 1 });

/**
 * Check and re-encode the images before any database work, so a bad upload is refused with nothing written.
 * Nothing reaches the decoder unless its bytes are a PNG (signature) or a JPEG, PNG or WebP (photo) and its header
 * declares no more pixels than allowed. The signature is stored re-encoded as a PNG (pixels only: no metadata, no
 * trailing bytes); the photo is turned upright, scaled to at most POD_LIMITS.photoMaxSide a side and stored as JPEG.
 */
export async function prepareProof(p: { recipientName: string; signature: string; photo?: string }): Promise<PreparedProof> {
  const sig = decode(p.signature, 'signature');
  if (sig.type !== 'png') throw notAnImage('signature');
  if (sig.bytes.length > POD_LIMITS.signatureMaxBytes) throw tooLarge('signature', POD_LIMITS.signatureMaxBytes);
  if (sniffFormat(sig.bytes) !== 'png') throw notAnImage('signature');
  const sigSize = headerSize(sig.bytes, 'png');
  if (!sigSize || sigSize.width < 1 || sigSize.height < 1) throw notAnImage('signature');
  if (sigSize.width > POD_LIMITS.signatureMaxWidth || sigSize.height > POD_LIMITS.signatureMaxHeight)
    throw refuse('signature', SIGNATURE_SIZE_MESSAGE);

  let photo: { bytes: Buffer; format: ImageFormat } | null = null;
  if (p.photo) {
    const d = decode(p.photo, 'photo');
    if (d.bytes.length > POD_LIMITS.photoMaxBytes) throw tooLarge('photo', POD_LIMITS.photoMaxBytes);
    const format = sniffFormat(d.bytes);
    if (!format) throw refuse('photo', PHOTO_FORMAT_MESSAGE);
    const size = headerSize(d.bytes, format);
    if (!size || size.width < 1 || size.height < 1) throw notAnImage('photo');
    if (size.width * size.height > POD_LIMITS.photoMaxPixels) throw refuse('photo', PHOTO_PIXELS_MESSAGE);
    photo = { bytes: d.bytes, format };
  }

  const sharp = await loadSharp();
  if (!sharp) {
    if (photo && photo.bytes.length > POD_LIMITS.photoStoredMaxBytes) throw tooLarge('photo', POD_LIMITS.photoStoredMaxBytes);
    return { recipientName: p.recipientName, signature: sig.bytes, photo: photo?.bytes ?? null, photoType: photo?.format ?? null };
  }
  return inImageSlot(async () => {
    const sigPixels = POD_LIMITS.signatureMaxWidth * POD_LIMITS.signatureMaxHeight;
    const signature = await sharp(sig.bytes, decodeOptions(sigPixels))
      .png({ compressionLevel: 9 })
      .toBuffer()
      .catch(() => {
        throw notAnImage('signature');
      });
    // Re-encoding may grow a well-packed PNG a little; it can never grow without bound (the pixels are capped).
    if (signature.length > 2 * POD_LIMITS.signatureMaxBytes) throw tooLarge('signature', POD_LIMITS.signatureMaxBytes);
    if (!photo) return { recipientName: p.recipientName, signature, photo: null, photoType: null };
    let out: Buffer;
    try {
      out = await sharp(photo.bytes, decodeOptions(POD_LIMITS.photoMaxPixels))
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
    return { recipientName: p.recipientName, signature, photo: out, photoType: 'jpeg' };
  });
}

export type { ProofInput };
