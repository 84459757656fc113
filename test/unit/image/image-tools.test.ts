import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { decode as decodeBlurhash } from 'blurhash';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import type { ImageInputFormat } from '#shared/image/formats.ts';
import { readPlaceholder } from '#shared/image/placeholder.ts';
import { imageTransformBody, type TransformOperation } from '#shared/image/tools-schema.ts';
import { transformImage } from '#shared/image/transform.ts';
import { aspectBox, clipBox, rotatedSize } from '#shared/image/transform-ops.ts';
import { placeMark, watermarkImage } from '#shared/image/watermark.ts';
import { fixturesWithWorkspace } from '../../support/fixture-hooks.ts';
import { ImageFixtures } from './fixtures.ts';

/**
 * /image-transform, /image-watermark and the placeholders of /image-metadata as work functions, on
 * images ImageMagick draws, each result compared with ImageMagick doing the same operation.
 */

const run = promisify(execFile);
const fixtures = new ImageFixtures();
const workspace = fixturesWithWorkspace(fixtures);

/** A 120 × 80 picture: a red-to-blue gradient with a yellow box, drawn by ImageMagick. */
const pictures = new Map<string, Promise<string>>();
function picture(name = 'picture.png', extra: string[] = []): Promise<string> {
  if (!pictures.has(name)) pictures.set(name, drawPicture(name, extra));
  return pictures.get(name)!;
}

async function drawPicture(name: string, extra: string[]): Promise<string> {
  const path = fixtures.path(name);
  await run('convert', [
    ...['-size', '120x80', 'gradient:red-blue', '-fill', 'yellow', '-draw', 'rectangle 10,10 50,30'],
    ...extra,
    ...['-depth', '8'],
    path,
  ]);
  return path;
}

/** ImageMagick's result of the same operation on the picture, as a PNG path. */
async function magick(source: string, args: string[]): Promise<string> {
  const path = fixtures.path(`magick-${Math.random().toString(36).slice(2)}.png`);
  await run('convert', [source, ...args, path]);
  return path;
}

/** Root mean square difference of two images (0 equal, 1 opposite), as ImageMagick's compare states it. */
async function difference(a: string, b: string): Promise<number> {
  const result = await run('compare', ['-metric', 'RMSE', a, b, 'null:']).catch(
    (error: { stderr: string }) => error,
  );
  const normalised = /\(([\d.e-]+)\)/.exec(result.stderr)?.[1];
  if (normalised === undefined) throw new Error(`compare said: ${result.stderr}`);
  return Number(normalised);
}

async function transform(path: string, operations: TransformOperation[], format: ImageInputFormat = 'png') {
  const body = imageTransformBody.parse({
    sourceUrl: 'https://example.com/x',
    operations,
    outputFormat: 'png',
  });
  return transformImage(
    { path, format },
    { operations: body.operations, outputFormat: body.outputFormat },
    workspace,
  );
}

const sizeOf = async (path: string) => {
  const { width, height } = await sharp(path).metadata();
  return { width, height };
};

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof ApiError ? `${error.code}: ${error.message}` : String(error)),
  );

