import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp, { type Sharp } from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { convertImage } from '#shared/image/convert.ts';
import { openImage } from '#shared/image/decode.ts';
import { openLenientGif } from '#shared/image/gif-lenient.ts';
import { readHeader } from '#shared/image/header.ts';
import { writeOpened } from '#shared/image/render-failure.ts';
import { Workspace } from '#shared/workspace.ts';
import { damageGifFrame, redGreenBlueGifs } from '../../corpus/damaged-gif.ts';
import { convertOptions } from './fixtures.ts';

const run = promisify(execFile);

/** Frames of an image file as ImageMagick reads them: their count, and each composited as RGB. */
async function magickFrames(path: string): Promise<{ count: number; frames: Buffer[] }> {
  const { stdout } = await run('identify', ['-format', '%W %H\n', path]);
  const lines = stdout.trim().split('\n');
  const [width, height] = lines[0]!.split(' ').map(Number) as [number, number];
  const { stdout: rgb } = await run('convert', [path, '-coalesce', '-depth', '8', 'RGB:-'], {
    encoding: 'buffer',
    maxBuffer: 16 << 20,
  });
  const size = width * height * 3;
  const frames = Array.from({ length: lines.length }, (_, index) =>
    rgb.subarray(index * size, (index + 1) * size),
  );
  return { count: lines.length, frames };
}

/** The colour of a frame's middle pixel, when every pixel of the frame has it. */
function solidColour(frame: Buffer): number[] | undefined {
  const first = [...frame.subarray(0, 3)];
  for (let at = 0; at < frame.length; at += 3) {
    if (frame[at] !== first[0] || frame[at + 1] !== first[1] || frame[at + 2] !== first[2]) return undefined;
  }
  return first;
}

/** A GIF of one 4 × 4 frame whose LZW codes (3 bits each) are `codes`, written by hand. */
function gifWithCodes(codes: readonly number[], minCodeSize = 2): Buffer {
  const bytes: number[] = [];
  let bits = 0;
  let held = 0;
  for (const code of codes) {
    bits |= code << held;
    held += 3;
    while (held >= 8) {
      bytes.push(bits & 0xff);
      bits >>= 8;
      held -= 8;
    }
  }
  if (held > 0) bytes.push(bits & 0xff);
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    Buffer.from([4, 0, 4, 0, 0x81, 0, 0]),
    Buffer.from([255, 0, 0, 0, 0, 255, 0, 255, 0, 255, 255, 255]),
    Buffer.from([0x2c, 0, 0, 0, 0, 4, 0, 4, 0, 0, minCodeSize, bytes.length, ...bytes, 0, 0x3b]),
  ]);
}

describe('a GIF with one damaged frame', () => {
  const workspace = new Workspace();
  let dir: string;
  let whole: string;
  let damaged: string;

  beforeAll(async () => {
    // Prepare: ImageMagick writes red, green and blue frames; the green one's LZW data is damaged.
    dir = await mkdtemp(join(tmpdir(), 'gif-damaged-'));
    const gifs = await redGreenBlueGifs(dir);
    whole = join(dir, 'whole.gif');
    damaged = join(dir, 'damaged.gif');
    await writeFile(whole, gifs.whole);
    await writeFile(damaged, gifs.damaged);
  });

  afterAll(async () => {
    await workspace.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const convert = async (path: string, outputFormat: 'gif' | 'png' | 'webp', width?: number) => {
    const options = convertOptions({ outputFormat, width });
    const file = await convertImage({ path, format: 'gif' }, options, workspace);
    return file.path;
  };

  it('is refused by libvips alone, for the damaged frame and every later one', async () => {
    await expect(sharp(damaged, { animated: true }).png().toBuffer()).rejects.toThrow(
      /gifload: Invalid frame data/,
    );
    await expect(sharp(damaged, { page: 2 }).png().toBuffer()).rejects.toThrow(/gifload: Invalid frame data/);
  });

  it('converts to an animated gif with its 3 frames, the first red and the third blue', async () => {
    const read = await magickFrames(await convert(damaged, 'gif'));
    expect(read.count).toBe(3);
    expect(solidColour(read.frames[0]!)).toEqual([255, 0, 0]);
    expect(solidColour(read.frames[2]!)).toEqual([0, 0, 255]);
  });

  it('resizes as an animated gif, each of its 3 frames resized', async () => {
    const path = await convert(damaged, 'gif', 32);
    const { stdout } = await run('identify', ['-format', '%W %H\n', path]);
    expect(stdout.trim().split('\n')).toEqual(['32 24', '32 24', '32 24']);
    // libvips' resize of a page stack blends the rows where pages meet, a libvips-read GIF's too: the middle is judged.
    const third = (await magickFrames(path)).frames[2]!;
    const middle = (12 * 32 + 16) * 3;
    expect([...third.subarray(middle, middle + 3)]).toEqual([0, 0, 255]);
  });

  it('converts to an animated webp with its 3 frames and their 200 ms', async () => {
    const { stdout } = await run('webpmux', ['-info', await convert(damaged, 'webp')]);
    expect(stdout).toMatch(/Number of frames: 3\b/);
    expect(stdout.match(/^ *\d+: .* 200 /gm)).toHaveLength(3);
  });

  it('converts to png as its first frame, red', async () => {
    const read = await magickFrames(await convert(damaged, 'png'));
    expect(read.count).toBe(1);
    expect(solidColour(read.frames[0]!)).toEqual([255, 0, 0]);
  });

  it('converts to png when the first frame is the damaged one, though libvips refuses even that frame', async () => {
    const path = join(dir, 'first-damaged.gif');
    await writeFile(path, damageGifFrame(await readFile(whole), 0));
    await expect(sharp(path).png().toBuffer()).rejects.toThrow(/gifload: Invalid frame data/);
    const read = await magickFrames(await convert(path, 'png'));
    expect(read.count).toBe(1);
  });

  it('is written from the lenient reading, and a whole GIF from libvips as before', async () => {
    const write = (image: { image: Sharp }) => image.image.png().toBuffer();
    const refused = await openImage(damaged, 'gif', { animated: true });
    const lenient = await writeOpened(refused, write);
    expect(lenient.written).not.toBe(refused);
    expect([lenient.written.frames, lenient.written.timing]).toEqual([
      3,
      { delays: [200, 200, 200], loop: 0 },
    ]);
    const intact = await openImage(whole, 'gif', { animated: true });
    expect((await writeOpened(intact, write)).written).toBe(intact);
  });
});

describe('the lenient GIF reader on hostile LZW data', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gif-hostile-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const openLeniently = async (bytes: Buffer) => {
    const path = join(dir, `${Math.random().toString(36).slice(2)}.gif`);
    await writeFile(path, bytes);
    return openLenientGif(path, await readHeader(path, 'gif'), true);
  };

  it('ends a frame whose first code names the entry being defined (a table that chases itself)', async () => {
    // Codes 6 6 6 6 with a clear code of 4: the first 6 is not yet defined, and becomes its own prefix.
    const opened = await openLeniently(gifWithCodes([6, 6, 6, 6, 5]));
    const { data, info } = await opened.image.raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, opened.frames]).toEqual([4, 4, 1]);
    expect(data.length).toBe(4 * 4 * info.channels);
  });

  it('refuses with 400 a frame that declares codes wider than 12 bits', async () => {
    const refusal = await openLeniently(gifWithCodes([4, 0, 5], 30)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ code: 'invalid_source_file' });
  });

  it('refuses with 400 bytes that are no GIF', async () => {
    const refusal = await openLeniently(Buffer.from('GIF89a\x01')).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'invalid_source_file' });
  });
});
