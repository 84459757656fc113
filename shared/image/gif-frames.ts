import { GifReader } from 'omggif';
import { ApiError } from '#shared/errors.ts';
import { imageLimits } from '#shared/image/limits.ts';
import { damagedImage } from '#shared/native-errors.ts';

/** Frames of a GIF as shown, stacked top to bottom in one RGBA buffer, with their timing. */
export interface GifFrames {
  data: Buffer;
  /** Size of the canvas, one frame. */
  width: number;
  height: number;
  frames: number;
  /** Some pixel is not fully opaque. */
  hasAlpha: boolean;
  /** Milliseconds of each frame. */
  delays: number[];
  /** Times the animation plays; 0 for ever (a GIF without a loop extension plays once). */
  loop: number;
}

/** GIF disposal methods (the graphic control extension's field). */
const RESTORE_BACKGROUND = 2;
const RESTORE_PREVIOUS = 3;

/**
 * Decodes the first `count` frames of a GIF with omggif, whose LZW decoder keeps going through
 * codes that libnsgif (libvips' reader) stops at: a damaged frame comes out as far as its data
 * goes, and the frames after it decode, as ImageMagick and browsers show them. Each frame is drawn
 * on the canvas left by the ones before, after their disposal (the rectangle cleared, or the canvas
 * put back). The decoded frames are held in memory: at most 100 megapixels over all of them, else
 * 400 invalid_source_file naming that bound.
 */
export function decodeGifFrames(bytes: Buffer, count: number): GifFrames {
  let reader: GifReader;
  try {
    reader = new GifReader(bytes);
  } catch (error) {
    throw new ApiError('invalid_source_file', damagedImage, { cause: error });
  }
  const { width, height } = reader;
  const frames = Math.min(count, reader.numFrames());
  const canvasBytes = width * height * 4;
  if (frames < 1 || canvasBytes === 0) throw new ApiError('invalid_source_file', damagedImage);
  if (width * height * frames > imageLimits.maxPixels) {
    throw new ApiError(
      'invalid_source_file',
      `The GIF has a damaged frame that the regular decoder refuses; read frame by frame, its frames ` +
        `(${frames} of ${width} × ${height}) may hold at most ${imageLimits.maxPixels / 1e6} megapixels together.`,
    );
  }
  const data = Buffer.alloc(canvasBytes * frames);
  const canvas = new Uint8Array(canvasBytes);
  const delays: number[] = [];
  for (let index = 0; index < frames; index += 1) {
    const info = reader.frameInfo(index);
    const before = info.disposal === RESTORE_PREVIOUS ? canvas.slice() : undefined;
    try {
      reader.decodeAndBlitFrameRGBA(index, canvas);
    } catch (error) {
      throw new ApiError('invalid_source_file', damagedImage, { cause: error });
    }
    data.set(canvas, index * canvasBytes);
    delays.push(info.delay * 10);
    if (info.disposal === RESTORE_PREVIOUS && before) canvas.set(before);
    if (info.disposal === RESTORE_BACKGROUND) {
      const right = Math.min(info.x + info.width, width);
      for (let y = info.y; y < Math.min(info.y + info.height, height); y += 1) {
        canvas.fill(0, (y * width + info.x) * 4, (y * width + right) * 4);
      }
    }
  }
  let hasAlpha = false;
  for (let alpha = 3; alpha < data.length && !hasAlpha; alpha += 4) hasAlpha = data[alpha] !== 255;
  return { data, width, height, frames, hasAlpha, delays, loop: reader.loopCount() ?? 1 };
}
