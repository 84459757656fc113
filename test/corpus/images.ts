import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { referenceFfmpeg } from '../support/reference-tools.ts';
import { jpeg12 } from './jpeg12.ts';

/*
 * The image part of the differential corpus: every BMP header variant, damaged PNGs and their
 * sound neighbours, a 12-bit JPEG, animations taller than WebP's side when stacked (written by
 * ffmpeg, and by libwebp's own tools with frame offsets, blend and dispose flags, mixed lossy and
 * lossless frames and repeated frames) and GIFs with one damaged frame. Every file is written here,
 * by ImageMagick, ffmpeg, libwebp's tools, sharp or by hand; none is copied from elsewhere.
 */

const run = promisify(execFile);

export interface ImageCase {
  name: string;
  /** The file extension, which is also the source format the service should sniff. */
  format: 'bmp' | 'png' | 'jpg' | 'webp' | 'gif';
  bytes: Buffer;
  /** Width and height of the image (of one frame), when it is readable. */
  size?: readonly [number, number];
  /** Frames of an animation, as ImageMagick reads them. */
  frames?: number;
  /**
   * Why the service reads a file the reference reader refuses: a variant the format defines that
   * the reference's own reader does not know.
   */
  beyondReference?: string;
}

/** A 12 × 8 picture of four solid quadrants (red, green, blue, white), as PNG. */
export const quadrantPng = () => {
  const raw = Buffer.alloc(12 * 8 * 3);
  for (let y = 0; y < 8; y += 1) {
    for (let x = 0; x < 12; x += 1) {
      const colour = y < 4 ? (x < 6 ? [255, 0, 0] : [0, 255, 0]) : x < 6 ? [0, 0, 255] : [255, 255, 255];
      raw.set(colour, (y * 12 + x) * 3);
    }
  }
  return sharp(raw, { raw: { width: 12, height: 8, channels: 3 } })
    .png()
    .toBuffer();
};

/** ImageMagick's converter, within a small memory budget. */
async function magick(dir: string, input: Buffer, args: string[], output: string): Promise<Buffer> {
  const source = join(dir, 'in.png');
  await writeFile(source, input);
  const target = join(dir, output.replace(/^\w+:/, ''));
  await run('convert', ['-limit', 'memory', '64MiB', source, ...args, output.replace(/:/, `:${dir}/`)]);
  return readFile(target);
}

const FILE_HEADER = 14;

/** A Windows 40-byte-header BMP rewritten with a header of `size` bytes of the same fields. */
function withHeaderSize(bmp3: Buffer, size: 16 | 52 | 56 | 64): Buffer {
  const info = bmp3.subarray(FILE_HEADER, FILE_HEADER + 40);
  const header = Buffer.alloc(size);
  if (size === 16) info.copy(header, 0, 0, 16);
  else {
    info.copy(header, 0, 0, 40);
    // Colour masks of the 52- and 56-byte variants (read for 16- and 32-bit pixels only).
    if (size !== 64) {
      for (const [i, mask] of [0xff0000, 0xff00, 0xff].entries()) header.writeUInt32LE(mask, 40 + i * 4);
    }
  }
  header.writeUInt32LE(size, 0);
  const rest = bmp3.subarray(FILE_HEADER + 40);
  const file = Buffer.concat([bmp3.subarray(0, FILE_HEADER), header, rest]);
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(bmp3.readUInt32LE(10) + size - 40, 10);
  return file;
}

/** The case: a 1 × 1 BMP with the 12-byte OS/2 core header, written field by field. */
function coreBmpOnePixel(): Buffer {
  const file = Buffer.alloc(FILE_HEADER + 12 + 4);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(FILE_HEADER + 12, 10);
  file.writeUInt32LE(12, 14);
  file.writeUInt16LE(1, 18); // width
  file.writeUInt16LE(1, 20); // height
  file.writeUInt16LE(1, 22); // planes
  file.writeUInt16LE(24, 24); // bits a pixel
  file.set([0x20, 0x40, 0xc0], FILE_HEADER + 12); // one blue-green-red pixel, padded to 4 bytes
  return file;
}

