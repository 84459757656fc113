import sharp, { type Sharp } from 'sharp';
import { ApiError } from '#shared/errors.ts';
import { imageLimits } from '#shared/image/limits.ts';

/** Decoded pixels of one image or of every frame of an animation, frames stacked top to bottom. */
export interface RawFrames {
  data: Buffer;
  /** Size of one frame. */
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
  frames: number;
}

/** Decodes a pipeline into raw pixels; `frames` frames of equal height are stacked in it. */
export async function toRawFrames(image: Sharp, frames: number): Promise<RawFrames> {
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return {
    data,
    width: info.width,
    height: info.height / frames,
    channels: info.channels,
    frames,
  };
}

/** A pipeline over one frame's pixels. */
export function frameImage(raw: RawFrames, index: number): Sharp {
  const size = raw.width * raw.height * raw.channels;
  const data = raw.data.subarray(index * size, (index + 1) * size);
  return sharp(data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } });
}

/**
 * A pipeline over every frame, an animation when there are several. `pages: -1` with the page height:
 * without it a resize of the stack is written as one frame.
 */
export function framesImage(raw: RawFrames): Sharp {
  return sharp(raw.data, {
    raw: {
      width: raw.width,
      height: raw.height * raw.frames,
      channels: raw.channels,
      ...(raw.frames > 1 ? { pageHeight: raw.height } : {}),
    },
    ...(raw.frames > 1 ? { pages: -1 } : {}),
  });
}

/**
 * Runs one operation over each frame on its own and stacks the results again. Every frame must come
 * out at the same size (the operations are given the same geometry for each frame).
 */
export async function eachFrame(
  raw: RawFrames,
  operation: (image: Sharp, index: number) => Sharp | Promise<Sharp>,
): Promise<RawFrames> {
  const results: Buffer[] = [];
  let shape: Omit<RawFrames, 'data' | 'frames'> | undefined;
  for (let index = 0; index < raw.frames; index += 1) {
    const image = await operation(frameImage(raw, index), index);
    const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
    if (
      shape &&
      (shape.width !== info.width || shape.height !== info.height || shape.channels !== info.channels)
    ) {
      throw new Error('frames of an animation came out at different sizes');
    }
    shape ??= { width: info.width, height: info.height, channels: info.channels };
    results.push(data);
  }
  if (!shape) throw new Error('no frame to work on');
  return { ...shape, data: results.length === 1 ? results[0]! : Buffer.concat(results), frames: raw.frames };
}

/**
 * Refuses (400 validation_failed naming `field`) an operation whose result would be larger than
 * the pixel limits, before it runs.
 */
export function assertResultWithinLimits(
  field: string,
  size: { width: number; height: number },
  frames: number,
): void {
  const pixels = size.width * size.height;
  const limit = frames > 1 ? imageLimits.maxAnimationPixels / frames : imageLimits.maxPixels;
  const allowed = Math.min(limit, imageLimits.maxPixels);
  if (pixels > allowed) {
    throw new ApiError(
      'validation_failed',
      `${field}: the result would be ${Math.round(size.width)} × ${Math.round(size.height)} pixels${frames > 1 ? ` a frame over ${frames} frames` : ''}; at most ${Number((allowed / 1e6).toFixed(2))} megapixels a frame are allowed.`,
    );
  }
}
