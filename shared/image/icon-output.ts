import { writeFile } from 'node:fs/promises';
import sharp, { type Sharp } from 'sharp';
import { transparent } from '#shared/image/colour.ts';
import { buildIcon } from '#shared/image/ico.ts';
import { MAX_ICON_SIZE } from '#shared/image/limits.ts';

/**
 * Writes a multi-size ICO: the image is contained in each square size (centred, transparent
 * padding, aspect kept), each size downscaled from the full image, not from each other. With
 * `fit`, the image itself is the one entry, scaled down to fit 256 × 256 when larger.
 */
export async function writeIcon(image: Sharp, sizes: readonly number[] | 'fit', path: string): Promise<void> {
  const master = await image.toColourspace('srgb').ensureAlpha().png().toBuffer();
  if (sizes === 'fit') {
    const entry = await sharp(master)
      .resize(MAX_ICON_SIZE, MAX_ICON_SIZE, { fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer();
    await writeFile(path, await buildIcon([entry]));
    return;
  }
  const unique = [...new Set(sizes)].sort((a, b) => a - b);
  const entries: Buffer[] = [];
  for (const size of unique) {
    entries.push(
      await sharp(master)
        .resize(size, size, { fit: 'contain', background: transparent, kernel: 'lanczos3' })
        .png()
        .toBuffer(),
    );
  }
  await writeFile(path, await buildIcon(entries));
}
