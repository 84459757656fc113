import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { ApiError } from '#shared/errors.ts';
import { convertImage } from '#shared/image/convert.ts';
import type { ImageInputFormat } from '#shared/image/formats.ts';
import { readImageMetadata } from '#shared/image/metadata.ts';
import { imageMetadataResult } from '#shared/image/schemas.ts';
import { fixturesWithWorkspace } from '../../support/fixture-hooks.ts';
import { convertOptions, ImageFixtures } from './fixtures.ts';

const fixtures = new ImageFixtures();
const workspace = fixturesWithWorkspace(fixtures);

async function describeImage(bytes: Buffer | string, format: ImageInputFormat) {
  const path = await fixtures.save(`meta-${Math.random().toString(36).slice(2)}.${format}`, bytes);
  const metadata = await readImageMetadata({ path, format, sizeBytes: Buffer.byteLength(bytes) });
  // The answer is what the route's response schema describes, and plain JSON.
  expect(imageMetadataResult.parse(metadata)).toEqual(metadata);
  expect(JSON.parse(JSON.stringify(metadata))).toEqual(metadata);
  return metadata;
}

describe('image metadata', () => {
  it('reads a JPEG with EXIF: upright size, orientation as stored, tags as JSON', async () => {
    const bytes = await sharp(await fixtures.pattern('png'))
      .withMetadata({ orientation: 6, density: 300 })
      .withExif({ IFD0: { Make: 'TestCam', DateTime: '2024:05:06 07:08:09' } })
      .jpeg()
      .toBuffer();
    const metadata = await describeImage(bytes, 'jpg');
    expect(metadata).toMatchObject({
      format: 'jpg',
      width: 48,
      height: 64,
      pages: 1,
      animated: false,
      hasAlpha: false,
      space: 'srgb',
      density: 300,
      orientation: 6,
      sizeBytes: bytes.length,
    });
    expect(metadata.exif?.Image?.Make).toBe('TestCam');
  });

  it.each([
    ['png', { width: 64, height: 48, pages: 1, animated: false, hasAlpha: false, orientation: 1 }],
    ['heic', { width: 64, height: 48, pages: 1, hasAlpha: false, space: 'srgb' }],
    ['avif', { width: 64, height: 48, pages: 1, hasAlpha: false }],
    ['svg', { width: 64, height: 48, hasAlpha: true, density: 72 }],
    ['bmp', { width: 64, height: 48, hasAlpha: false, density: null, space: 'srgb' }],
    ['ico', { width: 64, height: 48, pages: 1, hasAlpha: true }],
    ['tiff', { width: 64, height: 48, pages: 1 }],
  ] as const)('reads a %s', async (format, expected) => {
    const metadata = await describeImage(await fixtures.pattern(format), format);
    expect(metadata).toMatchObject({ format, ...expected });
    expect(metadata.exif).toBeUndefined();
  });

  it.each(['gif', 'webp'] as const)('counts the frames of an animated %s', async (format) => {
    const metadata = await describeImage(await fixtures.animation(format), format);
    expect(metadata).toMatchObject({ width: 32, height: 24, pages: 3, animated: true });
  });

  it('reports a CMYK JPEG as cmyk', async () => {
    const cmyk = await sharp(await fixtures.pattern('png'))
      .toColourspace('cmyk')
      .jpeg()
      .toBuffer();
    expect((await describeImage(cmyk, 'jpg')).space).toBe('cmyk');
  });

  it('reads a multi-size ICO by its largest entry, and the density of a written BMP', async () => {
    const path = await fixtures.save('meta-source.png', await fixtures.pattern('png'));
    const ico = await convertImage(
      { path, format: 'png' },
      convertOptions({ outputFormat: 'ico', icoSizes: [16, 32, 48] }),
      workspace,
    );
    expect(await describeImage(await readFile(ico.path), 'ico')).toMatchObject({
      width: 48,
      height: 48,
      pages: 3,
      hasAlpha: true,
    });
    const bmp = await convertImage(
      { path, format: 'png' },
      convertOptions({ outputFormat: 'bmp' }),
      workspace,
    );
    expect(await describeImage(await readFile(bmp.path), 'bmp')).toMatchObject({
      density: 72,
      hasAlpha: false,
    });
  });

  it('refuses a BMP that declares too many pixels, without decoding it', async () => {
    const bomb = Buffer.from(await fixtures.pattern('bmp'));
    bomb.writeInt32LE(60_000, 18);
    bomb.writeInt32LE(60_000, 22);
    const error = await describeImage(bomb, 'bmp').catch((caught: unknown) => caught);
    expect((error as ApiError).code).toBe('invalid_source_file');
  });
});
