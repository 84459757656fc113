import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp, { type SharpOptions } from 'sharp';
import type { ConvertOptions } from '#shared/image/convert.ts';
import type { ImageInputFormat } from '#shared/image/formats.ts';
import { referenceFfmpeg } from '../../support/reference-tools.ts';

const run = promisify(execFile);

/** Conversion options as the route's defaults leave them, with a test's own on top. */
export const convertOptions = (
  options: Partial<ConvertOptions> & Pick<ConvertOptions, 'outputFormat'>,
): ConvertOptions => ({
  fit: 'inside',
  stripMetadata: true,
  animated: true,
  icoSizes: [16, 32, 48, 256],
  svgMode: 'trace',
  ...options,
});

/** Every fixture draws the same 64 × 48 pattern: four solid quadrants. */
export const WIDTH = 64;
export const HEIGHT = 48;
export type Rgb = readonly [number, number, number];
export const quadrants = {
  topLeft: [255, 0, 0],
  topRight: [0, 255, 0],
  bottomLeft: [0, 0, 255],
  bottomRight: [255, 255, 255],
} as const satisfies Record<string, Rgb>;

const half = `${WIDTH / 2}x${HEIGHT / 2}`;
/** ffmpeg's lavfi graph of the pattern. */
const pattern =
  `color=c=red:s=${half}[a];color=c=0x00ff00:s=${half}[b];color=c=blue:s=${half}[c];color=c=white:s=${half}[d];` +
  '[a][b]hstack[top];[c][d]hstack[bottom];[top][bottom]vstack';

/** The pattern hand-written as SVG. */
export const patternSvg = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">
  <rect x="0" y="0" width="32" height="24" fill="#ff0000"/>
  <rect x="32" y="0" width="32" height="24" fill="#00ff00"/>
  <rect x="0" y="24" width="32" height="24" fill="#0000ff"/>
  <rect x="32" y="24" width="32" height="24" fill="#ffffff"/>
