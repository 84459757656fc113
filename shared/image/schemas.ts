import * as z from 'zod';
import { cssColourPattern, parseCssColour } from '#shared/image/colour.ts';
import { imageOutputFormats, type RequestedFormat } from '#shared/image/formats.ts';
import { defaultIconSizes, fits, imageLimits, MAX_ICON_SIZE, positions } from '#shared/image/limits.ts';
import { atLeastOneOf, never } from '#shared/schema-rules.ts';
import { canonicalFormat, imageInputFormats } from '#shared/source/formats.ts';
import { httpUrlField } from '#shared/source/url-schema.ts';

/** The longest side a request may ask for (the pixel limit still applies to width × height). */
export const MAX_SIDE = 16_384;

export const sourceUrl = httpUrlField().describe(
  `An absolute http(s) URL of the image; its format is read from its bytes (${imageInputFormats.join(', ')}).`,
);

/**
 * heic and heif pass validation so that they can be refused with 400 unsupported_output_format,
 * naming the alternatives; the documented enum lists only what can be written.
 */
const writableFormats = [...imageOutputFormats, 'jpeg', 'tif'].join(', ');
export const outputFormat = z
  .enum([...imageOutputFormats, 'jpeg', 'tif', 'heic', 'heif'], {
    error: (issue) =>
      issue.input === undefined
        ? `required: one of ${writableFormats}`
        : String(issue.input).toLowerCase() === 'pdf'
          ? 'pdf is not an image format: POST the image to /image-to-pdf to make a PDF of it'
          : `must be one of ${writableFormats}`,
  })
  .meta({ enum: [...imageOutputFormats, 'jpeg', 'tif'] })
  .transform((name) => canonicalFormat(name) as RequestedFormat)
  .describe(
    'The format to write. jpeg is an alias of jpg, tif of tiff. heic (or heif) is refused with 400 unsupported_output_format: no HEIC encoder is shipped; avif and webp are the alternatives.',
  );

export const side = (axis: string, meaning: string) =>
  z.number().int().min(1).max(MAX_SIDE).describe(`${meaning} ${axis} in pixels (1–${MAX_SIDE}).`);

/** What the document says of width and height given together: a product JSON Schema cannot state. */
const pixelRule = `With both width and height, width × height may be at most ${imageLimits.maxPixels / 1e6} megapixels (400 validation_failed naming width).`;

export const quality = z
  .number()
  .int()
  .min(1)
  .max(100)
  .describe(
    "1–100 on the encoder's own scale: jpg (default 85), webp (85), avif (60); for png a quality asks for a palette (libimagequant) of at most that quality. gif, tiff, bmp and ico are written without loss or with a palette and ignore it.",
  );

export const background = z
  .string()
  .max(100)
  .meta({ pattern: cssColourPattern })
  .transform((text, context) => {
    const colour = parseCssColour(text);
    if (colour) return colour;
    context.addIssue({
      code: 'custom',
      message: 'not a CSS colour (e.g. "#ffffff", "rgb(0 0 0 / 50%)", "navy")',
    });
    return z.NEVER;
  });

export const fit = z
  .enum(fits)
  .default('inside')
  .describe(
    'How the image fits width × height: inside (default: scaled to fit within, aspect kept), outside (to cover, aspect kept), cover (cropped to fill), contain (padded with background), fill (stretched).',
  );

export const position = z
  .enum([...positions, 'center'])
  .default('centre')
  .transform((value) => (value === 'center' ? 'centre' : value))
  .describe(
    'What to keep when cover or contain crops or pads: centre (default), a compass point (north, northeast, …), or a smart crop for cover: attention (the most salient region) or entropy (the most detailed).',
  );

/** Both sides given: their product must stay within the pixel limit. */
export function withinPixelLimit(
  body: { width?: number | undefined; height?: number | undefined },
  context: z.core.$RefinementCtx,
): void {
  if (
    body.width !== undefined &&
    body.height !== undefined &&
    body.width * body.height > imageLimits.maxPixels
  ) {
    context.addIssue({
      code: 'custom',
      path: ['width'],
      message: `width × height must stay within ${imageLimits.maxPixels / 1e6} megapixels`,
    });
  }
}

export const imageConvertBody = z
  .strictObject({
    sourceUrl,
    outputFormat,
    quality: quality.optional(),
    width: side('width', 'Output')
      .optional()
      .describe(`Output width in pixels (1–${MAX_SIDE}). ${pixelRule}`),
    height: side('height', 'Output').optional(),
    fit,
    background: background
      .optional()
      .describe(
        'A CSS colour for pixels that lose their transparency (jpg, bmp; default white) and for contain padding (default transparent where the target holds alpha).',
      ),
    stripMetadata: z
      .boolean()
      .default(true)
      .describe(
        'Drop EXIF, XMP and ICC metadata (default). With false, EXIF and XMP are kept and an sRGB profile is attached; the orientation tag is reset, as the pixels are turned upright.',
      ),
    animated: z
      .boolean()
      .default(true)
      .describe(
        'Keep every frame of an animated GIF or WebP when the target is gif or webp; other targets take the first frame.',
      ),
    icoSizes: z
      .array(z.number().int().min(1).max(MAX_ICON_SIZE))
      .min(1)
      .max(10)
      .default([...defaultIconSizes])
      .describe('Square sizes of the entries of an ICO target (1–256), the image contained in each.'),
    svgMode: z
      .enum(['trace', 'embed'])
      .default('trace')
      .describe(
        'For an svg target: trace (default) draws vector paths of a 16-colour trace; embed places the raster (PNG with alpha, else JPEG) inside an SVG.',
      ),
  })
  .superRefine(withinPixelLimit);
