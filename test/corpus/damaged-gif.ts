import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Bytes of a colour table whose presence and size are in `flags` (a screen's or an image's). */
const colourTableBytes = (flags: number) => (flags & 0x80 ? 3 * (2 << (flags & 7)) : 0);

/** Skips data sub-blocks from `at` (a size byte) through their 0 terminator. */
function afterSubBlocks(gif: Buffer, at: number): number {
  let next = at;
  while (gif[next] !== 0) {
    if (next >= gif.length) throw new Error('GIF sub-blocks run past the end');
    next += gif[next]! + 1;
  }
  return next + 1;
}

/**
 * Where each image's LZW data starts (its first sub-block's size byte), found by walking the GIF's
 * blocks: header and screen, global colour table, then extensions and images up to the trailer.
 */
export function gifImageData(gif: Buffer): number[] {
  if (gif.toString('latin1', 0, 3) !== 'GIF') throw new Error('not a GIF');
  const starts: number[] = [];
  let at = 13 + colourTableBytes(gif[10]!);
  while (at < gif.length && gif[at] !== 0x3b) {
    if (gif[at] === 0x21) at = afterSubBlocks(gif, at + 2);
    else if (gif[at] === 0x2c) {
      // Descriptor: separator, left, top, width, height (2 bytes each), flags; then the minimum code size.
      const data = at + 10 + colourTableBytes(gif[at + 9]!) + 1;
      starts.push(data);
      at = afterSubBlocks(gif, data);
    } else throw new Error(`not a GIF block at byte ${at}`);
  }
  return starts;
}

/** A copy of `gif` with `count` bytes of frame `frame`'s first LZW sub-block set to 0xFF. */
export function damageGifFrame(gif: Buffer, frame: number, count = 20): Buffer {
  const start = gifImageData(gif)[frame];
  if (start === undefined) throw new Error(`the GIF has no frame ${frame}`);
  const size = gif[start]!;
  if (size < count + 2) throw new Error(`frame ${frame}'s first sub-block holds only ${size} bytes`);
  const copy = Buffer.from(gif);
  // Past the first two bytes, so that the frame starts decoding before it meets the damage.
  copy.fill(0xff, start + 3, start + 3 + count);
  return copy;
}

/**
 * A 64 × 48 GIF of three frames, red, green and blue, 200 ms each, looping, written by ImageMagick
 * into `dir`: whole, and with the green frame's LZW data damaged.
 */
export async function redGreenBlueGifs(dir: string): Promise<{ whole: Buffer; damaged: Buffer }> {
  const path = join(dir, 'red-green-blue.gif');
  await run('convert', [
    ...['-limit', 'memory', '64MiB', '-size', '64x48'],
    ...['xc:red', 'xc:green', 'xc:blue', '-set', 'delay', '20', '-loop', '0', path],
  ]);
  const whole = await readFile(path);
  return { whole, damaged: damageGifFrame(whole, 1) };
}