describe('image-transform against ImageMagick', () => {
  // Lossless operations match ImageMagick's to 0.001 RMSE (8-bit rounding); blur within 0.02.
  it.each([
    ['rotate 90', [{ op: 'rotate', angle: 90 }], ['-rotate', '90'], 0],
    ['flip horizontal', [{ op: 'flip', direction: 'horizontal' }], ['-flop'], 0],
    ['flip vertical', [{ op: 'flip', direction: 'vertical' }], ['-flip'], 0],
    [
      'crop box',
      [{ op: 'crop', left: 10, top: 20, width: 40, height: 30 }],
      ['-crop', '40x30+10+20', '+repage'],
      0,
    ],
    ['negate', [{ op: 'negate' }], ['-negate'], 0],
    ['blur sigma 2', [{ op: 'blur', sigma: 2 }], ['-blur', '0x2'], 0.02],
    [
      'rotate then crop then flip',
      [
        { op: 'rotate', angle: 90 },
        { op: 'crop', left: 0, top: 0, width: 50, height: 60 },
        { op: 'flip', direction: 'vertical' },
      ],
      ['-rotate', '90', '-crop', '50x60+0+0', '+repage', '-flip'],
      0,
    ],
  ] as const)('%s', async (_name, operations, args, limit) => {
    const tolerance = Math.max(limit, 0.001);
    const source = await picture();
    const file = await transform(source, operations as unknown as TransformOperation[]);
    const reference = await magick(source, [...args]);
    expect(await sizeOf(file.path)).toEqual(await sizeOf(reference));
    expect(await difference(file.path, reference)).toBeLessThanOrEqual(tolerance);
  });

  it('extend adds a border of the colour asked, as -border does', async () => {
    const source = await picture();
    const file = await transform(source, [
      { op: 'extend', top: 7, right: 7, bottom: 7, left: 7, background: '#00ff00' } as never,
    ]);
    const reference = await magick(source, ['-bordercolor', '#00ff00', '-border', '7', '-alpha', 'on']);
    expect(await sizeOf(file.path)).toEqual({ width: 134, height: 94 });
    expect(await difference(file.path, reference)).toBeLessThanOrEqual(0.002);
  });

  it('trim removes a uniform border as -trim does', async () => {
    const source = await picture('bordered.png', ['-bordercolor', 'white', '-border', '15']);
    const file = await transform(source, [{ op: 'trim' } as never]);
    const reference = await magick(source, ['-fuzz', '4%', '-trim', '+repage']);
    expect(await sizeOf(file.path)).toEqual(await sizeOf(reference));
    expect(await sizeOf(file.path)).toEqual({ width: 120, height: 80 });
  });

  it('rotate by 30° grows the canvas to the turned image’s bounding box, as -rotate does', async () => {
    const source = await picture();
    const file = await transform(source, [{ op: 'rotate', angle: 30 } as never]);
    const reference = await sizeOf(await magick(source, ['-background', 'none', '-rotate', '30']));
    const ours = await sizeOf(file.path);
    // libvips and ImageMagick round the bounding box apart by up to 3 px.
    expect(Math.abs(ours.width! - reference.width!)).toBeLessThanOrEqual(3);
    expect(Math.abs(ours.height! - reference.height!)).toBeLessThanOrEqual(3);
    // The corners the turn uncovers are transparent.
    const { data } = await sharp(file.path).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(data[3]).toBe(0);
  });

  it('crop by aspect ratio keeps the largest 1:1 part, smart positions included', async () => {
    const source = await picture();
    for (const position of ['centre', 'attention', 'entropy', 'west']) {
      const file = await transform(source, [{ op: 'crop', aspectRatio: '1:1', position } as never]);
      expect(await sizeOf(file.path)).toEqual({ width: 80, height: 80 });
    }
    const west = await transform(source, [{ op: 'crop', aspectRatio: '1:1', position: 'west' } as never]);
    expect(
      await difference(west.path, await magick(source, ['-crop', '80x80+0+0', '+repage'])),
    ).toBeLessThanOrEqual(0.001);
  });

  it('pixelate makes blocks of one colour, only inside the region', async () => {
    const source = await picture();
    const file = await transform(source, [
      { op: 'pixelate', size: 10, region: { left: 0, top: 0, width: 60, height: 40 } } as never,
    ]);
    const { data, info } = await sharp(file.path).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [
      ...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3),
    ];
    expect(at(10, 10)).toEqual(at(19, 19));
    expect(at(10, 10)).not.toEqual(at(9, 9));
    const outside = await difference(
      await magick(file.path, ['-crop', '60x40+60+40', '+repage']),
      await magick(source, ['-crop', '60x40+60+40', '+repage']),
    );
    expect(outside).toBeLessThanOrEqual(0.001);
  });

  it('grayscale makes every pixel grey and keeps lightness in order', async () => {
    const file = await transform(await picture(), [{ op: 'grayscale' } as never]);
    const { data, info } = await sharp(file.path)
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [
      ...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3),
    ];
    const yellow = at(20, 20);
    const blue = at(100, 75);
    expect(new Set(yellow).size).toBe(1);
    expect(new Set(blue).size).toBe(1);
    expect(yellow[0]!).toBeGreaterThan(blue[0]! + 100);
  });

  it('roundCorners makes the corners transparent and keeps the middle', async () => {
    const file = await transform(await picture(), [{ op: 'roundCorners', radius: 20 } as never]);
    const { data, info } = await sharp(file.path).raw().toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(4);
    expect(data[3]).toBe(0);
    expect(data[(40 * info.width + 60) * 4 + 3]).toBe(255);
  });

  it('an animated GIF keeps its three frames through flip and extend', async () => {
    const path = await fixtures.save('animation.gif', await fixtures.animation('gif'));
    const body = imageTransformBody.parse({
      sourceUrl: 'https://example.com/x',
      operations: [
        { op: 'flip', direction: 'horizontal' },
        { op: 'extend', top: 4, bottom: 4 },
      ],
    });
    const file = await transformImage({ path, format: 'gif' }, body, workspace);
    const meta = await sharp(await readFile(file.path), { animated: true }).metadata();
    expect(file.format).toBe('gif');
    expect(meta.pages).toBe(3);
    expect(meta.pageHeight).toBe(32);
    expect(meta.delay).toEqual([200, 200, 200]);
  });

  it('an operation whose result passes the pixel limit is refused before it runs, naming it', async () => {
    const source = await picture();
    expect(
      await codeOf(transform(source, [{ op: 'extend', right: 16_000, bottom: 16_000 } as never])),
    ).toMatch(/^validation_failed: operations\.0: .*megapixels/);
    expect(
      await codeOf(transform(source, [{ op: 'crop', left: 500, top: 500, width: 10, height: 10 } as never])),
    ).toMatch(/^validation_failed: operations\.0: the box/);
  });

  it('the schema takes a box or an aspect ratio, not both, and 1–10 operations', () => {
    const parse = (operations: unknown) =>
      imageTransformBody.safeParse({ sourceUrl: 'https://example.com/x', operations }).success;
    expect(parse([{ op: 'crop', aspectRatio: '16:9' }])).toBe(true);
    expect(parse([{ op: 'crop', aspectRatio: '16:9', left: 1 }])).toBe(false);
    expect(parse([{ op: 'crop', left: 1, top: 1, width: 2 }])).toBe(false);
    expect(parse([{ op: 'blur', sigma: 0.1 }])).toBe(false);
    expect(parse([{ op: 'spin' }])).toBe(false);
    expect(parse([])).toBe(false);
    expect(parse(Array.from({ length: 11 }, () => ({ op: 'negate' })))).toBe(false);
  });

  it('geometry helpers', () => {
    expect(aspectBox('16:9', 1920, 1440)).toEqual({ width: 1920, height: 1080 });
    expect(aspectBox('1:1', 100, 50)).toEqual({ width: 50, height: 50 });
    expect(rotatedSize(90, 30, 20)).toEqual({ width: 20, height: 30 });
    expect(rotatedSize(-180, 30, 20)).toEqual({ width: 30, height: 20 });
    expect(clipBox({ left: 90, top: 0, width: 50, height: 10 }, 100, 100, 'f')).toEqual({
      left: 90,
      top: 0,
      width: 10,
      height: 10,
    });
  });
});

