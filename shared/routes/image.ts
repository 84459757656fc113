import { contentTypeOf, imageOutputFormats } from '#shared/image/formats.ts';
import {
  imageLimits,
  maxDrawnElements,
  maxFilterWork,
  svgImageLimits,
  svgLimits,
  TRACE_MAX_SIDE,
} from '#shared/image/limits.ts';
import {
  imageConvertBody,
  imageMetadataBody,
  imageMetadataResult,
  imageOptimizeBody,
  imageResizeBody,
} from '#shared/image/schemas.ts';
import { sampleAnimation, samplePhoto, sampleTransparent } from '#shared/routes/samples.ts';
import { bufferedSizing, streamedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, fileRouteNeeds, type RouteSpec, sourceErrors } from '#shared/routes/types.ts';
import { imageInputFormats } from '#shared/source/formats.ts';

/** How an image source is read and bounded, as every image route states it. */
export const imageSourceRules =
  'The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) ' +
  `and read as the format its bytes show (${imageInputFormats.join(', ')}). Its header is checked before any ` +
  `pixel is decoded: more than ${imageLimits.maxPixels / 1e6} megapixels a frame, ${imageLimits.maxFrames} frames or ` +
  `${imageLimits.maxAnimationPixels / 1e6} megapixels over all frames of a kept animation answer 400 ` +
  '`invalid_source_file`, as do damaged files. SVGs must be self-contained: entity declarations, external ' +
  'style sheets, XInclude and links to anything but #fragments or data: URLs are refused, and nothing is ' +
  `fetched; an SVG nested more than ${svgLimits.maxDepth} elements deep or holding more than ` +
  `${svgLimits.maxElements.toLocaleString('en-US')} elements answers 400 \`invalid_source_file\`. ` +
  'Its rendering work is bounded before it starts, each bound answered 400 `invalid_source_file` naming it: ' +
  `inline data: images at most ${svgImageLimits.maxPixels / 1e6} megapixels together, read from their headers ` +
  `(nested SVG images too, ${svgImageLimits.maxNesting} levels at most); at most ` +
  `${maxDrawnElements.toLocaleString('en-US')} elements drawn once <use> references are expanded; filter ` +
  `primitives run (per filtered element) × rendered canvas megapixels at most ${maxFilterWork}. ` +
  'A PNG is checked whole (critical chunk CRCs, complete zlib data) and a 12-bit JPEG answers 400 ' +
  '`invalid_source_file` (12-bit JPEG is not supported). ' +
  'EXIF orientation is applied first, and colour ends in sRGB (CMYK and ICC-tagged sources are ' +
  'converted); 16-bit sources are written at 8 bits.';

const allTypes = imageOutputFormats.map((format) => contentTypeOf[format]);

export const imageConvertRoute = defineRoute({
  method: 'POST',
  path: '/image-convert',
  function: 'image-convert',
  kind: 'file',
  sizing: streamedSizing(2048, 120, 2),
  jobStore: 'run',
  formats: { categories: ['image'], inputs: imageInputFormats, outputs: imageOutputFormats },
  tierNeeds: fileRouteNeeds,
  tag: 'Image',
  summary: 'Convert an image to another format, optionally resized',
  description:
    `${imageSourceRules} Encoders: jpg by mozjpeg (progressive, trellis; 4:4:4 chroma from quality 90), png ` +
    'lossless with adaptive filtering or, when the source has a palette or a quality is given, a ' +
    'libimagequant palette; webp and avif at efforts that fit a Lambda’s time; gif with a dithered ' +
    'palette; tiff lossless (deflate); bmp 24-bit; ico with one entry per `icoSizes` size (under 256 px as ' +
    '32-bit bitmaps, 256 as PNG), the image contained in each square; svg by `svgMode`: a vector trace ' +
    `(16 colours, traced on at most ${TRACE_MAX_SIDE} px a side and scaled to the output size) or the raster ` +
    'embedded. jpg and bmp have no alpha: transparent pixels are flattened onto `background` (white by ' +
    'default). width/height resize (enlarging too) with `fit`. Animated GIF and WebP keep their frames, ' +
    'delays and loop for gif and webp targets unless `animated` is false; other targets take the first ' +
    'frame. HEIC is read but not written: `outputFormat: "heic"` answers 400 `unsupported_output_format`, ' +
    'naming avif and webp. The file is named `<source name>.<outputFormat>`.',
  body: imageConvertBody,
  produces: allTypes,
  example: { sourceUrl: samplePhoto, outputFormat: 'webp', quality: 80, width: 800 },
  moreExamples: {
    flattened: {
      summary: 'A transparent PNG as a 400 × 300 JPEG, padded and flattened onto white, EXIF and XMP kept',
      body: {
        sourceUrl: sampleTransparent,
        outputFormat: 'jpg',
        width: 400,
        height: 300,
        fit: 'contain',
        background: '#ffffff',
        stripMetadata: false,
      },
    },
    animation: {
      summary: 'An animated GIF as an animated WebP, every frame kept',
      body: { sourceUrl: sampleAnimation, outputFormat: 'webp', animated: true, width: 200 },
    },
    icon: {
      summary: 'A favicon with three sizes',
      body: { sourceUrl: sampleTransparent, outputFormat: 'ico', icoSizes: [16, 32, 48] },
    },
    vector: {
      summary: 'An SVG holding the raster itself rather than a trace',
      body: { sourceUrl: samplePhoto, outputFormat: 'svg', svgMode: 'embed', width: 400 },
    },
  },
  errors: [...sourceErrors, 'unsupported_output_format'],
});

