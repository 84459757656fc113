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

/**
 * What an SVG may hold before it is refused. librsvg reads SVGs with libxml2, which refuses documents
 * nested deeper than 256 levels anyway; real drawings stay far below both numbers. Together they keep
 * the check and the renderer after it linear in the size of the file.
 */
export const svgLimits = {
  /** Levels of nested elements, the root element counting as one. */
  maxDepth: 256,
  /** Elements in the whole document. */
  maxElements: 200_000,
} as const;

/** Inline `data:` images of an SVG, read from their headers before rendering (svg-data-images.ts). */
export const svgImageLimits = {
  /** Decoded pixels of all the raster images of one SVG, its nested SVGs' included. */
  maxPixels: imageLimits.maxPixels,
  /** SVGs inside SVGs (as data: images), the outer one counting as one level. */
  maxNesting: 8,
} as const;

/** Elements an SVG draws once every `<use>` is expanded (svg-references.ts). */
export const maxDrawnElements = 500_000;

/** Filter primitives run × rendered canvas megapixels: about a minute of CPU at most. */
export const maxFilterWork = 40;

/** Longest side the tracer works on: the SVG scales it back up to the output size. */
export const TRACE_MAX_SIDE = 512;

/** The sizes a favicon is usually asked for: browser tabs, taskbars, desktop and high-DPI icons. */
export const defaultIconSizes = [16, 32, 48, 256] as const;

/** The largest side an ICO entry can have. */
export const MAX_ICON_SIZE = 256;

export const fits = ['cover', 'contain', 'fill', 'inside', 'outside'] as const;
export type Fit = (typeof fits)[number];

/** Gravities and smart-crop strategies (sharp's names; `center` is taken for `centre`). */
export const positions = [
  'centre',
  'north',
  'northeast',
  'east',
  'southeast',
  'south',
  'southwest',
  'west',
  'northwest',
  'attention',
  'entropy',
] as const;
export type Position = (typeof positions)[number];
