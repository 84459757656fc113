import { ApiError } from '#shared/errors.ts';
import { maxFrameSide } from '#shared/media/frame-bounds.ts';

/**
 * The largest frame each video encoder writes, checked before any work. Every frame the contract
 * admits (8192 × 8192) is read, but not every encoder can write it:
 *
 * - MPEG-4 Part 2 (avi) stores each side in 13 bits: 8191 at most, so 8190 for the even sizes
 *   written ("dimensions too large for MPEG-4" past it).
 * - VP9 (webm): libvpx sizes its buffers from the frame when the encoder opens, about 82 bytes a
 *   pixel in realtime mode without look-ahead (68 MiB + 78 MiB a megapixel, measured), so
 *   8000 × 8000 would need 5 GiB, past the 2752 MiB of data one media process has in a function
 *   of 3008 MB ("Memory allocation error" at open). 7680 × 4320 (8K UHD, 33.2 megapixels) was
 *   measured at 2551 MiB (peak RSS 2402 MiB) and is the bound.
 * - H.264 (libx264) writes 8192 × 8192 in 2089 MiB; the thumbnails' JPEG, PNG and WebP encoders in
 *   less (docs/media.md, "Frame size").
 */

export type VideoEncoder = 'libx264' | 'libvpx-vp9' | 'mpeg4';

/** The encoders of the animations (gif, animated webp). */
export type AnimationEncoder = 'gif' | 'libwebp_anim';

/**
 * Animations are written up to 3840 pixels on either side (4K UHD's width): each frame is held
 * several times over (the GIF palette's statistics and dithering, the animated WebP encoder's
 * previous canvas and candidate encodings), and an animation larger than that is a video.
 */
export const maxAnimationSide = 3840;

interface EncoderBound {
  /** What the caller knows the encoder by. */
  name: string;
  maxSide: number;
  maxPixels: number;
  why: string;
}

export const encoderBounds: Readonly<Record<VideoEncoder | AnimationEncoder, EncoderBound>> = {
  gif: {
    name: 'GIF',
    maxSide: maxAnimationSide,
    maxPixels: maxAnimationSide * maxAnimationSide,
    why: 'an animation',
  },
  libwebp_anim: {
    name: 'Animated WebP',
    maxSide: maxAnimationSide,
    maxPixels: maxAnimationSide * maxAnimationSide,
    why: 'an animation',
  },
  libx264: {
    name: 'H.264',
    maxSide: maxFrameSide,
    maxPixels: maxFrameSide * maxFrameSide,
    why: 'the frame bound',
  },
  'libvpx-vp9': {
    name: 'VP9 (webm)',
    maxSide: maxFrameSide,
    maxPixels: 7680 * 4320,
    why: 'the memory one conversion is given',
  },
  mpeg4: { name: 'MPEG-4 Part 2 (avi)', maxSide: 8190, maxPixels: 8190 * 8190, why: 'the format' },
};

type Size = { width: number; height: number };

const fits = (size: Size, bound: EncoderBound) =>
  size.width <= bound.maxSide && size.height <= bound.maxSide && size.width * size.height <= bound.maxPixels;

const pixelCount = (pixels: number) => `${pixels.toLocaleString('en-US')} pixels`;

/** The largest value up to `asked` whose size (as `sizeAt` makes it, aspect kept) the encoder writes. */
function largestFitting(bound: EncoderBound, asked: number, sizeAt: (value: number) => Size): number {
  let value = asked;
  while (value > 16 && !fits(sizeAt(value), bound)) value -= 1;
  return value;
}

/**
 * 400 validation_failed, before any work, when `encoder` cannot write `size`: naming the asked
 * width or height and the largest that fits, or, when the size is the source's own, outputFormat
 * with the remedies (a width or height that fits, or a format whose encoder writes it).
 */
export function assertEncoderFits(
  encoder: VideoEncoder | AnimationEncoder,
  size: Size,
  asked: { width?: number | undefined; height?: number | undefined },
  sizeAt: (field: 'width' | 'height', value: number) => Size,
): void {
  const bound = encoderBounds[encoder];
  if (fits(size, bound)) return;
  const limit =
    bound.maxPixels < bound.maxSide * bound.maxSide
      ? `${bound.name} is written up to ${pixelCount(bound.maxPixels)} a frame (7680 × 4320), the most ${bound.why} allows`
      : `${bound.name} is written up to ${bound.maxSide} pixels on either side, the most ${bound.why} allows`;
  const frame = `${size.width} × ${size.height} (${pixelCount(size.width * size.height)})`;
  const field = asked.width !== undefined ? 'width' : asked.height !== undefined ? 'height' : undefined;
  if (field !== undefined) {
    const largest = largestFitting(bound, asked[field] ?? 0, (value) => sizeAt(field, value));
    throw new ApiError(
      'validation_failed',
      `${field}: the output would be ${frame}; ${limit}. Ask for a ${field} of at most ${largest}.`,
    );
  }
  const width = largestFitting(bound, size.width, (value) => sizeAt('width', value));
  throw new ApiError(
    'validation_failed',
    `outputFormat: the source's frames are ${frame}; ${limit}. Ask for a width of at most ${width}, or another outputFormat.`,
  );
}