export const imageResizeRoute = defineRoute({
  method: 'POST',
  path: '/image-resize',
  function: 'image-resize',
  kind: 'file',
  sizing: streamedSizing(2048, 120, 2),
  jobStore: 'run',
  formats: { categories: ['image'], inputs: imageInputFormats, outputs: imageOutputFormats },
  tierNeeds: fileRouteNeeds,
  tag: 'Image',
  summary: 'Resize an image (fit, crop, smart crop, pad)',
  description:
    `${imageSourceRules} width and/or height with \`fit\` (inside by default); \`position\` chooses what cover ` +
    'keeps (a gravity, or attention/entropy for a smart crop of a still image; animations are cropped at the centre) and where contain pads. Images are not ' +
    'enlarged unless `withoutEnlargement` is false. Animations stay animated in gif and webp. The output ' +
    'keeps the input’s format unless `outputFormat` says otherwise (heic and svg inputs become png); ' +
    'encoders as for /image-convert at their default quality; an ico output holds the resized image as its ' +
    'one entry (scaled to fit 256 × 256 when larger). Metadata is dropped.',
  body: imageResizeBody,
  produces: allTypes,
  example: { sourceUrl: samplePhoto, width: 400, height: 400, fit: 'cover', position: 'attention' },
  moreExamples: {
    banner: {
      summary: 'A 1200 × 300 banner keeping the top of the image, as WebP',
      body: {
        sourceUrl: samplePhoto,
        width: 1200,
        height: 300,
        fit: 'cover',
        position: 'north',
        outputFormat: 'webp',
      },
    },
    padded: {
      summary: 'A 1024 px square, enlarged if smaller and padded with a colour',
      body: {
        sourceUrl: sampleTransparent,
        width: 1024,
        height: 1024,
        fit: 'contain',
        position: 'centre',
        withoutEnlargement: false,
        background: 'navy',
      },
    },
  },
  errors: [...sourceErrors, 'unsupported_output_format'],
});

export const imageOptimizeRoute = defineRoute({
  method: 'POST',
  path: '/image-optimize',
  function: 'image-optimize',
  kind: 'file',
  sizing: streamedSizing(2048, 120, 2),
  jobStore: 'run',
  formats: { categories: ['image'], inputs: imageInputFormats, outputs: imageOutputFormats },
  tierNeeds: fileRouteNeeds,
  tag: 'Image',
  summary: 'Make an image file smaller',
  description:
    `${imageSourceRules} Re-encodes with the encoders’ slower, smaller settings (mozjpeg, png level 9, webp ` +
    'effort 6, avif effort 5; large images get lower efforts), metadata dropped, ' +
    'optionally scaled down into maxWidth × maxHeight. With `maxBytes` the highest quality (at most ' +
    '`quality`) whose file fits is found by bisection (at most 8 encodes); when even quality 1 does not fit, ' +
    'or the format has no quality (gif, tiff, bmp, ico, lossless), the answer is 400 `validation_failed` ' +
    'naming maxBytes. png is lossless by default, every pixel kept: an exact palette when the image has at ' +
    'most 256 colours, else true colour; it is quantised to a libimagequant palette (lossy) only when ' +
    '`quality` or `maxBytes` is given, and never with `lossless`. The answer is never larger than the source: when no encode is smaller, the source’s ' +
    'own bytes come back with its own type and name (unless it had to be scaled down to meet ' +
    'maxWidth/maxHeight). `X-Original-Size` and `X-Output-Size` give both sizes in bytes.',
  body: imageOptimizeBody,
  produces: [...allTypes, 'image/heic'],
  example: { sourceUrl: samplePhoto, quality: 75, maxWidth: 1600, maxBytes: 200000 },
  moreExamples: {
    lossless: {
      summary: 'A lossless WebP no taller than 600 px',
      body: { sourceUrl: sampleTransparent, outputFormat: 'webp', lossless: true, maxHeight: 600 },
    },
    png: {
      summary: 'A smaller PNG with every pixel kept (no quality given)',
      body: { sourceUrl: sampleTransparent, outputFormat: 'png' },
    },
  },
  errors: [...sourceErrors, 'unsupported_output_format', 'validation_failed'],
});

export const imageMetadataRoute = defineRoute({
  method: 'POST',
  path: '/image-metadata',
  function: 'image-metadata',
  kind: 'json',
  sizing: bufferedSizing(2048, true),
  formats: { categories: ['image'], inputs: imageInputFormats, outputs: ['json'] },
  tag: 'Image',
  summary: 'Format, size, frames, alpha, colour space, density, orientation and EXIF of an image',
  description:
    `${imageSourceRules.split(' Its header')[0]} Read from the header without decoding pixels (BMP and ICO are ` +
    'decoded to learn about alpha, after the pixel limit check). width and height are those of the upright ' +
    'image; orientation is the EXIF value as stored. exif appears when the file has EXIF. With ' +
    '`placeholder: true` the upright first frame is decoded (its header checked against the pixel limits ' +
    'first), scaled to fit 100 × 100, and `blurhash` (BlurHash, up to 4 × 4 components), `thumbhash` ' +
    '(ThumbHash bytes in base64) and `dominantColor` (#rrggbb) are added.',
  body: imageMetadataBody,
  response: imageMetadataResult,
  example: { sourceUrl: sampleTransparent },
  moreExamples: {
    placeholder: {
      summary: 'Also a BlurHash, a ThumbHash and the dominant colour',
      body: { sourceUrl: samplePhoto, placeholder: true },
    },
  },
  errors: sourceErrors,
});

export const imageRoutes: RouteSpec[] = [
  imageConvertRoute,
  imageResizeRoute,
  imageOptimizeRoute,
  imageMetadataRoute,
];
