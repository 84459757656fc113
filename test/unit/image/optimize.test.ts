import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { ApiError } from '#shared/errors.ts';
import type { ImageInputFormat } from '#shared/image/formats.ts';
import { type OptimizeOptions, optimizeImage } from '#shared/image/optimize.ts';
import { fixturesWithWorkspace } from '../../support/fixture-hooks.ts';
import { ffmpegImage, ImageFixtures } from './fixtures.ts';

const fixtures = new ImageFixtures();
const workspace = fixturesWithWorkspace(fixtures);

/** A detailed 320 × 240 picture (ffmpeg's testsrc2), as a near-lossless JPEG or a PNG. */
const photo = (format: 'jpg' | 'png') =>
  ffmpegImage(
    'testsrc2=s=320x240',
    format === 'jpg' ? ['-q:v', '1', '-f', 'image2', '-c:v', 'mjpeg'] : ['-f', 'image2', '-c:v', 'png'],
    fixtures.path(`photo.${format}`),
  );

async function optimize(bytes: Buffer, format: ImageInputFormat, options: Partial<OptimizeOptions> = {}) {
  const path = await fixtures.save(`optimize-${Math.random().toString(36).slice(2)}.${format}`, bytes);
  const result = await optimizeImage(
    { path, format, sizeBytes: bytes.length },
    { lossless: false, ...options },
    workspace,
  );
  return { ...result, source: path, bytes: await readFile(result.path) };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as ApiError,
  );

describe('image optimization', () => {
  it('makes a JPEG smaller and says so', async () => {
    const source = await photo('jpg');
    const result = await optimize(source, 'jpg');
    expect(result.unchanged).toBe(false);
    expect(result.format).toBe('jpg');
    expect(result.originalSize).toBe(source.length);
    expect(result.outputSize).toBe(result.bytes.length);
    expect(result.outputSize).toBeLessThan(source.length);
    const meta = await sharp(result.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 240]);
  });

  it('converts when asked and downscales into maxWidth × maxHeight', async () => {
    const result = await optimize(await photo('png'), 'png', {
      outputFormat: 'webp',
      maxWidth: 100,
      maxHeight: 100,
    });
    const meta = await sharp(result.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 100, 75]);
  });

  it('hands back the source bytes unchanged when nothing smaller is found', async () => {
    // A JPEG at quality 1 is smaller than any re-encode at quality 80.
    const source = (await optimize(await photo('png'), 'png', { outputFormat: 'jpg', quality: 1 })).bytes;
    const result = await optimize(source, 'jpg');
    expect(result.unchanged).toBe(true);
    expect(result.path).toBe(result.source);
    expect(result.bytes.equals(source)).toBe(true);
    expect([result.outputSize, result.originalSize, result.contentType]).toEqual([
      source.length,
      source.length,
      'image/jpeg',
    ]);
  });

  it('keeps the contract when the target is larger in another format: the HEIC itself comes back', async () => {
    const source = await fixtures.pattern('heic');
    const result = await optimize(source, 'heic', { outputFormat: 'bmp' });
    expect([result.unchanged, result.format, result.contentType]).toEqual([true, 'heic', 'image/heic']);
    expect(result.bytes.equals(source)).toBe(true);
  });

  it('writes a HEIC as PNG by default', async () => {
    const result = await optimize(await fixtures.pattern('heic'), 'heic');
    expect([result.unchanged, result.format]).toEqual([false, 'png']);
  });

  it('finds the highest quality that fits maxBytes', async () => {
    const source = await photo('png');
    const atDefault = await optimize(source, 'png', { outputFormat: 'jpg' });
    const atOne = await optimize(source, 'png', { outputFormat: 'jpg', quality: 1 });
    const maxBytes = Math.round((atDefault.outputSize + atOne.outputSize) / 2);
    const result = await optimize(source, 'png', { outputFormat: 'jpg', maxBytes });
    expect(result.outputSize).toBeLessThanOrEqual(maxBytes);
    expect(result.outputSize).toBeGreaterThan(atOne.outputSize);
    expect((await sharp(result.bytes).metadata()).format).toBe('jpeg');
  });

  it('answers validation_failed naming maxBytes when even quality 1 does not fit', async () => {
    const error = await failure(optimize(await photo('png'), 'png', { outputFormat: 'jpg', maxBytes: 100 }));
    expect(error?.code).toBe('validation_failed');
    expect(error?.message).toMatch(/^maxBytes: /);
  });

  it('answers validation_failed for a lossless jpg', async () => {
    const error = await failure(optimize(await photo('jpg'), 'jpg', { lossless: true }));
    expect(error?.code).toBe('validation_failed');
    expect(error?.message).toMatch(/^lossless: /);
  });

  it('keeps every pixel in lossless webp', async () => {
    const source = await photo('png');
    const result = await optimize(source, 'png', { outputFormat: 'webp', lossless: true });
    const original = await sharp(source).raw().toBuffer();
    const decoded = await sharp(result.bytes).removeAlpha().raw().toBuffer();
    expect(decoded.equals(original)).toBe(true);
  });
});

