import { contentTypeOf, imageOutputFormats } from '#shared/image/formats.ts';
import { imageLimits } from '#shared/image/limits.ts';
import { imageTransformBody, imageWatermarkBody, MAX_OPERATIONS } from '#shared/image/tools-schema.ts';
import { imageSourceRules } from '#shared/routes/image.ts';
import { sampleAnimation, samplePhoto, sampleTransparent } from '#shared/routes/samples.ts';
import { streamedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, fileRouteNeeds, type RouteSpec, sourceErrors } from '#shared/routes/types.ts';
import { imageInputFormats } from '#shared/source/formats.ts';

const allTypes = imageOutputFormats.map((format) => contentTypeOf[format]);

const outputRule =
  'The output keeps the input’s format unless `outputFormat` says otherwise (heic and svg inputs become ' +
  'png), with the encoders of /image-convert (`quality` on their scale); jpg and bmp flatten transparency ' +
  'onto white (or the last `background` an operation named). Animated GIF and WebP keep every frame, with ' +
  'their delays, for gif and webp targets; other targets take the first frame. Metadata is dropped.';

const boundRule =
  `An operation whose result would exceed ${imageLimits.maxPixels / 1e6} megapixels a frame ` +
  `(${imageLimits.maxAnimationPixels / 1e6} over all frames of an animation) answers 400 \`validation_failed\` ` +
  'naming it, before it runs.';

export const imageTransformRoute = defineRoute({
  method: 'POST',
  path: '/image-transform',
  function: 'image-transform',
  kind: 'file',
  sizing: streamedSizing(2048, 120, 2),
  jobStore: 'run',
  formats: { categories: ['image'], inputs: imageInputFormats, outputs: imageOutputFormats },
  tierNeeds: fileRouteNeeds,
  tag: 'Image',
  summary: `Apply up to ${MAX_OPERATIONS} operations in order: rotate, flip, crop, trim, extend, resize, blur, sharpen, pixelate, colour`,
  description:
    `${imageSourceRules} The image is decoded once, upright, the operations run in the order given on its ` +
    'pixels, and it is encoded once. rotate turns clockwise by any angle (the canvas grows to hold the turned ' +
    'image; uncovered corners take `background`); flip mirrors; crop cuts a box (clipped to the image; a box ' +
    'wholly outside answers 400 `validation_failed`) or the largest part of an aspect ratio at `position` ' +
    '(attention and entropy smart-crop a still image; animations are cropped at the centre); trim removes a ' +
    'border of the top-left pixel’s colour; extend adds pixels; resize is /image-resize’s; blur is a Gaussian ' +
    'blur, sharpen an unsharp mask; pixelate averages blocks (of a region, or of all); grayscale, negate, ' +
    'normalize, modulate and tint change colours; roundCorners makes the corners transparent. Operations that ' +
    'depend on the pixels (trim, smart crop) are measured on the first frame of an animation and applied to ' +
    `every frame alike. ${boundRule} ${outputRule} The file is named \`<source name>.<format>\`.`,
  body: imageTransformBody,
  produces: allTypes,
  example: {
    sourceUrl: samplePhoto,
    operations: [
      { op: 'rotate', angle: 90 },
      { op: 'crop', aspectRatio: '16:9', position: 'attention' },
      { op: 'resize', width: 1280 },
      { op: 'sharpen', sigma: 1 },
    ],
    outputFormat: 'webp',
  },
  moreExamples: {
    redact: {
      summary: 'Pixelate a region and make the rest grey',
      body: {
        sourceUrl: samplePhoto,
        operations: [
          { op: 'pixelate', size: 16, region: { left: 100, top: 80, width: 200, height: 120 } },
          { op: 'grayscale' },
        ],
      },
    },
    card: {
      summary: 'Trim a transparent border, pad it and round the corners',
      body: {
        sourceUrl: sampleTransparent,
        operations: [
          { op: 'trim' },
          { op: 'extend', top: 20, right: 20, bottom: 20, left: 20, background: '#ffffff' },
          { op: 'roundCorners', radius: 24 },
        ],
        outputFormat: 'png',
      },
    },
    animation: {
      summary: 'Flip every frame of an animated GIF',
      body: { sourceUrl: sampleAnimation, operations: [{ op: 'flip', direction: 'horizontal' }] },
    },
  },
  errors: [...sourceErrors, 'unsupported_output_format', 'validation_failed'],
});

export const imageWatermarkRoute = defineRoute({
  method: 'POST',
  path: '/image-watermark',
  function: 'image-watermark',
  kind: 'file',
  sizing: streamedSizing(2048, 120, 2),
  jobStore: 'run',
  formats: { categories: ['image'], inputs: imageInputFormats, outputs: imageOutputFormats },
  tierNeeds: fileRouteNeeds,
  tag: 'Image',
  summary: 'Stamp a text or an image over an image, once or tiled',
  description:
    `${imageSourceRules} The mark is a \`text\`, set in the shipped fonts (Liberation, with Noto for Greek, ` +
    'Cyrillic and other scripts and Noto Sans CJK for Chinese, Japanese and Korean: the fonts the documents ' +
    'routes render with), wrapped to the image’s width; or an image from `imageUrl`, downloaded under the ' +
    'same source rules with the same checks (its errors name imageUrl), its first frame scaled to `scale` of ' +
    'the base width. The mark is turned by `rotation`, made as transparent as `opacity` says, shrunk to fit ' +
    'inside the image less its margins when larger, and placed at `position`, `margin` pixels from the edges, ' +
    'or repeated over the whole image (`tile`, `margin` apart). Every frame of an animation gets it. A text ' +
    `whose characters at \`fontSize\` could need more than ${imageLimits.maxPixels / 1e6} megapixels answers 400 ` +
    `\`validation_failed\`. ${outputRule} The file is named \`<source name>.<format>\`.`,
  body: imageWatermarkBody,
  produces: allTypes,
  example: { sourceUrl: samplePhoto, text: '© Example 2026', position: 'southeast', opacity: 0.6 },
  moreExamples: {
    logo: {
      summary: 'A logo in the top-left corner at a fifth of the width',
      body: {
        sourceUrl: samplePhoto,
        imageUrl: sampleTransparent,
        position: 'northwest',
        scale: 0.2,
        opacity: 0.8,
      },
    },
    tiled: {
      summary: 'A tiled, turned text over the whole image',
      body: {
        sourceUrl: samplePhoto,
        text: 'DRAFT',
        position: 'tile',
        rotation: -30,
        fontSize: 48,
        margin: 60,
      },
    },
  },
  errors: [...sourceErrors, 'unsupported_output_format', 'validation_failed'],
});

export const imageToolRoutes: RouteSpec[] = [imageTransformRoute, imageWatermarkRoute];
