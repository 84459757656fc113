import { encode as encodeBlurhash } from 'blurhash';
import { rgbaToThumbHash } from 'thumbhash';
import { openImage } from '#shared/image/decode.ts';
import type { ImageSource } from '#shared/image/output-file.ts';
import { writeOpened } from '#shared/image/render-failure.ts';

export interface Placeholder {
  /** BlurHash with up to 4 × 4 components (fewer along the shorter side). */
  blurhash: string;
  /** ThumbHash bytes in base64. */
  thumbhash: string;
  /** The most common colour, as `#rrggbb`. */
  dominantColor: string;
}

/** ThumbHash takes at most 100 pixels a side. */
const THUMB_SIDE = 100;

const hex = (value: number) => value.toString(16).padStart(2, '0');

/** The BlurHash components along each axis: 4 along the longer side, fewer along a much shorter one. */
export function blurhashComponents(width: number, height: number): [number, number] {
  const ratio = width / height;
  if (ratio >= 1) return [4, Math.max(1, Math.min(4, Math.round(4 / ratio)))];
  return [Math.max(1, Math.min(4, Math.round(4 * ratio))), 4];
}

/**
 * A placeholder of an image: BlurHash, ThumbHash and dominant colour, computed from the upright
 * first frame scaled to fit 100 × 100 (the pixel limits checked before decoding, as everywhere).
 */
export async function readPlaceholder(source: ImageSource): Promise<Placeholder> {
  const opened = await openImage(source.path, source.format, { targetSize: { width: THUMB_SIDE } });
  const { result } = await writeOpened(opened, async ({ image }) => {
    const small = image.resize(THUMB_SIDE, THUMB_SIDE, { fit: 'inside' }).toColourspace('srgb').ensureAlpha();
    const [{ data, info }, stats] = await Promise.all([
      small.clone().raw().toBuffer({ resolveWithObject: true }),
      small.clone().stats(),
    ]);
    return { data, info, dominant: stats.dominant };
  });
  const { data, info, dominant } = result;
  const pixels = new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength);
  const [x, y] = blurhashComponents(info.width, info.height);
  return {
    blurhash: encodeBlurhash(pixels, info.width, info.height, x, y),
    thumbhash: Buffer.from(rgbaToThumbHash(info.width, info.height, pixels)).toString('base64'),
    dominantColor: `#${hex(dominant.r)}${hex(dominant.g)}${hex(dominant.b)}`,
  };
}
