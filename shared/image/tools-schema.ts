import * as z from 'zod';
import { imageLimits, positions } from '#shared/image/limits.ts';
import {
  background,
  fit,
  MAX_SIDE,
  outputFormat,
  position,
  quality,
  side,
  sourceUrl,
  withinPixelLimit,
} from '#shared/image/schemas.ts';
import { httpUrlField } from '#shared/source/url-schema.ts';

/** Operations one /image-transform request may chain. */
export const MAX_OPERATIONS = 10;

const offset = (meaning: string) =>
  z.number().int().min(0).max(MAX_SIDE).describe(`${meaning} in pixels (0–${MAX_SIDE}).`);

const region = z
  .strictObject({
    left: offset('Left edge'),
    top: offset('Top edge'),
    width: side('width', 'Region'),
    height: side('height', 'Region'),
  })
  .describe('A box of the image; the part outside the image is left out.');

const rotate = z
  .strictObject({
    op: z.literal('rotate'),
    angle: z
      .number()
      .min(-36_000)
      .max(36_000)
      .describe('Degrees clockwise, any value; negative turns anticlockwise. Multiples of 90 lose nothing.'),
    background: background
      .optional()
      .describe(
        'A CSS colour for the corners a turn that is no multiple of 90 uncovers (default transparent, white where the target has no alpha).',
      ),
  })
  .describe('Turn the image.');

const flip = z
  .strictObject({
    op: z.literal('flip'),
    direction: z
      .enum(['horizontal', 'vertical'])
      .describe('horizontal mirrors left and right, vertical top and bottom.'),
  })
  .describe('Mirror the image.');

/** `"16:9"`: two positive numbers. */
export const aspectRatioPattern = '^\\s*\\d+(\\.\\d+)?\\s*:\\s*\\d+(\\.\\d+)?\\s*$';

const crop = z
  .strictObject({
    op: z.literal('crop'),
    left: offset('Left edge of the box').optional(),
    top: offset('Top edge of the box').optional(),
    width: side('width', 'Box').optional(),
    height: side('height', 'Box').optional(),
    aspectRatio: z
      .string()
      .max(40)
      .regex(new RegExp(aspectRatioPattern), 'an aspect ratio like "16:9"')
      .refine(
        (text) => text.split(':').every((part) => Number(part) > 0),
        'both sides of the ratio must be above 0',
      )
      .optional()
      .describe(
        'Instead of a box: the largest part of the image of this width:height ratio, e.g. "16:9", kept where `position` says.',
      ),
    position: position.describe(
      'With aspectRatio, what to keep: centre (default), a compass point, or attention / entropy for a smart crop (animations are cropped at the centre).',
    ),
  })
  .superRefine((step, context) => {
    const box = [step.left, step.top, step.width, step.height].filter((value) => value !== undefined).length;
    if (step.aspectRatio !== undefined ? box > 0 : box !== 4) {
      context.addIssue({
        code: 'custom',
        path: step.aspectRatio !== undefined ? ['aspectRatio'] : ['width'],
        message: 'give left, top, width and height, or aspectRatio (not both)',
      });
    }
  })
  .meta({
    // Each branch names the fields it requires among its properties: linters do not look up to the
    // operation's own properties from inside an array item's oneOf.
    oneOf: [
      {
        required: ['left', 'top', 'width', 'height'],
        properties: { left: {}, top: {}, width: {}, height: {}, aspectRatio: false },
      },
      {
        required: ['aspectRatio'],
        properties: { aspectRatio: {}, left: false, top: false, width: false, height: false },
      },
    ],
  })
  .describe('Cut out a box (left, top, width, height; clipped to the image) or an aspect ratio.');

const trim = z
  .strictObject({
    op: z.literal('trim'),
    threshold: z
      .number()
      .min(0)
      .max(255)
      .default(10)
      .describe(
        'How far (0–255) a pixel may differ from the top-left pixel and still count as border (default 10).',
      ),
  })
  .describe(
    'Remove a uniform border of the colour of the top-left pixel; an image that is all border stays as it is.',
  );

const extend = z
  .strictObject({
    op: z.literal('extend'),
    top: offset('Rows added above').default(0),
    right: offset('Columns added on the right').default(0),
    bottom: offset('Rows added below').default(0),
    left: offset('Columns added on the left').default(0),
    background: background
      .optional()
      .describe(
        'A CSS colour for the new pixels (default transparent, white where the target has no alpha).',
      ),
  })
  .describe('Add pixels around the image.');

const resize = z
  .strictObject({
    op: z.literal('resize'),
    width: side('width', 'Target')
      .optional()
      .describe(
        `Target width in pixels (1–${MAX_SIDE}). With both width and height, width × height may be at most ${imageLimits.maxPixels / 1e6} megapixels (400 validation_failed naming width).`,
      ),
    height: side('height', 'Target').optional(),
    fit,
    position,
    withoutEnlargement: z
      .boolean()
      .default(true)
      .describe('Never enlarge: an image smaller than the target keeps its size (default).'),
    background: background.optional().describe('A CSS colour for contain padding (default transparent).'),
  })
  .superRefine((step, context) => {
    if (step.width === undefined && step.height === undefined) {
      context.addIssue({ code: 'custom', path: ['width'], message: 'give width, height or both' });
    }
    withinPixelLimit(step, context);
  })
  .meta({
    oneOf: [
      { required: ['width'], properties: { width: {} } },
      { required: ['height'], properties: { height: {}, width: false } },
    ],
  })
  .describe('Resize as /image-resize does (width and/or height, fit, position, withoutEnlargement).');

const blur = z
  .strictObject({
    op: z.literal('blur'),
    sigma: z.number().min(0.3).max(100).describe('Gaussian sigma in pixels (0.3–100).'),
  })
  .describe('Gaussian blur.');

