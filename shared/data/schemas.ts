import * as z from 'zod';
import { dataFormats, diffFormats, diffGranularities } from '#shared/data/limits.ts';
import { whenOrDefault } from '#shared/schema-rules.ts';
import { unicodeText } from '#shared/text/schemas.ts';

export const dataConvertBody = z.strictObject({
  text: unicodeText().describe('The data, written in `from`.'),
  from: z.enum(dataFormats),
  to: z.enum(dataFormats),
  indent: z
    .number()
    .int()
    .min(0)
    .max(8)
    .default(2)
    .describe(
      'Spaces per level for json, yaml and xml; 0 writes one line (YAML in flow style). TOML and CSV have their own layout.',
    ),
  delimiter: z
    .string()
    .regex(/^[^"\r\n]$/u, 'must be one character, not a quote or a line break')
    .default(',')
    .describe('The CSV field delimiter, read and written: one character, e.g. `,` `;` `|` or a tab.'),
});
export const dataConvertResult = z.object({ result: z.string() });

export const markdownToHtmlBody = z.strictObject({
  markdown: unicodeText().describe('CommonMark with GitHub-style tables; raw HTML is shown as text.'),
  fullDocument: z
    .boolean()
    .default(false)
    .describe('false: an HTML fragment; true: a whole document, titled by its first heading.'),
});
export const markdownToHtmlResult = z.object({ html: z.string() });

export const textDiffBody = z
  .strictObject({
    original: unicodeText(),
    modified: unicodeText(),
    granularity: z
      .enum(diffGranularities)
      .default('line')
      .describe('What a change is made of. word and char need format json: a unified diff is of lines.'),
    format: z.enum(diffFormats).default('unified'),
    context: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .default(3)
      .describe('Unchanged lines around each hunk (unified).'),
  })
  .refine((body) => body.format === 'json' || body.granularity === 'line', {
    message: 'granularity word and char need format json: a unified diff is of whole lines',
    path: ['granularity'],
  })
  .meta(whenOrDefault('format', 'unified', { properties: { granularity: { const: 'line' } } }));
export const textDiffResult = z.object({
  diff: z.string().optional().describe('The unified diff (format unified); empty when the texts are equal.'),
  changes: z
    .array(z.object({ type: z.enum(['equal', 'insert', 'delete']), value: z.string() }))
    .optional()
    .describe('The texts as a list of changes (format json).'),
  added: z.number().int().describe('Lines, words or characters added.'),
  removed: z.number().int().describe('Lines, words or characters removed.'),
});

const jsonSchemaField = z
  .union([z.record(z.string(), z.unknown()), z.boolean()])
  .describe('A JSON Schema (2020-12 by default; 2019-09 or draft-07 when its $schema says so).');

export const jsonValidateBody = z
  .strictObject({
    data: z.unknown().describe('Any JSON value (required; null is a value).'),
    schema: jsonSchemaField,
  })
  .refine((body) => body.data !== undefined, { message: 'is required', path: ['data'] });
export const jsonValidateResult = z.object({
  valid: z.boolean(),
  errors: z
    .array(
      z.object({
        path: z.string().describe('JSON Pointer to the value, "" for the whole.'),
        message: z.string(),
      }),
    )
    .describe('At most 100; errorCount counts them all.'),
  errorCount: z.number().int(),
});
