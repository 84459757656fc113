import { readFile } from 'node:fs/promises';
import { decodeIco } from 'icojs';
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { type ConvertOptions, convertImage } from '#shared/image/convert.ts';
import { decodeToPng } from '#shared/image/decode-to-png.ts';
import type { ImageInputFormat } from '#shared/image/formats.ts';
import { resizeImage } from '#shared/image/resize.ts';
import { fixturesWithWorkspace } from '../../support/fixture-hooks.ts';
import {
  colourDistance,
  convertOptions,
  ffmpegImage,
  ImageFixtures,
  pixelAt,
  quadrantColours,
  quadrants,
  type Rgb,
} from './fixtures.ts';

const fixtures = new ImageFixtures();
const workspace = fixturesWithWorkspace(fixtures);

const convert = async (
  bytes: Buffer | string,
  format: ImageInputFormat,
  options: Partial<ConvertOptions> & Pick<ConvertOptions, 'outputFormat'>,
) => {
  const path = await fixtures.save(`in-${Math.random().toString(36).slice(2)}.${format}`, bytes);
  const file = await convertImage({ path, format }, convertOptions(options), workspace);
  return { ...file, bytes: await readFile(file.path) };
};

const near = (actual: Rgb, expected: Rgb, tolerance = 12) =>
  expect(colourDistance(actual, expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance);

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof ApiError ? error.code : `not an ApiError: ${String(error)}`),
  );

describe('animations', () => {
  it.each([
    ['gif', 'gif'],
    ['gif', 'webp'],
    ['webp', 'gif'],
    ['webp', 'webp'],
  ] as const)('an animated %s keeps its three frames as %s', async (input, output) => {
    const file = await convert(await fixtures.animation(input), input, { outputFormat: output });
    const meta = await sharp(file.bytes, { animated: true }).metadata();
    expect(meta.pages).toBe(3);
    expect(meta.pageHeight).toBe(24);
    expect(meta.delay).toEqual([200, 200, 200]);
    for (const [page, colour] of [
      [0, [255, 0, 0]],
      [1, [0, 255, 0]],
      [2, [0, 0, 255]],
    ] as const) {
      near(await pixelAt(file.bytes, 16, 12, { page }), colour, 20);
    }
  });

  it.each(['png', 'jpg', 'avif'] as const)('a still target (%s) takes the first frame', async (output) => {
    const file = await convert(await fixtures.animation('gif'), 'gif', { outputFormat: output });
    const meta = await sharp(file.bytes).metadata();
    expect([meta.width, meta.height, meta.pages ?? 1]).toEqual([32, 24, 1]);
    near(await pixelAt(file.bytes, 16, 12), [255, 0, 0], 20);
  });

  it('animated: false writes only the first frame, even to gif', async () => {
    const file = await convert(await fixtures.animation('webp'), 'webp', {
      outputFormat: 'gif',
      animated: false,
    });
    expect((await sharp(file.bytes, { animated: true }).metadata()).pages).toBe(1);
  });

  it('resizes every frame, and crops an animation at the centre when a smart crop is asked', async () => {
    const path = await fixtures.save('animation-resize.gif', await fixtures.animation('gif'));
    const file = await resizeImage(
      { path, format: 'gif' },
      { width: 12, height: 12, fit: 'cover', position: 'attention', withoutEnlargement: true },
      workspace,
    );
    const meta = await sharp(file.path, { animated: true }).metadata();
    expect([meta.width, meta.pageHeight, meta.pages]).toEqual([12, 12, 3]);
  });
});

describe('ICO output', () => {
  it('holds one entry per asked size, each with the whole pattern', async () => {
    const file = await convert(await fixtures.pattern('png'), 'png', {
      outputFormat: 'ico',
      icoSizes: [64, 16, 24],
    });
    expect(file.contentType).toBe('image/x-icon');
    expect(imageSize(file.bytes).images?.map((entry) => [entry.width, entry.height])).toEqual([
      [16, 16],
      [24, 24],
      [64, 64],
    ]);
    const entries = await decodeIco(file.bytes, 'image/png');
    const largest = Buffer.from(entries.find((entry) => entry.width === 64)!.buffer);
    // 64 × 48 contained in 64 × 64: transparent bands of 8 px above and below.
    expect((await sharp(largest).raw().toBuffer())[3]).toBe(0);
    const colours = await quadrantColours(
      await sharp(largest).extract({ left: 0, top: 8, width: 64, height: 48 }).png().toBuffer(),
    );
    for (const [quadrant, expected] of Object.entries(quadrants)) {
      near(colours[quadrant as keyof typeof quadrants], expected);
    }
  });
});