</svg>
`;

/** Output options of ffmpeg for each format it writes. */
const ffmpegRecipes: Partial<Record<ImageInputFormat, string[]>> = {
  png: ['-pix_fmt', 'rgb24', '-f', 'image2', '-c:v', 'png'],
  jpg: ['-q:v', '2', '-pix_fmt', 'yuvj444p', '-f', 'image2', '-c:v', 'mjpeg'],
  bmp: ['-pix_fmt', 'bgr24', '-f', 'image2', '-c:v', 'bmp'],
  tiff: ['-pix_fmt', 'rgb24', '-f', 'image2', '-c:v', 'tiff'],
  webp: ['-c:v', 'libwebp', '-lossless', '1', '-f', 'webp'],
  ico: ['-pix_fmt', 'bgra', '-c:v', 'bmp', '-f', 'ico'],
  gif: ['-f', 'gif'],
};

/** Runs ffmpeg on a lavfi graph and answers the file it wrote. */
export async function ffmpegImage(graph: string, args: string[], path: string): Promise<Buffer> {
  await run(referenceFfmpeg, [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    graph,
    '-frames:v',
    '1',
    ...args,
    path,
  ]);
  return readFile(path);
}

/** A scratch folder with fixtures made on first use. */
export class ImageFixtures {
  #dir = '';
  readonly #made = new Map<string, Promise<Buffer>>();

  async open(): Promise<void> {
    this.#dir = await mkdtemp(join(tmpdir(), 'image-fixtures-'));
  }

  async close(): Promise<void> {
    await rm(this.#dir, { recursive: true, force: true });
  }

  path(name: string): string {
    return join(this.#dir, name);
  }

  async save(name: string, bytes: Buffer | string): Promise<string> {
    const path = this.path(name);
    await writeFile(path, bytes);
    return path;
  }

  /** The quadrant pattern in a format, made by ffmpeg (png, jpg, bmp, tiff, webp, ico, gif), by hand (svg), or by libheif and libavif (heic and avif, committed: no tool in the project encodes them). */
  pattern(format: ImageInputFormat): Promise<Buffer> {
    return this.#once(`pattern.${format}`, async () => {
      if (format === 'svg') return Buffer.from(patternSvg);
      if (format === 'heic' || format === 'avif')
        return readFile(new URL(`../../fixtures/files/image/quad.${format}`, import.meta.url));
      const recipe = ffmpegRecipes[format];
      if (!recipe) throw new Error(`no recipe for ${format}`);
      if (format === 'gif') {
        // palettegen needs the end of its input, so the palette is made from the finished PNG.
        const png = await this.save('pattern-for-gif.png', await this.pattern('png'));
        const gif = this.path('pattern.gif');
        await run(referenceFfmpeg, [
          ...['-v', 'error', '-y', '-i', png, '-filter_complex'],
          ...['split[x][y];[x]palettegen[p];[y][p]paletteuse', ...recipe, gif],
        ]);
        return readFile(gif);
      }
      return ffmpegImage(pattern, recipe, this.path(`pattern.${format}`));
    });
  }

  /** An animation of three solid 32 × 24 frames (red, green, blue), 200 ms each, made by ffmpeg. */
  animation(format: 'gif' | 'webp'): Promise<Buffer> {
    return this.#once(`animation.${format}`, async () => {
      // Frames first: ffmpeg's GIF muxer drops the last frame of a lavfi graph it cannot time.
      const frames =
        'color=c=red:s=32x24:r=5:d=0.2[a];color=c=0x00ff00:s=32x24:r=5:d=0.2[b];color=c=blue:s=32x24:r=5:d=0.2[c];[a][b][c]concat=n=3';
      const pattern = this.path('frame-%d.png');
      await run(referenceFfmpeg, ['-v', 'error', '-y', '-f', 'lavfi', '-i', frames, '-f', 'image2', pattern]);
      const path = this.path(`animation.${format}`);
      const codec =
        format === 'gif' ? ['-f', 'gif'] : ['-c:v', 'libwebp_anim', '-lossless', '1', '-f', 'webp'];
      await run(referenceFfmpeg, [
        '-v',
        'error',
        '-y',
        '-framerate',
        '5',
        '-i',
        pattern,
        ...codec,
        '-loop',
        '0',
        path,
      ]);
      return readFile(path);
    });
  }

  #once(key: string, make: () => Promise<Buffer>): Promise<Buffer> {
    let made = this.#made.get(key);
    if (!made) {
      made = make();
      this.#made.set(key, made);
    }
    return made;
  }
}

/** Decoded RGB of a pixel (alpha flattened onto white). */
export async function pixelAt(
  image: Buffer | string,
  x: number,
  y: number,
  options: SharpOptions = {},
): Promise<Rgb> {
  const { data, info } = await sharp(image, options)
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at]!, data[at + 1]!, data[at + 2]!];
}

/** The colour at the centre of each quadrant of an image of any size. */
export async function quadrantColours(
  image: Buffer,
  options: SharpOptions = {},
): Promise<Record<keyof typeof quadrants, Rgb>> {
  const { data, info } = await sharp(image, options)
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const at = (fx: number, fy: number): Rgb => {
    const offset = (Math.floor(fy * info.height) * info.width + Math.floor(fx * info.width)) * info.channels;
    return [data[offset]!, data[offset + 1]!, data[offset + 2]!];
  };
  return {
    topLeft: at(0.25, 0.25),
    topRight: at(0.75, 0.25),
    bottomLeft: at(0.25, 0.75),
    bottomRight: at(0.75, 0.75),
  };
}

/** Largest difference of any channel. */
export const colourDistance = (a: Rgb, b: Rgb) => Math.max(...a.map((value, i) => Math.abs(value - b[i]!)));

/** Decodes a BMP with ffmpeg (an independent decoder) to PNG. */
export async function bmpToPng(fixtures: ImageFixtures, bmp: Buffer): Promise<Buffer> {
  const input = await fixtures.save(`decode-${Math.random().toString(36).slice(2)}.bmp`, bmp);
  const output = `${input}.png`;
  await run(referenceFfmpeg, [
    '-v',
    'error',
    '-y',
    '-i',
    input,
    '-frames:v',
    '1',
    '-pix_fmt',
    'rgb24',
    output,
  ]);
  return readFile(output);
}
