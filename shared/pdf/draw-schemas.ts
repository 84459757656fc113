import * as z from 'zod';
import { cssColourPattern, parseCssColour } from '#shared/image/colour.ts';
import { formLimits, numberPositions, watermarkPositions } from '#shared/pdf/draw-limits.ts';
import { rangeSyntax } from '#shared/pdf/limits.ts';
import { password } from '#shared/pdf/password-schema.ts';
import { exactlyOneOf } from '#shared/schema-rules.ts';
import { httpUrlField } from '#shared/source/url-schema.ts';

const sourceUrl = httpUrlField().describe(
  'An absolute http(s) URL of the PDF; the format is read from its bytes.',
);

const pages = (what: string) =>
  z
    .string()
    .min(1)
    .max(1000)
    .describe(`${what}, in range syntax, e.g. ${rangeSyntax}; default all pages.`)
    .optional();

const colour = z
  .string()
  .max(100)
  .meta({ pattern: cssColourPattern })
  .refine((text) => parseCssColour(text) !== undefined, {
    message: 'not a CSS colour (e.g. "#808080", "rgb(200 0 0)", "navy")',
  });

/** Font sizes in points: from fine print to a mark across a poster. */
const fontSize = (what: string) => z.number().min(1).max(1000).describe(`${what}, in points (1/72 in).`);

export const pdfWatermarkBody = z
  .strictObject({
    sourceUrl,
    password,
    text: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe('The text to draw, in any of Latin, Greek, Cyrillic, Chinese, Japanese, Korean (one line).'),
    imageUrl: httpUrlField()
      .optional()
      .describe(
        'An absolute http(s) URL of the image to draw (png, jpg, webp or svg), downloaded as a source.',
      ),
    fontSize: fontSize('Text size; default fitted to the page').optional(),
    color: colour
      .default('#808080')
      .describe('The text colour, CSS (default #808080); its alpha is ignored.'),
    opacity: z.number().min(0).max(1).default(0.3).describe('0 (invisible) to 1 (opaque); default 0.3.'),
    rotation: z
      .number()
      .min(-360)
      .max(360)
      .optional()
      .describe('Degrees counter-clockwise: default 45 for text (bottom left to top right), 0 for an image.'),
    scale: z
      .number()
      .min(0.01)
      .max(1)
      .default(0.5)
      .describe('Image width as a fraction of the page width; default 0.5.'),
    position: z
      .enum(watermarkPositions)
      .default('center')
      .describe(
        'center (default), a compass point (north, northeast, … at the page’s edge), or tile (repeated across the page).',
      ),
    layer: z
      .enum(['over', 'under'])
      .default('over')
      .describe('over (default): on top of the page; under: behind the page’s content.'),
    pages: pages('The pages to mark'),
  })
  .superRefine((body, context) => {
    if ((body.text === undefined) === (body.imageUrl === undefined)) {
      context.addIssue({
        code: 'custom',
        path: body.text === undefined ? ['text'] : ['imageUrl'],
        message: 'give exactly one of text and imageUrl',
      });
    }
  })
  .meta(exactlyOneOf('text', 'imageUrl'));
export type PdfWatermarkBody = z.infer<typeof pdfWatermarkBody>;

export const pdfPageNumbersBody = z.strictObject({
  password,
  sourceUrl,
  format: z
    .string()
    .min(1)
    .max(200)
    .default('{n}')
    .describe(
      'The text of each number: {n} is the page’s number, {total} the last page’s, e.g. "Page {n} of {total}".',
    ),
  position: z
    .enum(numberPositions)
    .default('bottom-center')
    .describe('Where the number stands on the page as shown.'),
  start: z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(1)
    .describe('The number of the first page; default 1.'),
  fontSize: fontSize('Text size (default 10)').default(10),
  margin: z
    .number()
    .min(0)
    .max(500)
    .default(24)
    .describe('Distance from the page’s edges, in points; default 24.'),
  pages: pages('The pages that carry a number (the others keep their place in the count)'),
});
export type PdfPageNumbersBody = z.infer<typeof pdfPageNumbersBody>;

export const pdfFormFillBody = z.strictObject({
  password,
  sourceUrl,
  fields: z
    .record(
      z.string().min(1).max(1000),
      z.union([z.string().max(formLimits.maxValueCharacters), z.boolean()]),
    )
    .refine((fields) => Object.keys(fields).length <= formLimits.maxFilledFields, {
      message: `at most ${formLimits.maxFilledFields} fields a request`,
    })
    .describe(
      'Field name (fully qualified, e.g. "address.city") → value: a string for a text field, true or false ' +
        'for a checkbox, an option’s value for a radio group, a dropdown or a list.',
    ),
  flatten: z
    .boolean()
    .default(false)
    .describe('true: the filled form is drawn into the pages and its fields and annotations removed.'),
});
export type PdfFormFillBody = z.infer<typeof pdfFormFillBody>;

export const pdfFlattenBody = z.strictObject({ sourceUrl, password });
export type PdfFlattenBody = z.infer<typeof pdfFlattenBody>;

export const formFieldInfo = z.object({
  name: z.string().describe('The fully qualified field name, as /pdf-form-fill takes it.'),
  type: z
    .enum(['text', 'checkbox', 'radio', 'dropdown', 'list', 'button', 'signature'])
    .describe('The kind of field.'),
  value: z
    .union([z.string(), z.boolean(), z.array(z.string()), z.null()])
    .describe('Text, checked or not, the selected option (options of a list), or null when empty.'),
});
