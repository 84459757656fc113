import { ApiError } from '#shared/errors.ts';
import { imageInputFormats, type SourceFormat } from '#shared/source/formats.ts';

/** No HEIC encoder is shipped: heic is an input format only. */
export const imageOutputFormats = ['jpg', 'png', 'webp', 'avif', 'gif', 'tiff', 'bmp', 'ico', 'svg'] as const;
export type ImageInputFormat = (typeof imageInputFormats)[number];
export type ImageOutputFormat = (typeof imageOutputFormats)[number];

/** Formats a request may name as a target: the writable ones and heic, which is refused with its alternatives. */
export type RequestedFormat = ImageOutputFormat | 'heic';

export const isImageInputFormat = (format: SourceFormat | string | undefined): format is ImageInputFormat =>
  (imageInputFormats as readonly (string | undefined)[]).includes(format);

export const contentTypeOf: Readonly<Record<ImageOutputFormat, string>> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
  tiff: 'image/tiff',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  svg: 'image/svg+xml',
};

/** Content types of the sources a route may hand back unchanged (image-optimize). */
export const sourceContentTypeOf: Readonly<Record<ImageInputFormat, string>> = {
  ...contentTypeOf,
  heic: 'image/heic',
};

/** Targets that hold several frames; every other target takes the first frame. */
export const animatedTargets: ReadonlySet<ImageOutputFormat> = new Set(['gif', 'webp']);

/** Targets without an alpha channel: transparent pixels are flattened onto the background. */
export const opaqueTargets: ReadonlySet<ImageOutputFormat> = new Set(['jpg', 'bmp']);

/** Inputs that may carry several frames of an animation (multi-page TIFF and HEIC collections do not animate). */
export const animatedSources: ReadonlySet<ImageInputFormat> = new Set(['gif', 'webp']);

/** Refuses targets no encoder is shipped for, naming what to ask for instead. */
export function writableFormat(format: RequestedFormat): ImageOutputFormat {
  if (format === 'heic') {
    throw new ApiError(
      'unsupported_output_format',
      'HEIC cannot be written: no HEIC encoder is shipped. Choose avif or webp for a file of similar size and quality.',
    );
  }
  return format;
}
