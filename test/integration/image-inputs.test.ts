import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redGreenBlueGifs } from '../corpus/damaged-gif.ts';
import {
  bmpVariants,
  damagedPngs,
  encoderAnimations,
  type ImageCase,
  tallAnimations,
  twelveBitJpeg,
} from '../corpus/images.ts';
import { FixtureServer } from '../support/fixture-server.ts';
import { postJson, type RunningGateway, SHARED_KEYS, sharedGateway } from '../support/gateway.ts';
import { ImageFixtures } from '../unit/image/fixtures.ts';

/** A key with room for every request of this file (the free tier allows 10 a minute). */
const key = { 'x-api-key': SHARED_KEYS.enterprise };

const run = promisify(execFile);

/** An animation as a reader shows it: each frame composited on the canvas, as RGBA. */
interface ShownFrames {
  count: number;
  width: number;
  height: number;
  rgba: Buffer;
}

/**
 * Pillow's reading of an animated WebP, through libwebp's own animation decoder: ImageMagick 6
 * leaves disposed rectangles of WebP frames on the canvas.
 */
const pillowFrames = [
  'import sys',
  'from PIL import Image, ImageSequence',
  'frames = ImageSequence.Iterator(Image.open(sys.argv[1]))',
  "sys.stdout.buffer.write(b''.join(frame.convert('RGBA').tobytes() for frame in frames))",
].join('\n');

/**
 * How many frames ImageMagick reads in an image file, and each frame as shown: composited by
 * ImageMagick for GIF and PNG, by libwebp (through Pillow) for WebP.
 */
async function shownFrames(dir: string, bytes: Buffer, extension: string): Promise<ShownFrames> {
  const path = join(dir, `read-${Math.random().toString(36).slice(2)}.${extension}`);
  await writeFile(path, bytes);
  const limit = ['-limit', 'memory', '64MiB'];
  const { stdout } = await run('identify', [...limit, '-format', '%W %H\n', path]);
  const lines = stdout.trim().split('\n');
  const [width, height] = lines[0]!.split(' ').map(Number) as [number, number];
  const binary = { encoding: 'buffer', maxBuffer: 64 << 20 } as const;
  const { stdout: rgba } =
    extension === 'webp'
      ? await run('/usr/bin/python3', ['-c', pillowFrames, path], binary)
      : await run(
          'convert',
          [...limit, path, '-coalesce', '-background', 'none', '-depth', '8', 'RGBA:-'],
          binary,
        );
  await rm(path);
  return { count: lines.length, width, height, rgba };
}

/**
 * How far each frame of `b` is from the same frame of `a`: the mean difference of their
 * alpha-weighted channels, 0 to 1 (colour under full transparency is no part of the picture).
 */
function frameErrors(a: ShownFrames, b: ShownFrames): number[] {
  const frameBytes = a.width * a.height * 4;
  return Array.from({ length: Math.min(a.count, b.count) }, (_, frame) => {
    let sum = 0;
    for (let at = frame * frameBytes; at < (frame + 1) * frameBytes; at += 4) {
      const alphaA = a.rgba[at + 3]! / 255;
      const alphaB = b.rgba[at + 3]! / 255;
      for (let channel = 0; channel < 3; channel += 1) {
        sum += Math.abs(a.rgba[at + channel]! * alphaA - b.rgba[at + channel]! * alphaB);
      }
      sum += Math.abs(a.rgba[at + 3]! - b.rgba[at + 3]!);
    }
    return sum / (frameBytes * 255);
  });
}

