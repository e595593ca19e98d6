import { POD_LIMITS } from '@shiptrail/contract';

/** A phone photo can be tens of megabytes; anything larger than this is refused before decoding. */
export const PHOTO_INPUT_MAX_BYTES = 30 * 1024 * 1024;

/** The longest side a photo keeps, as the server stores it: sending more only costs the courier's data. */
export const scaledSize = (w: number, h: number, maxSide: number = POD_LIMITS.photoMaxSide) => {
  const k = Math.min(1, maxSide / Math.max(w, h));
  return { width: Math.max(1, Math.round(w * k)), height: Math.max(1, Math.round(h * k)) };
};

/**
 * Reads a photo from the camera or the gallery and returns it downscaled as a JPEG data URL. Throws an Error
 * with a message for a person when the file is not an image the browser can read or is far too large.
 */
export async function photoToDataUrl(file: File): Promise<string> {
  if (!file.type.startsWith('image/')) throw new Error('Choose a photo (a JPEG, PNG or WebP image).');
  if (file.size > PHOTO_INPUT_MAX_BYTES) throw new Error(`The photo is too large (at most ${PHOTO_INPUT_MAX_BYTES / 1024 / 1024} MB).`);
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new Error('This photo could not be read. Try another one.');
  }
  const { width, height } = scaledSize(bitmap.width, bitmap.height);
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('This photo could not be read. Try another one.');
  ctx.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  // 0.7 keeps a 1280 px photo near 150 KB: it waits on the phone without signal and goes over a weak one.
  return canvas.toDataURL('image/jpeg', 0.7);
}
