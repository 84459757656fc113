import { readFile } from 'node:fs/promises';
import { decodeIco } from 'icojs';
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { convertImage } from '#shared/image/convert.ts';
import { type ImageOutputFormat, imageOutputFormats } from '#shared/image/formats.ts';
import { imageInputFormats } from '#shared/source/formats.ts';
import { sniffFormat } from '#shared/source/sniff.ts';
import { fixturesWithWorkspace } from '../../support/fixture-hooks.ts';
import {
  bmpToPng,
  colourDistance,
  convertOptions,
  HEIGHT,
  ImageFixtures,
  quadrantColours,
  quadrants,
  WIDTH,
} from './fixtures.ts';

const fixtures = new ImageFixtures();
const workspace = fixturesWithWorkspace(fixtures);

/** The output decoded back to a PNG by a reader other than the writer where one exists. */
async function decodedOutput(format: ImageOutputFormat, bytes: Buffer): Promise<Buffer> {
  if (format === 'bmp') return bmpToPng(fixtures, bytes);
  if (format === 'ico') {
    const entries = await decodeIco(bytes, 'image/png');
    return Buffer.from(entries.reduce((a, b) => (b.width > a.width ? b : a)).buffer);
  }
  return bytes;
}

/** Lossy paths (jpg, avif, a 16-colour trace, HEVC, a GIF palette) stay well within this. */
const TOLERANCE = 40;

describe('every input format converts to every output format', () => {
  const pairs = imageInputFormats.flatMap((input) =>
    imageOutputFormats.map((output) => [input, output] as const),
  );

  it.each(pairs)('%s → %s keeps size and pattern', async (input, output) => {
    const path = await fixtures.save(`matrix-${input}-${output}.${input}`, await fixtures.pattern(input));

    const file = await convertImage(
      { path, format: input },
      convertOptions({ outputFormat: output }),
      workspace,
    );

    expect(file.format).toBe(output);
    expect(await sniffFormat(file.path)).toBe(output);
    const bytes = await readFile(file.path);
    const decoded = await decodedOutput(output, bytes);
    const { width, height } = await sharp(decoded).metadata();
    if (output === 'ico') {
      // The 64 × 48 pattern is contained in each square entry.
      expect(imageSize(bytes).images?.map((entry) => entry.width)).toEqual([16, 32, 48, 256]);
      expect([width, height]).toEqual([256, 256]);
    } else {
      expect([width, height]).toEqual([WIDTH, HEIGHT]);
    }
    const colours = await quadrantColours(decoded);
    for (const [quadrant, expected] of Object.entries(quadrants)) {
      expect(
        colourDistance(colours[quadrant as keyof typeof quadrants], expected),
        `${quadrant} ${colours[quadrant as keyof typeof quadrants]}`,
      ).toBeLessThanOrEqual(TOLERANCE);
    }
  });
});
