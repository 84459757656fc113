import { decode, encode } from 'bmp-ts';
import { ApiError } from '#shared/errors.ts';
import { withInfoHeader } from '#shared/image/bmp-header.ts';

/** Decoded pixels, 8 bits a channel, row by row from the top: RGB (3 channels) or RGBA (4). */
export interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

const METRES_PER_INCH = 0.0254;

/**
 * Decodes a BMP (1, 4, 8, 16, 24 and 32 bits a pixel, RLE and bit-field compression) with bmp-ts,
 * an OS/2 or Windows 2.x header first rewritten as the Windows header bmp-ts reads.
 * Alpha is read only where the file says it has one (a 32-bit bit-field alpha mask); in a plain
 * 32-bit BMP the fourth byte is reserved, as the format defines it, and an all-zero alpha is
 * taken for a writer that left the field empty.
 */
export function decodeBmp(bytes: Buffer): Pixels & { density: number | undefined; bitsPerPixel: number } {
  let bitmap: ReturnType<typeof decode>;
  try {
    bitmap = decode(withInfoHeader(bytes));
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError('invalid_source_file', 'The BMP could not be decoded: it is damaged or incomplete.', {
      cause: error,
    });
  }
  const { width, height } = bitmap;
  const abgr = bitmap.data;
  const pixels = width * height;
  let alphaSeen = false;
  // bmp-ts keeps the header's alpha mask in a field its types mark private.
  const alphaMask = (bitmap as unknown as { maskAlpha?: number }).maskAlpha;
  if (bitmap.bitPP === 32 && alphaMask) {
    for (let i = 0; i < pixels; i += 1) {
      if (abgr[i * 4] !== 0) {
        alphaSeen = true;
        break;
      }
    }
  }
  const channels = alphaSeen ? 4 : 3;
  const data = Buffer.alloc(pixels * channels);
  for (let i = 0, o = 0; i < pixels; i += 1, o += channels) {
    data[o] = abgr[i * 4 + 3]!;
    data[o + 1] = abgr[i * 4 + 2]!;
    data[o + 2] = abgr[i * 4 + 1]!;
    if (alphaSeen) data[o + 3] = abgr[i * 4]!;
  }
  const density = bitmap.hr > 0 ? Math.round(bitmap.hr * METRES_PER_INCH) : undefined;
  return { data, width, height, channels, density, bitsPerPixel: bitmap.bitPP };
}

/** Writes 24-bit RGB pixels as an uncompressed BMP (BITMAPINFOHEADER, the most widely read kind). */
export function encodeBmp(rgb: Buffer, width: number, height: number, dpi = 72): Buffer {
  const pixels = width * height;
  const abgr = Buffer.alloc(pixels * 4);
  for (let i = 0; i < pixels; i += 1) {
    abgr[i * 4 + 1] = rgb[i * 3 + 2]!;
    abgr[i * 4 + 2] = rgb[i * 3 + 1]!;
    abgr[i * 4 + 3] = rgb[i * 3]!;
  }
  const perMetre = Math.round(dpi / METRES_PER_INCH);
  return encode({ data: abgr, width, height, bitPP: 24, hr: perMetre, vr: perMetre }).data;
}
