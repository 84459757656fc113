import { deflateSync } from 'node:zlib';
import sharp, { type Sharp } from 'sharp';
import type { Pixels } from '#shared/image/bmp.ts';
import { imageLimits } from '#shared/image/limits.ts';
import { pngChunk } from '#shared/image/png-chunk.ts';

/** The PNG signature (8 bytes) and the IHDR chunk (4 length + 4 type + 13 data + 4 CRC), always first. */
const AFTER_HEADER = 33;

/**
 * Decoded pixels as a sharp pipeline that knows their ICC profile, so that they are converted to
 * sRGB like any tagged JPEG or PNG. sharp takes a profile only from an encoded image (raw input
 * has no way to carry one), so the pixels are written as an uncompressed PNG by libvips and the
 * profile is placed in an iCCP chunk (PNG specification, 11.3.3.3) right after the header, where
 * the format requires it. Without a profile the pixels are handed over as they are (taken as sRGB).
 */
export async function profiledPixels(
  pixels: Pixels,
  keepAlpha: boolean,
  icc: Buffer | undefined,
): Promise<Sharp> {
  const { data, width, height, channels } = pixels;
  const raw = sharp(data, { raw: { width, height, channels } });
  const image = keepAlpha || channels === 3 ? raw : raw.removeAlpha();
  if (!icc) return image;
  const png = await image.png({ compressionLevel: 0, adaptiveFiltering: false }).toBuffer();
  const profile = Buffer.concat([Buffer.from('icc\0', 'latin1'), Buffer.from([0]), deflateSync(icc)]);
  const tagged = Buffer.concat([
    png.subarray(0, AFTER_HEADER),
    pngChunk('iCCP', profile),
    png.subarray(AFTER_HEADER),
  ]);
  return sharp(tagged, { limitInputPixels: imageLimits.maxPixels, failOn: 'error' });
}