/** Files met in the wild that the service once refused or failed on, through the local gateway. */
describe('real-world image inputs through the local gateway over real HTTP', () => {
  const fixtures = new ImageFixtures();
  const sources = new FixtureServer();
  let gateway: RunningGateway;
  let bmps: ImageCase[];
  let pngs: ImageCase[];
  let animations: ImageCase[];
  let encoded: ImageCase[];
  let scratch: string;
  const urlOf = (item: ImageCase, copy = 0) =>
    sources.serve(`/${copy}/${item.name.replace(/\W+/g, '-')}.${item.format}`, item.bytes);

  beforeAll(async () => {
    await fixtures.open();
    await sources.start();
    bmps = await bmpVariants(fixtures.path(''));
    pngs = await damagedPngs();
    animations = await tallAnimations(fixtures.path(''));
    scratch = await mkdtemp(join(tmpdir(), 'image-inputs-'));
    encoded = await encoderAnimations(scratch);
    gateway = sharedGateway();
  }, 180_000);

  afterAll(async () => {
    await gateway?.stop();
    await sources.stop();
    await fixtures.close();
    await rm(scratch, { recursive: true, force: true });
  }, 180_000);

  const post = (route: string, body: Record<string, unknown>) =>
    postJson(`${gateway.url}/${route}`, body, key);

  it('converts a BMP of every header variant (OS/2 core and 2.x, Windows 40 to 124 bytes) with its pixels', async () => {
    for (const bmp of bmps) {
      const response = await post('image-convert', { sourceUrl: urlOf(bmp), outputFormat: 'png' });
      expect(response.status, `${bmp.name}: ${await response.clone().text()}`).toBe(200);
      const { data, info } = await sharp(Buffer.from(await response.arrayBuffer()))
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect([info.width, info.height], bmp.name).toEqual(bmp.size);
      if (bmp.size?.[0] === 1) expect([...data.subarray(0, 3)], bmp.name).toEqual([0xc0, 0x40, 0x20]);
      else {
        // Top-left red, bottom-right white: rows are read the right way up whatever the header.
        expect([...data.subarray(0, 3)], bmp.name).toEqual([255, 0, 0]);
        expect([...data.subarray(data.length - info.channels)].slice(0, 3), bmp.name).toEqual([
          255, 255, 255,
        ]);
      }
    }
  }, 180_000);

  it('answers 400 invalid_source_file to every damaged PNG, also with 8 requests at once', async () => {
    const damaged = pngs.filter((png) => !png.size && !png.name.includes('ancillary'));
    expect(damaged.length).toBeGreaterThanOrEqual(6);
    for (const png of damaged) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, async (_, copy) => {
          const response = await post('image-convert', { sourceUrl: urlOf(png, copy), outputFormat: 'webp' });
          return {
            status: response.status,
            body: (await response.json()) as { error: string; message: string },
          };
        }),
      );
      for (const answer of answers) {
        expect(answer.status, `${png.name}: ${answer.body.message}`).toBe(400);
        expect(answer.body.error).toBe('invalid_source_file');
      }
    }
  }, 180_000);

  it('keeps every frame of an animation taller than 16 383 px stacked when converting to webp', async () => {
    for (const animation of animations) {
      const response = await post('image-convert', { sourceUrl: urlOf(animation), outputFormat: 'webp' });
      expect(response.status, `${animation.name}: ${await response.clone().text()}`).toBe(200);
      const meta = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.pageHeight ?? meta.height, meta.pages], animation.name).toEqual([
        'webp',
        13,
        169,
        97,
      ]);
    }
  }, 180_000);

  it('keeps every frame of animations written by img2webp, gif2webp, webpmux and ImageMagick, on convert, resize and optimize', async () => {
    const framesOf = async (response: Response, extension: string) => {
      expect(response.status, await response.clone().text()).toBe(200);
      return shownFrames(scratch, Buffer.from(await response.arrayBuffer()), extension);
    };
    // ImageMagick's optimised GIF is gif2webp's source; the corpus converts it on its own.
    for (const animation of encoded.filter((each) => !each.name.includes('optimised into'))) {
      const source = await shownFrames(scratch, animation.bytes, animation.format);
      expect(source.count, animation.name).toBe(animation.frames);
      const body = { sourceUrl: urlOf(animation), outputFormat: 'webp' };
      const webp = await framesOf(await post('image-convert', body), 'webp');
      expect([webp.count, webp.width, webp.height], animation.name).toEqual([source.count, 13, 169]);
      expect(Math.max(...frameErrors(source, webp)), animation.name).toBeLessThan(0.05);
    }
    // One picture repeated: the frames libwebp's and cgif's encoders would merge, on every route.
    for (const repeated of encoded.filter((each) => each.name.includes('repeated'))) {
      const url = urlOf(repeated);
      const resized = await framesOf(
        await post('image-resize', { sourceUrl: url, width: 7 }),
        repeated.format,
      );
      expect([resized.count, resized.width], repeated.name).toEqual([97, 7]);
      const body = { sourceUrl: url, outputFormat: repeated.format === 'gif' ? 'webp' : 'gif' };
      expect(
        (await framesOf(await post('image-optimize', body), body.outputFormat)).count,
        repeated.name,
      ).toBe(97);
    }
  }, 300_000);

  it('keeps all 3 frames of a GIF with one damaged frame (libvips refuses it) on convert to webp and on resize', async () => {
    const { damaged } = await redGreenBlueGifs(scratch);
    await expect(sharp(damaged, { animated: true }).png().toBuffer()).rejects.toThrow(/Invalid frame data/);
    const url = sources.serve('/damaged/red-green-blue.gif', damaged);
    const webp = await post('image-convert', { sourceUrl: url, outputFormat: 'webp', animated: true });
    expect(webp.status, await webp.clone().text()).toBe(200);
    const webpPath = join(scratch, 'damaged-converted.webp');
    await writeFile(webpPath, Buffer.from(await webp.arrayBuffer()));
    const { stdout: info } = await run('webpmux', ['-info', webpPath]);
    expect(info).toMatch(/Canvas size: 64 x 48[\s\S]*Number of frames: 3\b/);
    const resized = await post('image-resize', { sourceUrl: url, width: 32 });
    expect(resized.status, await resized.clone().text()).toBe(200);
    const gifPath = join(scratch, 'damaged-resized.gif');
    await writeFile(gifPath, Buffer.from(await resized.arrayBuffer()));
    const { stdout: frames } = await run('identify', ['-format', '%W %H\n', gifPath]);
    expect(frames.trim().split('\n')).toEqual(['32 24', '32 24', '32 24']);
  }, 180_000);

  it('answers 400 invalid_source_file naming 12-bit JPEG on convert and resize', async () => {
    const url = urlOf(twelveBitJpeg());
    for (const [route, body] of [
      ['image-convert', { outputFormat: 'png' }],
      ['image-resize', { width: 16 }],
    ] as const) {
      const response = await post(route, { sourceUrl: url, ...body });
      expect(response.status, route).toBe(400);
      expect(await response.json()).toMatchObject({
        error: 'invalid_source_file',
        message: expect.stringContaining('12-bit JPEG is not supported'),
      });
    }
  }, 180_000);
});