describe('image-watermark', () => {
  it('places a mark at each compass point, margin pixels from the edges', () => {
    const base = { width: 100, height: 80 };
    const mark = { width: 20, height: 10 };
    expect(placeMark('southeast', base, mark, 5)).toEqual({ left: 75, top: 65 });
    expect(placeMark('northwest', base, mark, 5)).toEqual({ left: 5, top: 5 });
    expect(placeMark('centre', base, mark, 5)).toEqual({ left: 40, top: 35 });
    expect(placeMark('north', base, mark, 5)).toEqual({ left: 40, top: 5 });
  });

  it('an image mark lands where asked, at the scale and opacity asked', async () => {
    const base = await picture();
    const mark = fixtures.path('mark.png');
    await run('convert', ['-size', '10x10', 'xc:#00ff00', mark]);
    const file = await watermarkImage(
      { path: base, format: 'png' },
      {
        image: { path: mark, format: 'png' },
        font: 'sans',
        position: 'northwest',
        opacity: 1,
        margin: 4,
        scale: 0.25,
        rotation: 0,
      },
      workspace,
    );
    // ImageMagick draws the same: a 30 × 30 green square 4 px from the top-left corner.
    const reference = await magick(base, ['-fill', '#00ff00', '-draw', 'rectangle 4,4 33,33']);
    expect(await difference(file.path, reference)).toBeLessThanOrEqual(0.005);
  });

  it('a text mark in several scripts changes only its corner; tiling covers the whole image', async () => {
    const base = await picture('plain.png', ['-fill', 'black', '-draw', 'rectangle 0,0 119,79']);
    const text = {
      font: 'sans',
      opacity: 1,
      margin: 2,
      scale: 0.25,
      rotation: 0,
      fontSize: 14,
      color: { r: 255, g: 255, b: 255, alpha: 1 },
    } as const;
    const corner = await watermarkImage(
      { path: base, format: 'png' },
      { ...text, text: 'Aж你', position: 'southeast' },
      workspace,
    );
    const { data, info } = await sharp(corner.path).greyscale().raw().toBuffer({ resolveWithObject: true });
    const lit = (x0: number, x1: number, y0: number, y1: number) => {
      let count = 0;
      for (let y = y0; y < y1; y += 1)
        for (let x = x0; x < x1; x += 1) if (data[y * info.width + x]! > 100) count += 1;
      return count;
    };
    expect(lit(60, 120, 55, 80)).toBeGreaterThan(20);
    expect(lit(0, 60, 0, 50)).toBe(0);
    const tiled = await watermarkImage(
      { path: base, format: 'png' },
      { ...text, text: 'x', position: 'tile' },
      workspace,
    );
    const tiles = await sharp(tiled.path).greyscale().raw().toBuffer({ resolveWithObject: true });
    const half = (top: boolean) => {
      let count = 0;
      const start = top ? 0 : 40 * tiles.info.width;
      for (let i = start; i < start + 40 * tiles.info.width; i += 1) if (tiles.data[i]! > 100) count += 1;
      return count;
    };
    expect(half(true)).toBeGreaterThan(10);
    expect(half(false)).toBeGreaterThan(10);
  });
});

describe('placeholders', () => {
  it('a solid colour gives its own dominant colour, a BlurHash and ThumbHash of it', async () => {
    const path = fixtures.path('solid.png');
    await run('convert', ['-size', '64x48', 'xc:#3366cc', path]);
    const placeholder = await readPlaceholder({ path, format: 'png' });
    expect(placeholder.dominantColor).toMatch(/^#[0-9a-f]{6}$/);
    const [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(placeholder.dominantColor.slice(at, at + 2), 16));
    expect(Math.abs(r! - 0x33) + Math.abs(g! - 0x66) + Math.abs(b! - 0xcc)).toBeLessThanOrEqual(24);
    const pixels = decodeBlurhash(placeholder.blurhash, 4, 3);
    expect(
      Math.abs(pixels[0]! - 0x33) + Math.abs(pixels[1]! - 0x66) + Math.abs(pixels[2]! - 0xcc),
    ).toBeLessThanOrEqual(12);
    expect(Buffer.from(placeholder.thumbhash, 'base64').length).toBeGreaterThan(4);
  });
});
