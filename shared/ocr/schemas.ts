import * as z from 'zod';
import {
  languageCodePattern,
  maxLanguagesPerRequest,
  ocrOutputFormats,
  ocrPageLimits,
  shippedLanguages,
} from '#shared/ocr/limits.ts';
import { rangeSyntax } from '#shared/pdf/limits.ts';
import { imageInputFormats } from '#shared/source/formats.ts';
import { httpUrlField } from '#shared/source/url-schema.ts';

export const ocrBody = z.strictObject({
  sourceUrl: httpUrlField().describe(
    `An absolute http(s) URL of an image (${imageInputFormats.join(', ')}) or a PDF; the format is read from its bytes.`,
  ),
  languages: z
    .array(z.string().regex(languageCodePattern, 'a Tesseract language code such as "eng" or "chi_sim"'))
    .min(1)
    .max(maxLanguagesPerRequest)
    .refine((list) => new Set(list).size === list.length, 'each language once')
    .default(['eng'])
    .describe(
      `The languages of the text, as Tesseract's codes, at most ${maxLanguagesPerRequest}, the likeliest first. ` +
        `Shipped: ${shippedLanguages.join(', ')}; a deployment may offer more. A language not offered answers 400 ` +
        '`validation_failed` listing those that are.',
    ),
  pages: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe(
      `The PDF pages to read in range syntax, e.g. ${rangeSyntax} (default all; each page once, in page order). ` +
        `At most free ${ocrPageLimits.free}, pro ${ocrPageLimits.pro}, enterprise ${ocrPageLimits.enterprise} ` +
        'pages a request. An image is one page.',
    ),
  outputFormat: z
    .enum(ocrOutputFormats)
    .default('json')
    .describe(
      '`json`: `{text, pages:[{number, text, confidence}]}`; `txt`: the text; `pdf`: a searchable PDF, each page ' +
        'image with an invisible text layer over its words.',
    ),
});
export type OcrBody = z.infer<typeof ocrBody>;

export const ocrResult = z.object({
  text: z.string().describe('The text of all pages, pages separated by a form feed ("\\f"), lines by "\\n".'),
  pages: z
    .array(
      z.object({
        number: z.number().int().describe('The page number, counted from 1 (an image is page 1).'),
        text: z.string().describe('The page’s text: paragraphs separated by an empty line, lines by "\\n".'),
        confidence: z
          .number()
          .min(0)
          .max(100)
          .describe('Tesseract’s mean word confidence on the page, 0–100; 0 when no word was found.'),
      }),
    )
    .describe('The pages read, in page order.'),
});
export type OcrResult = z.infer<typeof ocrResult>;
