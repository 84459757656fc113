import type { Sharp } from 'sharp';

/** The most colours a PNG palette holds. */
const PALETTE_SIZE = 256;

/**
 * Whether the pipeline's output has at most 256 distinct colours (alpha included), so that a
 * palette PNG holds every pixel exactly. The output is rendered once more, at 8 bits a channel
 * as the PNG will be; counting stops at the 257th colour.
 */
export async function fitsExactPalette(image: Sharp): Promise<boolean> {
  const rendered = await image.clone().ensureAlpha().raw({ depth: 'uchar' }).toBuffer();
  // One RGBA pixel is one 32-bit number; a view needs 4-byte alignment, which a copy guarantees.
  const bytes = rendered.byteOffset % 4 === 0 ? rendered : new Uint8Array(rendered);
  const pixels = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const seen = new Set<number>();
  for (const pixel of pixels) {
    if (seen.has(pixel)) continue;
    seen.add(pixel);
    if (seen.size > PALETTE_SIZE) return false;
  }
  return true;
}
