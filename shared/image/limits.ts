import { ApiError } from '#shared/errors.ts';

/**
 * What an image may claim in its header before any pixel is decoded. A Lambda function holds a
 * decoded frame in memory (4 bytes a pixel, twice during conversion), so a small file that
 * declares a huge canvas (a pixel bomb) is refused from its header alone.
 */
export const imageLimits = {
  /** Pixels of one frame: 100 megapixels (e.g. 12 000 × 8 333). */
  maxPixels: 100_000_000,
  /** Frames of an animation that is kept animated. */
  maxFrames: 1000,
  /** Pixels of all frames of an animation together. */
  maxAnimationPixels: 400_000_000,
} as const;

export interface Canvas {
  width: number;
  height: number;
  /** Frames that will be decoded: 1 for a still image or a first-frame read. */
  frames: number;
}

const megapixels = (pixels: number) => `${Number((pixels / 1e6).toFixed(2))} megapixels`;

/** Refuses (400 invalid_source_file) a canvas over the limits, before it is decoded. */
export function assertDecodable({ width, height, frames }: Canvas): void {
  if (!(width > 0 && height > 0)) {
    throw new ApiError('invalid_source_file', 'The image declares no size: it is damaged or empty.');
  }
  const pixels = width * height;
  if (pixels > imageLimits.maxPixels) {
    throw new ApiError(
      'invalid_source_file',
      `The image declares ${width} × ${height} pixels (${megapixels(pixels)}); at most ${megapixels(imageLimits.maxPixels)} are accepted.`,
    );
  }
  if (frames > imageLimits.maxFrames) {
    throw new ApiError(
      'invalid_source_file',
      `The animation has ${frames} frames; at most ${imageLimits.maxFrames} are accepted.`,
    );
  }
  if (pixels * frames > imageLimits.maxAnimationPixels) {
    throw new ApiError(
      'invalid_source_file',
      `The animation holds ${megapixels(pixels * frames)} over all its frames; at most ${megapixels(imageLimits.maxAnimationPixels)} are accepted.`,
    );
  }
}