const sharpen = z
  .strictObject({
    op: z.literal('sharpen'),
    sigma: z
      .number()
      .min(0.3)
      .max(10)
      .default(1)
      .describe('Sigma of the unsharp mask in pixels (0.3–10, default 1).'),
  })
  .describe('Sharpen (an unsharp mask on the lightness).');

const pixelate = z
  .strictObject({
    op: z.literal('pixelate'),
    size: z.number().int().min(2).max(256).describe('Side of a block in pixels (2–256).'),
    region: region
      .optional()
      .describe('Only this box (e.g. a face or a number plate); default the whole image.'),
  })
  .describe('Replace blocks of pixels by their average.');

const plain = <Op extends string>(op: Op, meaning: string) =>
  z.strictObject({ op: z.literal(op) }).describe(meaning);

const modulate = z
  .strictObject({
    op: z.literal('modulate'),
    brightness: z.number().min(0).max(10).optional().describe('Multiplier of the brightness (1: as it is).'),
    saturation: z
      .number()
      .min(0)
      .max(10)
      .optional()
      .describe('Multiplier of the saturation (0: grey, 1: as it is).'),
    hue: z.number().min(-360).max(360).optional().describe('Hue rotation in degrees.'),
  })
  .describe('Change brightness, saturation and hue.');

const tint = z
  .strictObject({
    op: z.literal('tint'),
    color: background.describe('A CSS colour: the image keeps its lightness and takes this colour’s chroma.'),
  })
  .describe('Tint the image with a colour.');

const roundCorners = z
  .strictObject({
    op: z.literal('roundCorners'),
    radius: z
      .number()
      .int()
      .min(1)
      .max(MAX_SIDE)
      .describe('Corner radius in pixels (at most half the shorter side is used).'),
  })
  .describe('Make the corners transparent along a circle (white where the target has no alpha).');

export const transformOperation = z.discriminatedUnion('op', [
  rotate,
  flip,
  crop,
  trim,
  extend,
  resize,
  blur,
  sharpen,
  pixelate,
  plain('grayscale', 'Make the image grey.'),
  plain('negate', 'Invert the colours (alpha kept).'),
  plain('normalize', 'Stretch the lightness to the full range (1% of pixels clipped at each end).'),
  modulate,
  tint,
  roundCorners,
]);
export type TransformOperation = z.infer<typeof transformOperation>;

export const imageTransformBody = z.strictObject({
  sourceUrl,
  operations: z
    .array(transformOperation)
    .min(1)
    .max(MAX_OPERATIONS)
    .describe(`1–${MAX_OPERATIONS} operations, applied in order to the upright image.`),
  outputFormat: outputFormat
    .optional()
    .describe('The format to write; default the input’s, png for heic and svg inputs.'),
  quality: quality.optional(),
});
export type ImageTransformBody = z.infer<typeof imageTransformBody>;

export const watermarkFonts = ['sans', 'serif', 'mono'] as const;
export const watermarkPositions = [
  ...positions.filter((name) => name !== 'attention' && name !== 'entropy'),
  'center',
  'tile',
] as const;

/** The longest text a watermark may carry. */
export const MAX_WATERMARK_TEXT = 500;

export const imageWatermarkBody = z
  .strictObject({
    sourceUrl,
    text: z
      .string()
      .min(1)
      .max(MAX_WATERMARK_TEXT)
      .optional()
      .describe(
        `The text of the mark (1–${MAX_WATERMARK_TEXT} characters; any script the shipped fonts cover: Latin, Greek, Cyrillic, CJK, …). Give text or imageUrl.`,
      ),
    imageUrl: httpUrlField()
      .optional()
      .describe(
        'An image to stamp instead of a text, downloaded under the source rules (any image input format).',
      ),
    fontSize: z
      .number()
      .int()
      .min(4)
      .max(2000)
      .optional()
      .describe('Text height in pixels (default 5% of the base’s shorter side, at least 12).'),
    color: background.optional().describe('A CSS colour for the text (default white).'),
    font: z.enum(watermarkFonts).default('sans').describe('sans (default), serif or mono.'),
    position: z
      .enum(watermarkPositions)
      .default('southeast')
      .describe(
        'Where the mark goes: a compass point (southeast default), centre/center, or tile to repeat it over the whole image.',
      ),
    opacity: z.number().min(0).max(1).default(0.5).describe('0 (invisible) to 1 (opaque); default 0.5.'),
    margin: z
      .number()
      .int()
      .min(0)
      .max(MAX_SIDE)
      .optional()
      .describe(
        'Pixels between the mark and the edges (between tiles when tiling); default 2% of the shorter side.',
      ),
    scale: z
      .number()
      .min(0.01)
      .max(1)
      .default(0.25)
      .describe('Width of an image mark as a fraction of the base width (default 0.25).'),
    rotation: z.number().min(-360).max(360).default(0).describe('Degrees clockwise the mark is turned.'),
    outputFormat: outputFormat
      .optional()
      .describe('The format to write; default the input’s, png for heic and svg inputs.'),
    quality: quality.optional(),
  })
  .superRefine((body, context) => {
    if ((body.text === undefined) === (body.imageUrl === undefined)) {
      context.addIssue({ code: 'custom', path: ['text'], message: 'give exactly one of text and imageUrl' });
    }
  })
  .meta({ oneOf: [{ required: ['text'] }, { required: ['imageUrl'] }] });
export type ImageWatermarkBody = z.infer<typeof imageWatermarkBody>;

/** Pixels a watermark text may be rendered at before it is placed. */
export const maxMarkPixels = imageLimits.maxPixels;
