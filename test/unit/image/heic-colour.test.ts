import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { convertImage } from '#shared/image/convert.ts';
import { decodeToPng } from '#shared/image/decode-to-png.ts';
import { decodeHeicImage } from '#shared/image/heic.ts';
import { optimizeImage } from '#shared/image/optimize.ts';
import { fixturesWithWorkspace } from '../../support/fixture-hooks.ts';
import {
  colourDistance,
  convertOptions,
  ImageFixtures,
  quadrantColours,
  quadrants,
  type Rgb,
} from './fixtures.ts';

/**
 * The quadrant pattern converted to Display P3 and stored with that profile, as an iPhone stores
 * its photos (test/fixtures/files/image/README.md): sRGB red is stored as about (234, 51, 35).
 */
const p3HeicUrl = new URL('../../fixtures/files/image/quad-p3.heic', import.meta.url);

const fixtures = new ImageFixtures();
const workspace = fixturesWithWorkspace(fixtures);
let path: string;

beforeAll(async () => {
  path = await fixtures.save('quad-p3.heic', await readFile(p3HeicUrl));
});

/** Each quadrant within `tolerance` of the sRGB pattern. */
function expectSrgbPattern(colours: Record<keyof typeof quadrants, Rgb>, tolerance: number): void {
  for (const [name, expected] of Object.entries(quadrants)) {
    const actual = colours[name as keyof typeof quadrants];
    expect(colourDistance(actual, expected), `${name}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
      tolerance,
    );
  }
}

describe('a HEIC with an ICC profile (Display P3)', () => {
  it('stores P3 samples that differ visibly from sRGB when read untagged', async () => {
    expect((await sharp(path).metadata()).icc?.length).toBeGreaterThan(0);
    const pixels = await decodeHeicImage(await readFile(path), 0, () => undefined);
    const raw = await sharp(pixels.data, { raw: pixels }).png().toBuffer();
    const untagged = await quadrantColours(raw);
    // The samples are the P3 coordinates: read as sRGB, red is orange-ish and green is dull.
    expect(colourDistance(untagged.topLeft, quadrants.topLeft)).toBeGreaterThan(30);
    expect(colourDistance(untagged.topRight, quadrants.topRight)).toBeGreaterThan(30);
  });

  it.each(['png', 'jpg', 'webp'] as const)('converts to %s in sRGB through its profile', async (target) => {
    const file = await convertImage(
      { path, format: 'heic' },
      convertOptions({ outputFormat: target, quality: 100, icoSizes: [16] }),
      workspace,
    );
    const output = await readFile(file.path);
    expect((await sharp(output).metadata()).hasProfile).toBe(false);
    expectSrgbPattern(await quadrantColours(output, { ignoreIcc: true }), 16);
  });

  it('optimizes in sRGB through its profile', async () => {
    const bytes = await readFile(path);
    const file = await optimizeImage(
      { path, format: 'heic', sizeBytes: bytes.length },
      { quality: 80, outputFormat: 'png', lossless: true },
      workspace,
    );
    expectSrgbPattern(await quadrantColours(await readFile(file.path), { ignoreIcc: true }), 16);
  });

  it('decodes in sRGB for other suites (image-to-pdf)', async () => {
    const png = await decodeToPng(path, 'heic', workspace);
    expectSrgbPattern(await quadrantColours(await readFile(png.path), { ignoreIcc: true }), 16);
  });
});
