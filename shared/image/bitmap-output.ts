import { writeFile } from 'node:fs/promises';
import type { Sharp } from 'sharp';
import { encodeBmp } from '#shared/image/bmp.ts';
import type { Rgba } from '#shared/image/colour.ts';

/** Writes the pipeline as a 24-bit BMP, transparent pixels flattened onto `background`. */
export async function writeBmp(image: Sharp, background: Rgba, path: string): Promise<void> {
  const { data, info } = await image
    .flatten({ background })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  await writeFile(path, encodeBmp(data, info.width, info.height));
}
