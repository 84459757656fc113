import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpError } from '#shared/http/errors.ts';
import type { ImageInputFormat } from '#shared/image/formats.ts';
import { type OptimizeOptions, optimizeImage } from '#shared/image/optimize.ts';
import { Workspace } from '#shared/workspace.ts';
import { ffmpegImage, ImageFixtures } from './fixtures.ts';

const fixtures = new ImageFixtures();
const workspace = new Workspace();

beforeAll(async () => {
  await fixtures.open();
});

afterAll(async () => {
  await workspace.dispose();
  await fixtures.close();
});

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
    { quality: 80, lossless: false, ...options },
    workspace,
  );
  return { ...result, source: path, bytes: await readFile(result.path) };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as HttpError,
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