/** Decoded RGBA pixels of an image, for exact comparison. */
const rgba = (image: Buffer | string) => sharp(image).ensureAlpha().raw().toBuffer();

/** A 64 × 64 true-colour PNG of 200 distinct colours, scattered (a fixed pseudo-random walk) so that no filter predicts them. */
async function fewColours(): Promise<Buffer> {
  const pixels = Buffer.alloc(64 * 64 * 3);
  let state = 1;
  for (let i = 0; i < 64 * 64; i += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const colour = state % 200;
    pixels.set([colour, (colour * 5) % 256, 255 - colour], i * 3);
  }
  return sharp(pixels, { raw: { width: 64, height: 64, channels: 3 } })
    .png({ palette: false })
    .toBuffer();
}

describe('png optimization', () => {
  it('keeps every pixel of a true-colour png by default (no palette over 256 colours)', async () => {
    const source = await photo('png');
    const result = await optimize(source, 'png');
    expect(result.unchanged).toBe(false);
    expect((await sharp(result.bytes).metadata()).isPalette).toBe(false);
    expect((await rgba(result.bytes)).equals(await rgba(source))).toBe(true);
  });

  it('writes an exact palette by default when the image has at most 256 colours', async () => {
    const source = await fewColours();
    expect((await sharp(source).metadata()).isPalette).toBe(false);
    const result = await optimize(source, 'png');
    expect(result.unchanged).toBe(false);
    expect((await sharp(result.bytes).metadata()).isPalette).toBe(true);
    expect((await rgba(result.bytes)).equals(await rgba(source))).toBe(true);
  });

  it('quantises to a smaller palette png only when a quality is asked', async () => {
    const source = await photo('png');
    const lossless = await optimize(source, 'png');
    const lossy = await optimize(source, 'png', { quality: 80 });
    expect((await sharp(lossy.bytes).metadata()).isPalette).toBe(true);
    expect(lossy.outputSize).toBeLessThan(lossless.outputSize);
    expect((await rgba(lossy.bytes)).equals(await rgba(source))).toBe(false);
  });

  it('quantises when maxBytes asks for a file the lossless png does not fit', async () => {
    const source = await photo('png');
    const lossless = await optimize(source, 'png');
    const maxBytes = Math.round(lossless.outputSize * 0.6);
    const result = await optimize(source, 'png', { maxBytes });
    expect(result.outputSize).toBeLessThanOrEqual(maxBytes);
    expect((await sharp(result.bytes).metadata()).isPalette).toBe(true);
  });

  it('stays lossless with lossless: true even when a quality is given', async () => {
    const source = await photo('png');
    const result = await optimize(source, 'png', { quality: 50, lossless: true });
    expect((await rgba(result.bytes)).equals(await rgba(source))).toBe(true);
  });
});
