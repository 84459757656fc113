import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Position } from '#shared/image/limits.ts';
import { resizeImage } from '#shared/image/resize.ts';
import { fixturesWithWorkspace } from '../../support/fixture-hooks.ts';
import { colourDistance, ImageFixtures, pixelAt, type Rgb } from './fixtures.ts';

const fixtures = new ImageFixtures();
const workspace = fixturesWithWorkspace(fixtures);

const CELL = 32;
const first: Rgb = [255, 0, 0];
const middle: Rgb = [0, 255, 0];
const last: Rgb = [0, 0, 255];

/** Three solid 32 px cells in a row (wide) or a column (tall): first, middle, last. */
async function strip(direction: 'wide' | 'tall'): Promise<string> {
  const cells = [first, middle, last].map((colour, index) => ({
    input: { create: { width: CELL, height: CELL, channels: 3 as const, background: colour } },
    left: direction === 'wide' ? index * CELL : 0,
    top: direction === 'tall' ? index * CELL : 0,
  }));
  const [width, height] = direction === 'wide' ? [3 * CELL, CELL] : [CELL, 3 * CELL];
  const png = await sharp({ create: { width, height, channels: 3, background: '#000' } })
    .composite(cells)
    .png()
    .toBuffer();
  return fixtures.save(`strip-${direction}.png`, png);
}

/** Cover into one 32 × 32 cell: the strip is not scaled, only cropped along its length. */
async function keptColour(path: string, position: Position): Promise<Rgb> {
  const file = await resizeImage(
    { path, format: 'png' },
    { width: CELL, height: CELL, fit: 'cover', position, withoutEnlargement: true },
    workspace,
  );
  const meta = await sharp(file.path).metadata();
  expect([meta.width, meta.height]).toEqual([CELL, CELL]);
  return pixelAt(file.path, CELL / 2, CELL / 2);
}

describe('image-resize: each compass position keeps its side of the image', () => {
  // [position, kept of a wide strip (left→right), kept of a tall strip (top→bottom)]
  it.each([
    ['centre', middle, middle],
    ['north', middle, first],
    ['northeast', last, first],
    ['east', last, middle],
    ['southeast', last, last],
    ['south', middle, last],
    ['southwest', first, last],
    ['west', first, middle],
    ['northwest', first, first],
  ] as const)('%s', async (position, acrossWide, acrossTall) => {
    expect(colourDistance(await keptColour(await strip('wide'), position), acrossWide)).toBeLessThanOrEqual(
      2,
    );
    expect(colourDistance(await keptColour(await strip('tall'), position), acrossTall)).toBeLessThanOrEqual(
      2,
    );
  });
});

/**
 * A 128 × 64 flat grey image with a detailed, saturated block (a red and yellow checkerboard) at
 * its right edge, x 100–127: a centre crop to 64 × 64 (x 32–95) loses all of it.
 */
async function salientAtTheEdge(): Promise<string> {
  const width = 128;
  const height = 64;
  const pixels = Buffer.alloc(width * height * 3, 128);
  for (let y = 0; y < height; y += 1) {
    for (let x = 100; x < width; x += 1) {
      const yellow = (Math.floor(x / 4) + Math.floor(y / 4)) % 2 === 0;
      pixels.set(yellow ? [255, 255, 0] : [255, 0, 0], (y * width + x) * 3);
    }
  }
  const png = await sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  return fixtures.save('salient.png', png);
}

/** How many pixels of the image are block pixels (red or yellow, not grey). */
async function blockPixels(path: string): Promise<number> {
  const { data, info } = await sharp(await readFile(path))
    .raw()
    .toBuffer({ resolveWithObject: true });
  let count = 0;
  for (let at = 0; at < data.length; at += info.channels) {
    if (data[at]! > 200 && data[at + 2]! < 60) count += 1;
  }
  return count;
}

describe('image-resize: smart crop of a still image', () => {
  const cover = async (path: string, position: Position) =>
    (
      await resizeImage(
        { path, format: 'png' },
        { width: 64, height: 64, fit: 'cover', position, withoutEnlargement: true },
        workspace,
      )
    ).path;

  it('a centre crop loses the salient block (the premise)', async () => {
    expect(await blockPixels(await cover(await salientAtTheEdge(), 'centre'))).toBe(0);
  });

  it.each(['attention', 'entropy'] as const)('%s keeps the whole salient block', async (position) => {
    const kept = await blockPixels(await cover(await salientAtTheEdge(), position));
    expect(kept).toBe(28 * 64);
  });
});
