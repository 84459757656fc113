import { decodeIco, encodeIco } from 'icojs';
import { ApiError } from '#shared/errors.ts';

export interface IconEntry {
  /** The entry as a PNG file. */
  png: Buffer;
  width: number;
  height: number;
}

/**
 * The largest image of an ICO (the deepest colour among equals), as PNG. Entries stored as BMP
 * are decoded by decode-ico, which checks every bitmap's bytes are present before allocating,
 * so an entry is never larger than what the file holds; PNG entries are passed on undecoded.
 */
export async function largestIcon(bytes: Buffer): Promise<IconEntry & { count: number }> {
  let entries: Awaited<ReturnType<typeof decodeIco>>;
  try {
    entries = await decodeIco(bytes, 'image/png');
  } catch (error) {
    throw new ApiError('invalid_source_file', 'The ICO could not be decoded: it is damaged or incomplete.', {
      cause: error,
    });
  }
  const best = entries.reduce<(typeof entries)[number] | undefined>((kept, entry) => {
    if (!kept) return entry;
    const area = entry.width * entry.height;
    const keptArea = kept.width * kept.height;
    return area > keptArea || (area === keptArea && entry.bpp > kept.bpp) ? entry : kept;
  }, undefined);
  if (!best) throw new ApiError('invalid_source_file', 'The ICO holds no image.');
  return { png: Buffer.from(best.buffer), width: best.width, height: best.height, count: entries.length };
}

/**
 * Builds an ICO from square PNGs, one entry each: sizes under 256 are stored as 32-bit bitmaps
 * with an AND mask (read by every Windows version), 256 as PNG (as Windows Vista and later expect).
 */
export async function buildIcon(pngs: readonly Buffer[]): Promise<Buffer> {
  return Buffer.from(await encodeIco(pngs.map((buffer) => ({ buffer }))));
}
