import * as z from 'zod';
import { allRules, exactlyOneOf, type SchemaRule, when, whenOrDefault } from '#shared/schema-rules.ts';
import { httpUrlField } from '#shared/source/url-schema.ts';

/** The most a body's `html` or `markdown` may hold, in UTF-8 bytes. */
export const maxInlineBytes = 1024 * 1024;

/** Named page sizes in points (1/72 in), portrait. */
export const namedPageSizes = {
  a4: { width: 595.28, height: 841.89 },
  letter: { width: 612, height: 792 },
  legal: { width: 612, height: 1008 },
  a3: { width: 841.89, height: 1190.55 },
  a5: { width: 419.53, height: 595.28 },
} as const;

/** A custom page: from one inch to the 200 inches a PDF page may measure. */
export const pagePoints = { min: 72, max: 14_400 } as const;

const url = httpUrlField();

const inline = (what: string) =>
  z
    .string()
    .min(1)
    .max(maxInlineBytes)
    .refine((text) => Buffer.byteLength(text) <= maxInlineBytes, `${what} may hold at most 1 MiB (UTF-8).`)
    .describe(`${what}, at most 1 MiB in UTF-8.`);

const side = z.number().min(pagePoints.min).max(pagePoints.max);

/** The margin must leave half an inch of the page's shorter side (`pdfOptions` checks it). */
const largestMarginBelow = (size: { width: number; height: number }) =>
  (Math.min(size.width, size.height) - 36) / 2;
const defaultPageSize = 'a4';
const marginMaximum = 288;

/** The named sizes whose shorter side limits the margin below its maximum, with that limit. */
const limitedSizes = () =>
  Object.entries(namedPageSizes)
    .map(([name, size]) => [name, largestMarginBelow(size)] as const)
    .filter(([, below]) => below <= marginMaximum);

const marginLimits = () =>
  limitedSizes()
    .map(([name, below]) => `${name}: less than ${Math.round(below * 100) / 100}`)
    .join(', ');

/** The margin rule of the named page sizes, as the document states it. */
const marginRule = (): SchemaRule =>
  allRules(
    ...limitedSizes().map(([name, below]) => {
      const then = { properties: { margin: { exclusiveMaximum: below } } };
      return name === defaultPageSize
        ? whenOrDefault('pageSize', name, then)
        : when({ pageSize: name }, then);
    }),
  );

export const pageOptions = {
  pageSize: z
    .union([
      z.enum(
        Object.keys(namedPageSizes) as [keyof typeof namedPageSizes, ...Array<keyof typeof namedPageSizes>],
      ),
      z.strictObject({ width: side, height: side }),
    ])
    .default(defaultPageSize)
    .describe(
      'a4 (default), letter, legal, a3, a5, or {width, height} in points (1/72 in), each 72–14400; ' +
        'named sizes are portrait unless `landscape`.',
    ),
  landscape: z.boolean().default(false).describe('Turns the page a quarter: width and height swap.'),
  margin: z
    .number()
    .min(0)
    .max(marginMaximum)
    .default(36)
    .describe(
      'The margin on all four sides, in points (default 36, half an inch); at most 288, and it must leave at ' +
        'least half an inch of the page: twice the margin less than the shorter side minus 36 points ' +
        `(${marginLimits()}; a {width, height} page: less than (shorter side − 36) / 2, so 18 on the smallest). ` +
        'Else 400 validation_failed naming margin.',
    ),
  printBackground: z.boolean().default(true).describe('Prints background colours and images.'),
  scale: z.number().min(0.1).max(2).default(1).describe('Scales the rendering: 0.1–2, default 1.'),
  javascript: z
    .boolean()
    .default(false)
    .describe(
      'Runs the page’s scripts (default false: the page is printed as its markup and styles draw it).',
    ),
};

const oneOf =
  (first: string, second: string) => (body: Record<string, unknown>, context: z.RefinementCtx) => {
    const given = [first, second].filter((field) => body[field] !== undefined);
    if (given.length !== 1) {
      context.addIssue({
        code: 'custom',
        path: given.length === 0 ? [first] : [second],
        message: `Give exactly one of ${first} and ${second}.`,
      });
    }
  };

export const htmlToPdfBody = z
  .strictObject({
    html: inline('The HTML document').optional(),
    sourceUrl: url
      .describe('An absolute http(s) URL of an HTML file; its relative links resolve against it.')
      .optional(),
    ...pageOptions,
  })
  .superRefine(oneOf('html', 'sourceUrl'))
  .meta(allRules(exactlyOneOf('html', 'sourceUrl'), marginRule()));
export type HtmlToPdfBody = z.infer<typeof htmlToPdfBody>;

export const waitForValues = ['load', 'networkidle'] as const;

export const urlToPdfBody = z
  .strictObject({
    url: url.describe('The web page, an absolute http(s) URL, fetched under the source rules.'),
    ...pageOptions,
    waitFor: z
      .enum(waitForValues)
      .default('load')
      .describe('When the page counts as loaded: its load event (default), or no request for 500 ms.'),
  })
  .meta(marginRule());
export type UrlToPdfBody = z.infer<typeof urlToPdfBody>;

export const markdownToPdfBody = z
  .strictObject({
    markdown: inline('The Markdown text (CommonMark and tables)').optional(),
    sourceUrl: url.describe('An absolute http(s) URL of a Markdown file (UTF-8).').optional(),
    pageSize: pageOptions.pageSize,
    landscape: pageOptions.landscape,
    margin: pageOptions.margin,
    printBackground: pageOptions.printBackground,
    scale: pageOptions.scale,
  })
  .superRefine(oneOf('markdown', 'sourceUrl'))
  .meta(allRules(exactlyOneOf('markdown', 'sourceUrl'), marginRule()));
export type MarkdownToPdfBody = z.infer<typeof markdownToPdfBody>;

export const screenshotFormats = ['png', 'jpg', 'webp'] as const;

export const webScreenshotBody = z
  .strictObject({
    url: url.describe('The web page, an absolute http(s) URL, fetched under the source rules.').optional(),
    html: inline('The HTML document').optional(),
    outputFormat: z
      .enum([...screenshotFormats, 'jpeg'])
      .default('png')
      .describe('png (default), jpg or webp; jpeg is an alias of jpg.'),
    width: z.number().int().min(320).max(3840).default(1280).describe('The viewport width in CSS pixels.'),
    height: z.number().int().min(240).max(2160).default(800).describe('The viewport height in CSS pixels.'),
    fullPage: z
      .boolean()
      .default(false)
      .describe('Captures the whole page, not only the viewport (at most 16384 pixels tall).'),
    javascript: z
      .boolean()
      .optional()
      .describe('Runs the page’s scripts; default false for `html`, true for `url`.'),
    waitFor: z
      .enum(waitForValues)
      .default('load')
      .describe(
        'When the page counts as loaded: its load event (default), or no request for 500 ms — for a page its scripts draw after it loads.',
      ),
  })
  .superRefine(oneOf('url', 'html'))
  .meta(exactlyOneOf('url', 'html'));
export type WebScreenshotBody = z.infer<typeof webScreenshotBody>;

export type PageOptions = Pick<
  HtmlToPdfBody,
  'pageSize' | 'landscape' | 'margin' | 'printBackground' | 'scale'
>;
