import { LOGO_LIMITS, MSG } from '@shiptrail/contract';
import { badRequest } from '../../lib/errors.ts';
import { PNG_MAGIC, inImageSlot, loadSharp } from './proof.ts';

const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);
const unreadable = () => badRequest(MSG.logoUnreadable, { image: MSG.logoUnreadable });
const tooLarge = () => {
  const msg = `The logo is too large (at most ${LOGO_LIMITS.maxBytes / 1024 / 1024} MB)`;
  return badRequest(msg, { image: msg });
};

/**
 * A company's logo as we store and serve it: the rules of the proof photo (proof.ts). Only PNG and JPEG are
 * decoded (the bytes' own signature and the decoder must agree with the data URL's type), within a byte cap and
 * a pixel cap, then re-encoded as a PNG of at most LOGO_LIMITS.maxSide a side (transparency kept; metadata and
 * anything hidden after the image are dropped). Where sharp cannot load, a logo is refused: we never serve
 * bytes we did not re-encode.
 */
export async function prepareLogo(dataUrl: string): Promise<Buffer> {
  const m = /^data:image\/(png|jpeg);base64,(.*)$/s.exec(dataUrl.trim());
  if (!m) throw unreadable();
  const bytes = Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64');
  if (bytes.length > LOGO_LIMITS.maxBytes) throw tooLarge();
  const magicOk = m[1] === 'png' ? bytes.subarray(0, 8).equals(PNG_MAGIC) : bytes.subarray(0, 3).equals(JPEG_MAGIC);
  if (!magicOk) throw unreadable();
  const sharp = await loadSharp();
  if (!sharp) throw badRequest('Logo uploads are not available on this server: image processing is missing');
  // The decode takes its turn in the image slot the proofs use, so a burst of logo uploads cannot hold libuv's
  // pool against logins either; when the slot's queue is full the upload is refused (503), not queued.
  return inImageSlot(async () => {
    try {
      const img = sharp(bytes, { limitInputPixels: LOGO_LIMITS.maxInputPixels, failOn: 'error' });
      const meta = await img.metadata();
      if (meta.format !== m[1]) throw unreadable();
      return await img
        .rotate()
        .resize({ width: LOGO_LIMITS.maxSide, height: LOGO_LIMITS.maxSide, fit: 'inside', withoutEnlargement: true })
        .png({ compressionLevel: 9 })
        .toBuffer();
    } catch {
      throw unreadable();
    }
  });
}
