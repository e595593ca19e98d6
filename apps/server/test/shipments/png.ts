// PNGs made by hand for image tests: the header says what the test wants (huge, zero-sized, 1-bit or 8-bit grey),
// the rows are zeros (they compress about 1000:1), and `rows` limits how many are written (0: no image data at all).
import zlib from 'node:zlib';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([len, body, crc]);
}

export function pngOf(
  width: number,
  height: number,
  opts: { bitDepth?: number; colorType?: number; rows?: number; extra?: Buffer } = {},
): Buffer {
  const bitDepth = opts.bitDepth ?? 1;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = bitDepth;
  ihdr[9] = opts.colorType ?? 0;
  const rows = opts.rows ?? height;
  const rowBytes = 1 + Math.ceil((width * bitDepth) / 8);
  const data = rows > 0 ? [chunk('IDAT', zlib.deflateSync(Buffer.alloc(rowBytes * rows), { level: 9 }))] : [];
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', ihdr), ...data, chunk('IEND', Buffer.alloc(0)), opts.extra ?? Buffer.alloc(0)]);
}