describe('orientation, colour spaces and depth', () => {
  it('turns an EXIF-rotated JPEG upright before resizing', async () => {
    // Stored 64 × 48 with orientation 6: displayed turned 90° clockwise, 48 × 64.
    const rotated = await sharp(await fixtures.pattern('png'))
      .withMetadata({ orientation: 6 })
      .jpeg({ quality: 95 })
      .toBuffer();
    const file = await convert(rotated, 'jpg', { outputFormat: 'png', width: 24 });
    const meta = await sharp(file.bytes).metadata();
    expect([meta.width, meta.height, meta.orientation]).toEqual([24, 32, undefined]);
    const colours = await quadrantColours(file.bytes);
    near(colours.topLeft, quadrants.bottomLeft, 30);
    near(colours.topRight, quadrants.topLeft, 30);
    near(colours.bottomLeft, quadrants.bottomRight, 30);
    near(colours.bottomRight, quadrants.topRight, 30);
  });

  it('converts a CMYK JPEG to sRGB', async () => {
    const cmyk = await sharp(await fixtures.pattern('png'))
      .toColourspace('cmyk')
      .jpeg({ quality: 95 })
      .toBuffer();
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk');
    const file = await convert(cmyk, 'jpg', { outputFormat: 'jpg' });
    const meta = await sharp(file.bytes).metadata();
    expect([meta.space, meta.channels]).toEqual(['srgb', 3]);
    near((await quadrantColours(file.bytes)).topLeft, quadrants.topLeft, 40);
    near((await quadrantColours(file.bytes)).bottomRight, quadrants.bottomRight, 40);
  });

  it('applies an embedded ICC profile (Display P3) so the pixels are sRGB', async () => {
    const p3 = await sharp({
      create: { width: 8, height: 8, channels: 3, background: { r: 0, g: 200, b: 0 } },
    })
      .withIccProfile('p3')
      .png()
      .toBuffer();
    // The stored samples are P3 values, not the sRGB ones.
    expect(colourDistance(await pixelAt(p3, 1, 1, { ignoreIcc: true }), [0, 200, 0])).toBeGreaterThan(20);
    const file = await convert(p3, 'png', { outputFormat: 'webp', quality: 100 });
    near(await pixelAt(file.bytes, 1, 1, { ignoreIcc: true }), [0, 200, 0], 6);
    expect((await sharp(file.bytes).metadata()).hasProfile).toBe(false);
  });

  it('reads 16-bit PNG and writes 8 bits', async () => {
    const deep = await ffmpegImage(
      'color=c=0x336699:s=16x16',
      ['-pix_fmt', 'rgb48be', '-f', 'image2', '-c:v', 'png'],
      fixtures.path('deep.png'),
    );
    expect((await sharp(deep).metadata()).depth).toBe('ushort');
    for (const output of ['png', 'jpg', 'bmp'] as const) {
      const file = await convert(deep, 'png', { outputFormat: output });
      if (output !== 'bmp') expect((await sharp(file.bytes).metadata()).depth).toBe('uchar');
      else expect(file.bytes.readUInt16LE(28)).toBe(24);
    }
    const png = await convert(deep, 'png', { outputFormat: 'png' });
    near(await pixelAt(png.bytes, 4, 4), [0x33, 0x66, 0x99], 6);
  });
});

