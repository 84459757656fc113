import { formLimits, maxMarkSidePixels, maxTiles } from '#shared/pdf/draw-limits.ts';
import {
  pdfFlattenBody,
  pdfFormFillBody,
  pdfPageNumbersBody,
  pdfWatermarkBody,
} from '#shared/pdf/draw-schemas.ts';
import { activeContentRule, pdfFileRow, rangeRules, readRules, samplePdf } from '#shared/routes/pdf.ts';
import { samplePhoto } from '#shared/routes/samples.ts';
import { defineRoute, type RouteSpec, sourceErrors } from '#shared/routes/types.ts';

/** The PDF routes that draw on pages: watermarks, page numbers, filled and flattened forms. */

const fontRule =
  'Text is drawn in Noto Sans, and what it lacks in Noto Sans CJK (the Japanese face for text with kana, ' +
  'the Korean one for text with hangul, else the Simplified Chinese one): the fonts the documents routes ' +
  'ship, embedded as subsets of the characters drawn. A character neither font has answers 400 ' +
  '`validation_failed` naming the field.';

const shownRule =
  'Places are taken on the page as a viewer shows it: its crop box within its media box, turned by its ' +
  'rotation.';

export const pdfWatermarkRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-watermark',
  function: 'pdf-watermark',
  summary: 'Draw a text or an image across the pages of a PDF',
  description:
    `${readRules} ${rangeRules} Each page named by \`pages\` (default all) gets the mark: \`text\` (one ` +
    'line) in `color` at `fontSize` (default: the size at which the turned text spans 80 % of the page in ' +
    'the centre, 40 % at an edge, 30 % a tile), or the image at `imageUrl` (png, jpg, webp or svg, ' +
    'downloaded under the source rules; its pixels are checked against the image limits before it is ' +
    `decoded, and it is stored at most ${maxMarkSidePixels} pixels a side, an SVG rendered at that size) ` +
    '`scale` × the page width wide. The mark is turned by `rotation` degrees counter-clockwise about its ' +
    'centre, drawn with `opacity`, and placed at the centre, at a compass point (its turned box 4 % of the ' +
    `page’s shorter side from the edges), or tiled across the page (at most ${maxTiles} copies a page); ` +
    '`layer: under` draws it behind the page’s content (where the page paints a white background, that ' +
    `hides it). ${shownRule} Pages of one size share one drawing of the mark. ${fontRule} The file is ` +
    `named \`<name>.pdf\`. ${activeContentRule}`,
  body: pdfWatermarkBody,
  example: { sourceUrl: samplePdf, text: 'CONFIDENTIAL', opacity: 0.2, pages: '1-3' },
  moreExamples: {
    image: {
      summary: 'An image in the bottom right corner of every page',
      body: { sourceUrl: samplePdf, imageUrl: samplePhoto, scale: 0.2, position: 'southeast', opacity: 0.5 },
    },
  },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password', 'invalid_range', 'validation_failed'],
});

export const pdfPageNumbersRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-page-numbers',
  function: 'pdf-page-numbers',
  summary: 'Number the pages of a PDF',
  description:
    `${readRules} ${rangeRules} Each page named by \`pages\` (default all) gets \`format\` with \`{n}\` ` +
    'replaced by its number and `{total}` by the last page’s, in black at `fontSize`, `margin` points ' +
    'from the edges at `position`. The first page of the document is number `start`; pages left out of ' +
    `\`pages\` keep their place in the count. ${shownRule} ${fontRule} The file is named ` +
    `\`<name>.pdf\`. ${activeContentRule}`,
  body: pdfPageNumbersBody,
  example: { sourceUrl: samplePdf, format: 'Page {n} of {total}', position: 'bottom-right', pages: '2-' },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password', 'invalid_range', 'validation_failed'],
});

const flattenRule =
  'Flattening draws each annotation with an appearance (form fields included) into the page content, ' +
  'where a viewer shows it, and removes it and the interactive form; hidden annotations and ones with ' +
  'no appearance of their own (a note a viewer draws as an icon) are removed; links stay. Field ' +
  'appearances that are missing, or that the form asks viewers to redraw, are drawn first.';

export const pdfFormFillRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-form-fill',
  function: 'pdf-form-fill',
  summary: 'Fill the form fields of a PDF, and flatten them if asked',
  description:
    `${readRules} Each field named in \`fields\` (by its fully qualified name, as /pdf-info lists it) is ` +
    'set: a text field to the string (within its maximum length), a checkbox to true or false, a radio ' +
    'group, dropdown or list to one of its options (an editable dropdown to any text). Its appearance is ' +
    'drawn anew, so that every viewer shows the value. A name the form does not have, a value of the ' +
    'wrong kind, or an option the field does not offer answers 400 `validation_failed` naming the field; ' +
    'buttons and signature fields cannot be filled. Fields not named keep their values. A form of more than ' +
    `${formLimits.maxFormFields} fields answers 400 \`invalid_source_file\`. With \`flatten: true\`: ` +
    `${flattenRule} ${fontRule} The file is named \`<name>.pdf\`. ${activeContentRule}`,
  body: pdfFormFillBody,
  example: {
    sourceUrl: samplePdf,
    fields: { name: 'Ada Lovelace', 'address.city': 'London', subscribe: true, plan: 'Pro' },
  },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password', 'validation_failed'],
});

export const pdfFlattenRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-flatten',
  function: 'pdf-flatten',
  summary: 'Draw the form fields and annotations of a PDF into its pages',
  description:
    `${readRules} ${flattenRule} A form of more than ${formLimits.maxFormFields} fields answers 400 ` +
    `\`invalid_source_file\`. ${fontRule} The file is named \`<name>.pdf\`. ${activeContentRule}`,
  body: pdfFlattenBody,
  example: { sourceUrl: samplePdf },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password'],
});

export const pdfDrawRoutes: RouteSpec[] = [
  pdfWatermarkRoute,
  pdfPageNumbersRoute,
  pdfFormFillRoute,
  pdfFlattenRoute,
];