/** Every BMP header variant the format defines, each holding the quadrant picture. */
export async function bmpVariants(dir: string): Promise<ImageCase[]> {
  const png = await quadrantPng();
  const bmp3 = await magick(dir, png, ['-type', 'truecolor'], 'BMP3:v3.bmp');
  const size: readonly [number, number] = [12, 8];
  const bmp = (name: string, bytes: Buffer, at = size): ImageCase => ({
    name,
    format: 'bmp',
    bytes,
    size: at,
  });
  return [
    bmp('bmp core header 12 bytes, 1 × 1', coreBmpOnePixel(), [1, 1]),
    bmp('bmp core header 12 bytes, 24-bit', await magick(dir, png, ['-type', 'truecolor'], 'BMP2:core.bmp')),
    bmp(
      'bmp core header 12 bytes, palette',
      await magick(dir, png, ['-type', 'palette'], 'BMP2:core-pal.bmp'),
    ),
    {
      ...bmp('bmp OS/2 2.x header 16 bytes', withHeaderSize(bmp3, 16)),
      beyondReference:
        'OS/2 2.x allows its header cut to 16 bytes; ImageMagick 6 reads a compression field past them',
    },
    bmp('bmp OS/2 2.x header 64 bytes', withHeaderSize(bmp3, 64)),
    bmp('bmp info header 40 bytes', bmp3),
    bmp('bmp info header 40 bytes, palette', await magick(dir, png, ['-type', 'palette'], 'BMP3:v3-pal.bmp')),
    bmp('bmp v2 header 52 bytes', withHeaderSize(bmp3, 52)),
    bmp('bmp v3 header 56 bytes', withHeaderSize(bmp3, 56)),
    bmp('bmp v4 header 108 bytes', await magick(dir, png, ['-define', 'bmp:format=bmp4'], 'BMP:v4.bmp')),
    bmp('bmp v5 header 124 bytes', await magick(dir, png, ['-type', 'truecolor'], 'BMP:v5.bmp')),
  ];
}

interface Chunk {
  at: number;
  length: number;
  type: string;
}

function chunksOf(png: Buffer): Chunk[] {
  const chunks: Chunk[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    chunks.push({ at, length, type: png.toString('latin1', at + 4, at + 8) });
    at += 12 + length;
  }
  return chunks;
}

/** Sets the CRC of a chunk to match its (altered) contents. */
function fixCrc(png: Buffer, chunk: Chunk): void {
  const end = chunk.at + 8 + chunk.length;
  png.writeUInt32BE(crc32(png.subarray(chunk.at + 4, end)), end);
}

/** A noisy 320 × 200 PNG (incompressible enough to need several IDAT chunks), and damaged copies of it. */
export async function damagedPngs(): Promise<ImageCase[]> {
  const width = 320;
  const height = 200;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i += 1) raw[i] = (i * 7919 + (i >> 7) * 31) % 251;
  const png = await sharp(raw, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .withMetadata({ exif: { IFD0: { ImageDescription: 'corpus' } } })
    .toBuffer();
  const chunks = chunksOf(png);
  const idat = chunks.filter((chunk) => chunk.type === 'IDAT');
  const first = idat[0]!;
  const last = idat.at(-1)!;
  const copy = () => Buffer.from(png);
  const size = [width, height] as const;

  const badAdler = copy();
  badAdler[last.at + 8 + last.length - 1]! ^= 0xff;
  fixCrc(badAdler, last);
  const badCrc = copy();
  badCrc[first.at + 8 + first.length]! ^= 0xff;
  const hugeIdat = copy();
  hugeIdat.writeUInt32BE(0x7ffffff0, first.at);
  const corruptDeflate = copy();
  corruptDeflate.fill(0xff, first.at + 8 + 100, first.at + 8 + 140);
  fixCrc(corruptDeflate, first);
  const ancillary = chunks.find((chunk) => chunk.type !== 'IHDR' && !['IDAT', 'IEND'].includes(chunk.type));
  const badAncillaryCrc = copy();
  if (ancillary) badAncillaryCrc[ancillary.at + 8 + ancillary.length]! ^= 0xff;
  const noIend = png.subarray(0, chunks.at(-1)!.at);

  return [
    { name: 'png intact', format: 'png', bytes: png, size },
    { name: 'png cut short (60 %)', format: 'png', bytes: png.subarray(0, Math.floor(png.length * 0.6)) },
    {
      name: 'png cut inside its last IDAT',
      format: 'png',
      bytes: png.subarray(0, last.at + 8 + last.length - 8),
    },
    { name: 'png bad Adler-32', format: 'png', bytes: badAdler },
    { name: 'png bad IDAT CRC', format: 'png', bytes: badCrc },
    { name: 'png huge IDAT length', format: 'png', bytes: hugeIdat },
    { name: 'png corrupt deflate data', format: 'png', bytes: corruptDeflate },
    { name: 'png without IEND', format: 'png', bytes: noIend },
    ...(ancillary
      ? [{ name: 'png bad CRC on an ancillary chunk', format: 'png' as const, bytes: badAncillaryCrc }]
      : []),
  ];
}

/** 97 frames of 13 × 169: 16 393 px stacked, over WebP's 16 383 a side, each frame far within it. */
export async function tallAnimations(dir: string): Promise<ImageCase[]> {
  const graph = 'testsrc=s=13x169:r=10:d=9.7';
  const make = async (name: string, args: string[]) => {
    const path = join(dir, name);
    await run(referenceFfmpeg, [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      graph,
      '-frames:v',
      '97',
      ...args,
      path,
    ]);
    return readFile(path);
  };
  const size = [13, 169] as const;
  return [
    {
      name: 'webp animation 97 × 13 × 169',
      format: 'webp',
      size,
      bytes: await make('strip.webp', ['-c:v', 'libwebp', '-lossless', '1', '-loop', '0']),
    },
    {
      name: 'gif animation 97 × 13 × 169',
      format: 'gif',
      size,
      bytes: await make('strip.gif', ['-loop', '0']),
    },
  ];
}