describe('transparency', () => {
  const halfTransparent = () =>
    ffmpegImage(
      'color=c=red:s=16x16,format=rgba[a];color=c=black@0:s=16x16,format=rgba[b];[a][b]hstack',
      ['-pix_fmt', 'rgba', '-f', 'image2', '-c:v', 'png'],
      fixtures.path('half.png'),
    );

  it.each([
    ['jpg', undefined, [255, 255, 255]],
    ['jpg', 'rgb(0 0 255)', [0, 0, 255]],
    ['bmp', '#00ff00', [0, 255, 0]],
  ] as const)('flattens alpha for %s onto %s', async (output, background, expected) => {
    const { parseCssColour } = await import('#shared/image/colour.ts');
    const file = await convert(await halfTransparent(), 'png', {
      outputFormat: output,
      background: background === undefined ? undefined : parseCssColour(background),
    });
    const decoded =
      output === 'bmp' ? await (await import('./fixtures.ts')).bmpToPng(fixtures, file.bytes) : file.bytes;
    near(await pixelAt(decoded, 24, 8), expected, 8);
    near(await pixelAt(decoded, 4, 8), [255, 0, 0], 8);
  });

  it.each(['png', 'webp', 'avif', 'tiff', 'gif'] as const)('keeps alpha in %s', async (output) => {
    const file = await convert(await halfTransparent(), 'png', { outputFormat: output });
    const { data, info } = await sharp(file.bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(data[(8 * info.width + 24) * 4 + 3]).toBeLessThan(10);
    expect(data[(8 * info.width + 4) * 4 + 3]).toBeGreaterThan(245);
  });
});

describe('resizing', () => {
  const pattern = async () => fixtures.save(`resize-${Math.random()}.png`, await fixtures.pattern('png'));

  it.each([
    ['inside', 32, 32, [32, 24]],
    ['cover', 32, 32, [32, 32]],
    ['contain', 32, 32, [32, 32]],
    ['fill', 10, 40, [10, 40]],
    ['outside', 32, 32, [43, 32]],
  ] as const)('fit %s into %i × %i gives %j', async (fit, width, height, size) => {
    const file = await resizeImage(
      { path: await pattern(), format: 'png' },
      { width, height, fit, position: 'centre', withoutEnlargement: true },
      workspace,
    );
    const meta = await sharp(file.path).metadata();
    expect([meta.width, meta.height]).toEqual(size);
  });

  it('pads contain with the background, and does not enlarge unless asked', async () => {
    const { parseCssColour } = await import('#shared/image/colour.ts');
    const padded = await resizeImage(
      { path: await pattern(), format: 'png' },
      {
        width: 32,
        height: 32,
        fit: 'contain',
        position: 'centre',
        withoutEnlargement: true,
        background: parseCssColour('#ff00ff'),
      },
      workspace,
    );
    near(await pixelAt(padded.path, 16, 1), [255, 0, 255], 2);
    const kept = await resizeImage(
      { path: await pattern(), format: 'png' },
      { width: 128, fit: 'inside', position: 'centre', withoutEnlargement: true },
      workspace,
    );
    expect((await sharp(kept.path).metadata()).width).toBe(64);
    const enlarged = await resizeImage(
      { path: await pattern(), format: 'png' },
      { width: 128, fit: 'inside', position: 'centre', withoutEnlargement: false },
      workspace,
    );
    expect((await sharp(enlarged.path).metadata()).height).toBe(96);
  });

  it('crops cover at the asked gravity', async () => {
    const file = await resizeImage(
      { path: await pattern(), format: 'png' },
      { width: 24, height: 48, fit: 'cover', position: 'east', withoutEnlargement: true },
      workspace,
    );
    near((await quadrantColours(await readFile(file.path))).topLeft, quadrants.topRight, 2);
  });

  it.each([
    ['heic', 'png'],
    ['svg', 'png'],
    ['bmp', 'bmp'],
    ['ico', 'ico'],
  ] as const)('keeps the format of a %s source as %s', async (input, output) => {
    const path = await fixtures.save(`keep.${input}`, await fixtures.pattern(input));
    const file = await resizeImage(
      { path, format: input },
      { width: 32, fit: 'inside', position: 'centre', withoutEnlargement: true },
      workspace,
    );
    expect(file.format).toBe(output);
  });
});

describe('SVG in and out', () => {
  it('renders an SVG at the size asked, sharp at the edges', async () => {
    const file = await convert(await fixtures.pattern('svg'), 'svg', { outputFormat: 'png', width: 640 });
    const meta = await sharp(file.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([640, 480]);
    near(await pixelAt(file.bytes, 318, 100), [255, 0, 0], 2);
    near(await pixelAt(file.bytes, 321, 100), [0, 255, 0], 2);
  });

  it('traces to vector paths, or embeds the raster', async () => {
    const traced = await convert(await fixtures.pattern('png'), 'png', { outputFormat: 'svg', width: 128 });
    const tracedText = traced.bytes.toString('utf8');
    expect(tracedText).toMatch(/<path /);
    expect(tracedText).not.toMatch(/<image/);
    expect(tracedText).toMatch(/width="128" height="96"/);
    const embedded = await convert(await fixtures.pattern('jpg'), 'jpg', {
      outputFormat: 'svg',
      svgMode: 'embed',
    });
    const embeddedText = embedded.bytes.toString('utf8');
    expect(embeddedText).toMatch(/<image [^>]*xlink:href="data:image\/jpeg;base64,/);
    expect(embeddedText).not.toMatch(/<path /);
    const colours = await quadrantColours(embedded.bytes);
    near(colours.bottomLeft, quadrants.bottomLeft, 30);
  });
});

describe('metadata', () => {
  it('drops metadata by default; keeps EXIF (orientation reset) with stripMetadata false', async () => {
    const tagged = await sharp(await fixtures.pattern('png'))
      .withMetadata({ orientation: 6 })
      .withExif({ IFD0: { Make: 'TestCam' } })
      .jpeg()
      .toBuffer();
    const stripped = await convert(tagged, 'jpg', { outputFormat: 'jpg' });
    const strippedMeta = await sharp(stripped.bytes).metadata();
    expect([strippedMeta.exif, strippedMeta.hasProfile]).toEqual([undefined, false]);
    const kept = await convert(tagged, 'jpg', { outputFormat: 'jpg', stripMetadata: false });
    const keptMeta = await sharp(kept.bytes).metadata();
    expect(keptMeta.exif?.toString('latin1')).toContain('TestCam');
    expect(keptMeta.orientation ?? 1).toBe(1);
    expect([keptMeta.width, keptMeta.height, keptMeta.hasProfile]).toEqual([48, 64, true]);
  });
});

describe('quality', () => {
  it.each(['jpg', 'webp', 'avif', 'png'] as const)('a lower quality makes a smaller %s', async (output) => {
    const photo = await ffmpegImage(
      'testsrc2=s=160x120',
      ['-f', 'image2', '-c:v', 'png'],
      fixtures.path(`photo-${output}.png`),
    );
    const high = await convert(photo, 'png', { outputFormat: output, quality: 95 });
    const low = await convert(photo, 'png', { outputFormat: output, quality: 10 });
    expect(low.bytes.length).toBeLessThan(high.bytes.length);
  });
});

describe('refusals', () => {
  it('names avif and webp when HEIC output is asked', async () => {
    const error = await convert(await fixtures.pattern('png'), 'png', { outputFormat: 'heic' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('unsupported_output_format');
    expect((error as ApiError).message).toMatch(/avif/);
    expect((error as ApiError).message).toMatch(/webp/);
  });

  it('refuses a PNG that declares 100000 × 100000 pixels before decoding it', async () => {
    const bomb = Buffer.from(await fixtures.pattern('png'));
    bomb.writeUInt32BE(100_000, 16);
    bomb.writeUInt32BE(100_000, 20);
    const started = Date.now();
    const error = await convert(bomb, 'png', { outputFormat: 'jpg' }).catch((e: unknown) => e);
    expect((error as ApiError).code).toBe('invalid_source_file');
    expect((error as ApiError).message).toMatch(/100000 × 100000/);
    // Decoding 10^10 pixels would take far longer than the route's limit on any machine.
    expect(Date.now() - started).toBeLessThan(29_000);
  });

  it('refuses a BMP and an SVG that declare too many pixels', async () => {
    const bmp = Buffer.from(await fixtures.pattern('bmp'));
    bmp.writeInt32LE(50_000, 18);
    bmp.writeInt32LE(50_000, 22);
    expect(await codeOf(convert(bmp, 'bmp', { outputFormat: 'png' }))).toBe('invalid_source_file');
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="200000" height="100000"><rect width="5" height="5"/></svg>';
    expect(await codeOf(convert(svg, 'svg', { outputFormat: 'png' }))).toBe('invalid_source_file');
  });

  it.each(['png', 'jpg', 'gif', 'webp', 'tiff', 'avif', 'heic', 'bmp', 'ico', 'svg'] as const)(
    'answers invalid_source_file for a %s cut in half',
    async (format) => {
      const whole = await fixtures.pattern(format);
      const cut = whole.subarray(0, Math.floor(whole.length / 2));
      expect(await codeOf(convert(cut, format, { outputFormat: 'png' }))).toBe('invalid_source_file');
    },
  );
});

describe('decodeToPng, for other suites', () => {
  it.each(['heic', 'bmp', 'ico', 'svg', 'jpg'] as const)('decodes %s to an 8-bit PNG', async (format) => {
    const path = await fixtures.save(`decode.${format}`, await fixtures.pattern(format));
    const png = await decodeToPng(path, format, workspace);
    const meta = await sharp(png.path).metadata();
    expect([meta.format, meta.depth, png.width, png.height]).toEqual(['png', 'uchar', 64, 48]);
    near((await quadrantColours(await readFile(png.path))).topRight, quadrants.topRight, 20);
  });

  it('refuses a format that is no image', async () => {
    expect(await codeOf(decodeToPng('/nonexistent', 'pdf', workspace))).toBe('unsupported_input_format');
  });
});
