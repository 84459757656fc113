import { readFile } from 'node:fs/promises';
import { decompressFrame, type ParsedFrame, type ParsedGif, parseGIF } from 'gifuct-js';
import { ApiError } from '#shared/errors.ts';
import type { OpenedImage } from '#shared/image/decode.ts';
import { framesImage } from '#shared/image/frames.ts';
import { endAtUndefinedCode } from '#shared/image/gif-lzw-guard.ts';
import type { ImageHeader } from '#shared/image/header.ts';
import { assertDecodable } from '#shared/image/limits.ts';
import { damagedImage } from '#shared/native-errors.ts';

/**
 * Pixels a lenient read may decode and hold, over all its frames. gifuct-js keeps a frame's colour
 * indices in a JavaScript array (8 bytes a pixel, twice for an interlaced frame) beside its RGBA
 * patch, and every frame is held composited (4 bytes a pixel): 50 megapixels stay near a gigabyte
 * within a 2 GiB function, where libvips' 400 for animations would not.
 */
export const maxLenientPixels = 50_000_000;

/** GIF disposal methods (the graphic control extension's field). */
const RESTORE_BACKGROUND = 2;
const RESTORE_PREVIOUS = 3;

type ImageFrame = Extract<ParsedGif['frames'][number], { image: unknown }>;

function parse(bytes: Buffer): ParsedGif {
  try {
    return parseGIF(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer);
  } catch (error) {
    throw new ApiError('invalid_source_file', damagedImage, { cause: error });
  }
}

function assertWithinLenientBound(pixels: number): void {
  if (pixels > maxLenientPixels) {
    throw new ApiError(
      'invalid_source_file',
      `The GIF has a damaged frame, which is read leniently frame by frame; its frames hold ${Number((pixels / 1e6).toFixed(2))} megapixels, and at most ${maxLenientPixels / 1e6} are read this way.`,
    );
  }
}

/** Draws a frame's patch (transparent pixels leave the canvas as it is), clipped to the canvas. */
function draw(canvas: Uint8Array, width: number, height: number, frame: ParsedFrame) {
  const { left, top, width: w, height: h } = frame.dims;
  for (let y = Math.max(0, top); y < Math.min(height, top + h); y += 1) {
    for (let x = Math.max(0, left); x < Math.min(width, left + w); x += 1) {
      const from = ((y - top) * w + (x - left)) * 4;
      if (frame.patch[from + 3] === 0) continue;
      const to = (y * width + x) * 4;
      for (let byte = 0; byte < 4; byte += 1) canvas[to + byte] = frame.patch[from + byte]!;
    }
  }
}

/** Clears a frame's rectangle to transparent, clipped to the canvas. */
function clear(
  canvas: Uint8Array,
  width: number,
  height: number,
  dims: { left: number; top: number; width: number; height: number },
) {
  const right = Math.min(width, dims.left + dims.width);
  const left = Math.max(0, dims.left);
  if (right <= left) return;
  for (let y = Math.max(0, dims.top); y < Math.min(height, dims.top + dims.height); y += 1) {
    canvas.fill(0, (y * width + left) * 4, (y * width + right) * 4);
  }
}

/**
 * One frame decoded as far as its data goes, the LZW codes guarded first (gif-lzw-guard.ts). What
 * the decoder still cannot read is the source's fault: 400, never a failure of ours.
 */
function decodeFrame(frame: ImageFrame, gif: ParsedGif): ParsedFrame {
  const { minCodeSize, blocks } = frame.image.data;
  // Typed as number[], the data is a Uint8Array from gifuct-js's parser; its decoder only indexes it.
  const safe = endAtUndefinedCode(minCodeSize, blocks) as number[];
  const guarded = { ...frame, image: { ...frame.image, data: { minCodeSize, blocks: safe } } };
  try {
    return decompressFrame(guarded, gif.gct, true);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError('invalid_source_file', damagedImage, { cause: error });
  }
}

/**
 * Opens a GIF that libvips refused for a damaged frame (libnsgif stops at the first bad LZW code,
 * and every later frame goes with it), as browsers read it: gifuct-js decodes each frame as far as
 * its data goes, and each is drawn on the canvas the frames before it left, after their disposal.
 * Every frame when `animated`, else the first. The frames are decoded one at a time and held
 * stacked, with the delays of the file and the loop libvips read.
 */
export async function openLenientGif(
  path: string,
  header: ImageHeader,
  animated: boolean,
): Promise<OpenedImage> {
  const gif = parse(await readFile(path));
  const { width, height } = gif.lsd;
  const all = gif.frames.filter((frame): frame is ImageFrame => 'image' in frame);
  const frames = animated ? all : all.slice(0, 1);
  if (frames.length === 0) throw new ApiError('invalid_source_file', damagedImage);
  assertDecodable({ width, height, frames: frames.length });
  assertWithinLenientBound(width * height * frames.length);
  // gifuct-js walks every pixel of a frame's own rectangle, which may reach past the canvas.
  assertWithinLenientBound(
    frames.reduce((sum, { image }) => sum + image.descriptor.width * image.descriptor.height, 0),
  );

  const canvasBytes = width * height * 4;
  const data = Buffer.alloc(canvasBytes * frames.length);
  const canvas = new Uint8Array(canvasBytes);
  for (const [index, frame] of frames.entries()) {
    const decoded = decodeFrame(frame, gif);
    const before = decoded.disposalType === RESTORE_PREVIOUS ? canvas.slice() : undefined;
    draw(canvas, width, height, decoded);
    data.set(canvas, index * canvasBytes);
    if (before) canvas.set(before);
    if (decoded.disposalType === RESTORE_BACKGROUND) clear(canvas, width, height, decoded.dims);
  }

  let hasAlpha = false;
  for (let alpha = 3; alpha < data.length && !hasAlpha; alpha += 4) hasAlpha = data[alpha] !== 255;
  const image = framesImage({ data, width, height, channels: 4, frames: frames.length });
  // A frame without a graphic control extension has no delay (gifuct-js would make it 100 ms).
  const delays = frames.map((frame) => (frame.gce ? frame.gce.delay * 10 : 0));
  return {
    header,
    image: hasAlpha ? image : image.removeAlpha(),
    width,
    height,
    frames: frames.length,
    timing: frames.length > 1 ? { delays, loop: header.metadata?.loop ?? 0 } : undefined,
    hasAlpha,
    isPalette: true,
  };
}
