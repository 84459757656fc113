import { describe, expect, it } from 'vitest';
import { ApiError } from '#shared/errors.ts';
import { assertDecodable, imageLimits } from '#shared/image/limits.ts';

const refusal = (canvas: Parameters<typeof assertDecodable>[0]) => {
  try {
    assertDecodable(canvas);
    return 'accepted';
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return `${error.code}: ${error.message}`;
  }
};

describe('pixel and frame limits, applied to what a header declares', () => {
  it('accepts up to 100 megapixels a frame', () => {
    expect(refusal({ width: 10_000, height: 10_000, frames: 1 })).toBe('accepted');
    expect(refusal({ width: 10_001, height: 10_000, frames: 1 })).toMatch(
      /^invalid_source_file: The image declares 10001 × 10000 pixels \(100\.01? megapixels\)/,
    );
  });

  it('limits the frames of a kept animation and their pixels together', () => {
    expect(refusal({ width: 100, height: 100, frames: imageLimits.maxFrames })).toBe('accepted');
    expect(refusal({ width: 100, height: 100, frames: imageLimits.maxFrames + 1 })).toMatch(
      /^invalid_source_file: The animation has 1001 frames/,
    );
    expect(refusal({ width: 1000, height: 1000, frames: 401 })).toMatch(
      /^invalid_source_file: The animation holds 401 megapixels/,
    );
  });

  it('refuses an image without a size', () => {
    expect(refusal({ width: 0, height: 10, frames: 1 })).toMatch(/^invalid_source_file: /);
  });
});