const STRIP = { width: 13, height: 169, frames: 97 } as const;

/**
 * The 97 frames of a 13 × 169 strip as PNG files: a coloured block moving down over transparency,
 * under a half-transparent band that moves faster, so that each frame differs from the one before
 * in small rectangles (which encoders write as offset frames).
 */
async function stripFrames(dir: string): Promise<string[]> {
  const { width, height } = STRIP;
  return Promise.all(
    Array.from({ length: STRIP.frames }, async (_, index) => {
      const raw = Buffer.alloc(width * height * 4);
      const block = index % 160;
      const band = (index * 7) % 160;
      for (let y = 0; y < height; y += 1) {
        for (let x = 0; x < width; x += 1) {
          const at = (y * width + x) * 4;
          if (y >= block && y < block + 9 && x >= 2 && x < 11)
            raw.set([(index * 40) % 256, 200, 255 - index, 255], at);
          if (y >= band && y < band + 5) raw.set([0, 0, 255, 128], at);
        }
      }
      const path = join(dir, `frame-${String(index).padStart(2, '0')}.png`);
      await sharp(raw, { raw: { width, height, channels: 4 } })
        .png()
        .toFile(path);
      return path;
    }),
  );
}

/**
 * Animations of 97 frames of 13 × 169 (16 393 px stacked, over WebP's 16 383) as libwebp's own
 * tools and ImageMagick write them: img2webp with lossy and lossless frames in turn, key frames and
 * both dispose and blend methods; gif2webp from an ImageMagick GIF optimised into offset frames;
 * webpmux with one still repeated 97 times (a frame that changes nothing, which libwebp's animation
 * encoder would merge away); an ImageMagick GIF of one picture repeated.
 */
export async function encoderAnimations(dir: string): Promise<ImageCase[]> {
  const frames = await stripFrames(dir);
  const size = [STRIP.width, STRIP.height] as const;
  const tool = async (name: string, command: string, args: string[]) => {
    await run(command, args, { cwd: dir });
    return readFile(join(dir, name));
  };
  const perFrame = frames.flatMap((path, index) =>
    index % 2 === 0 ? ['-lossless', path] : ['-lossy', '-q', '60', path],
  );
  const gif = await tool('strip.gif', 'convert', [
    ...['-limit', 'memory', '64MiB', '-delay', '8', '-dispose', 'background'],
    ...frames,
    ...['-layers', 'optimize', '-loop', '0', 'strip.gif'],
  ]);
  await tool('still.webp', 'cwebp', ['-quiet', '-lossless', frames[0]!, '-o', 'still.webp']);
  const repeated = Array.from({ length: STRIP.frames }, () => ['-frame', 'still.webp', '+50']).flat();
  await run('convert', ['-limit', 'memory', '64MiB', frames[0]!, '-flatten', join(dir, 'still.png')]);
  const animation = (name: string, format: 'webp' | 'gif', bytes: Buffer): ImageCase => ({
    name,
    format,
    bytes,
    size,
    frames: STRIP.frames,
  });
  return [
    animation(
      'webp img2webp 97 × 13 × 169, lossy and lossless frames, offsets, blend and dispose',
      'webp',
      await tool('mixed.webp', 'img2webp', [
        '-loop',
        '0',
        '-d',
        '80',
        '-kmax',
        '20',
        ...perFrame,
        '-o',
        'mixed.webp',
      ]),
    ),
    animation(
      'webp gif2webp 97 × 13 × 169 from an optimised GIF',
      'webp',
      await tool('gif2webp.webp', 'gif2webp', ['-quiet', '-mixed', 'strip.gif', '-o', 'gif2webp.webp']),
    ),
    animation(
      'webp webpmux 97 × 13 × 169, one still repeated',
      'webp',
      await tool('repeated.webp', 'webpmux', [...repeated, '-loop', '0', '-o', 'repeated.webp']),
    ),
    animation('gif ImageMagick 97 × 13 × 169, optimised into offset frames', 'gif', gif),
    animation(
      'gif ImageMagick 97 × 13 × 169, one picture repeated',
      'gif',
      await tool('repeated.gif', 'convert', [
        ...['-limit', 'memory', '64MiB', '-delay', '5', 'still.png', '-duplicate', '96', '-loop', '0'],
        'repeated.gif',
      ]),
    ),
  ];
}

/** A 12-bit greyscale JPEG of 32 × 24 in four grey levels. */
export function twelveBitJpeg(): ImageCase {
  return {
    name: 'jpeg 12-bit',
    format: 'jpg',
    bytes: jpeg12(4, 3, (x, y) => [0, 1000, 2048, 4095][(x + y) % 4]!),
    size: [32, 24],
  };
}

/** The whole image corpus, written in a scratch folder that is removed afterwards. */
export async function imageCorpus(): Promise<ImageCase[]> {
  const dir = await mkdtemp(join(tmpdir(), 'image-corpus-'));
  try {
    return [
      ...(await bmpVariants(dir)),
      ...(await damagedPngs()),
      ...(await tallAnimations(dir)),
      ...(await encoderAnimations(dir)),
      twelveBitJpeg(),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