export type ImageConvertBody = z.infer<typeof imageConvertBody>;

export const imageResizeBody = z
  .strictObject({
    sourceUrl,
    width: side('width', 'Target')
      .optional()
      .describe(`Target width in pixels (1–${MAX_SIDE}); give width, height or both. ${pixelRule}`),
    height: side('height', 'Target')
      .optional()
      .describe(`Target height in pixels (1–${MAX_SIDE}); give width, height or both.`),
    fit,
    position,
    withoutEnlargement: z
      .boolean()
      .default(true)
      .describe('Never enlarge: an image smaller than the target keeps its size (default).'),
    background: background
      .optional()
      .describe('A CSS colour for contain padding and for transparency a jpg or bmp cannot hold.'),
    outputFormat: outputFormat
      .optional()
      .describe(
        'The format to write; default the input’s, png for heic and svg inputs. Aliases as for image-convert.',
      ),
  })
  .superRefine((body, context) => {
    if (body.width === undefined && body.height === undefined) {
      context.addIssue({ code: 'custom', path: ['width'], message: 'give width, height or both' });
    }
    withinPixelLimit(body, context);
  })
  .meta(atLeastOneOf('width', 'height'));
export type ImageResizeBody = z.infer<typeof imageResizeBody>;

export const imageOptimizeBody = z
  .strictObject({
    sourceUrl,
    quality: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe(
        'Quality of the lossy encoders jpg, webp and avif, default 80; with maxBytes, the highest quality tried. ' +
          'png is lossless unless a quality or maxBytes is given: by default it gets an exact palette when it has at ' +
          'most 256 colours and the best lossless true-colour compression otherwise, every pixel kept. An explicit ' +
          'quality asks for a libimagequant palette of at most that quality (lossy); maxBytes alone starts that ' +
          'search at 80. gif, tiff, bmp, ico and svg ignore it.',
      ),
    outputFormat: outputFormat
      .optional()
      .describe('The format to write; default the input’s, png for heic and svg inputs.'),
    maxWidth: side('width', 'Largest').optional(),
    maxHeight: side('height', 'Largest').optional(),
    lossless: z
      .boolean()
      .default(false)
      .describe(
        'Lossless webp or avif; png stays lossless even with a quality or maxBytes. jpg has no lossless mode: lossless with a jpg output (outputFormat jpg, or a jpg source kept as jpg) answers 400 validation_failed.',
      ),
    maxBytes: z
      .number()
      .int()
      .min(100)
      .max(1_000_000_000)
      .optional()
      .describe(
        'Largest file wanted, in bytes: the quality is lowered step by step (bisection) until the file fits; 400 validation_failed naming maxBytes when even quality 1 does not, or when the output has no quality to lower (gif, tiff, bmp, ico, svg, lossless) and is larger.',
      ),
  })
  .meta(never({ outputFormat: ['jpg', 'jpeg'], lossless: true }));
export type ImageOptimizeBody = z.infer<typeof imageOptimizeBody>;

export const imageMetadataBody = z.strictObject({
  sourceUrl,
  placeholder: z
    .boolean()
    .default(false)
    .describe(
      'Also compute blurhash, thumbhash and dominantColor from the upright first frame (scaled to fit 100 × 100).',
    ),
});
export type ImageMetadataBody = z.infer<typeof imageMetadataBody>;

const exifGroup = z.record(z.string(), z.unknown());

export const imageMetadataResult = z.object({
  format: z.enum(imageInputFormats).describe('The format read from the bytes.'),
  width: z
    .number()
    .int()
    .describe('Width of the upright image (EXIF orientation applied), of one frame or page.'),
  height: z.number().int().describe('Height of the upright image, of one frame or page.'),
  pages: z
    .number()
    .int()
    .describe('Frames of an animation, pages of a TIFF, images of a HEIC, entries of an ICO; 1 otherwise.'),
  animated: z.boolean().describe('A GIF or WebP with more than one frame.'),
  hasAlpha: z.boolean(),
  space: z.string().describe('The colour space as stored: srgb, cmyk, b-w (grey), rgb16, grey16, …'),
  density: z.number().nullable().describe('Pixels per inch, when the file states it.'),
  orientation: z.number().int().min(1).max(8).describe('EXIF orientation as stored (1: upright).'),
  sizeBytes: z.number().int(),
  exif: z
    .object({
      Image: exifGroup.optional(),
      Photo: exifGroup.optional(),
      GPSInfo: exifGroup.optional(),
      Iop: exifGroup.optional(),
    })
    .optional()
    .describe('EXIF tags by group, when present: dates in ISO 8601, binary values (maker notes) left out.'),
  blurhash: z
    .string()
    .optional()
    .describe('With placeholder: a BlurHash (up to 4 × 4 components, fewer along a much shorter side).'),
  thumbhash: z.string().optional().describe('With placeholder: a ThumbHash, its bytes in base64.'),
  dominantColor: z
    .string()
    .optional()
    .describe('With placeholder: the most common colour as #rrggbb (libvips’ histogram of the image).'),
});
