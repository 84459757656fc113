import * as z from 'zod';
import { background } from '#shared/image/schemas.ts';
import { httpUrlField } from '#shared/source/url-schema.ts';

/** A QR code holds at most 2953 bytes (version 40, error correction L, byte mode). */
export const MAX_QR_BYTES = 2953;
/** The longest text a barcode request may carry (PDF417 and Aztec hold about 1.9 kB of text at most). */
export const MAX_BARCODE_TEXT = 3000;

export const codeOutputFormats = ['png', 'svg'] as const;
export type CodeOutputFormat = (typeof codeOutputFormats)[number];

const outputFormat = z.enum(codeOutputFormats).default('png').describe('png (default) or svg.');

export const qrCodeBody = z.strictObject({
  text: z
    .string()
    .min(1)
    .max(MAX_QR_BYTES)
    .refine((text) => Buffer.byteLength(text) <= MAX_QR_BYTES, `at most ${MAX_QR_BYTES} bytes of UTF-8`)
    .describe(
      `The text to encode, 1 to ${MAX_QR_BYTES} bytes in UTF-8 (fewer fit at higher error correction: a text the chosen level cannot hold answers 400 invalid_input).`,
    ),
  outputFormat,
  size: z
    .number()
    .int()
    .min(32)
    .max(4096)
    .default(512)
    .describe(
      'Width and height in pixels (32–4096, default 512); a code with more modules than pixels is drawn one pixel a module. svg: the width and height attributes.',
    ),
  errorCorrection: z
    .enum(['L', 'M', 'Q', 'H'])
    .default('M')
    .describe('L (7%), M (15%, default), Q (25%) or H (30%) of the code may be lost.'),
  margin: z.number().int().min(0).max(20).default(4).describe('Quiet zone in modules (0–20, default 4).'),
  color: background.optional().describe('A CSS colour for the dark modules (default black).'),
  background: background
    .optional()
    .describe('A CSS colour for the light modules and the margin (default white).'),
});
export type QrCodeBody = z.infer<typeof qrCodeBody>;

export const barcodeTypes = [
  'code128',
  'code39',
  'ean13',
  'ean8',
  'upca',
  'itf14',
  'datamatrix',
  'pdf417',
  'aztec',
] as const;
export type BarcodeType = (typeof barcodeTypes)[number];

/** Two-dimensional symbologies: no human-readable line by default. */
export const matrixTypes: ReadonlySet<BarcodeType> = new Set(['datamatrix', 'pdf417', 'aztec']);

export const barcodeBody = z.strictObject({
  text: z
    .string()
    .min(1)
    .max(MAX_BARCODE_TEXT)
    .describe(
      'The text to encode. ean13 takes 12 digits (the check digit is added) or 13 with a right check digit, ean8 7 or 8, upca 11 or 12, itf14 13 or 14; code39 digits, capitals, space and -.$/+%; code128 ASCII. A text the symbology cannot hold answers 400 invalid_input.',
    ),
  type: z.enum(barcodeTypes).default('code128').describe('The symbology (code128 default).'),
  outputFormat,
  scale: z.number().int().min(1).max(10).default(2).describe('Pixels a module (1–10, default 2).'),
  height: z
    .number()
    .min(1)
    .max(100)
    .optional()
    .describe(
      'Bar height in millimetres at 72 dpi of linear codes (1–100; the symbology’s own default otherwise).',
    ),
  includeText: z
    .boolean()
    .optional()
    .describe(
      'Print the text under the bars (default true for linear codes, false for datamatrix, pdf417 and aztec).',
    ),
});
export type BarcodeBody = z.infer<typeof barcodeBody>;

/** Pages of a PDF read by default: the first ten. */
export const DEFAULT_READ_PAGES = 10;

export const barcodeReadBody = z.strictObject({
  sourceUrl: httpUrlField().describe(
    'An absolute http(s) URL of an image (any image input format) or a PDF.',
  ),
  pages: z
    .string()
    .max(1000)
    .optional()
    .describe(
      `For a PDF, the pages to read, like "1-3,5" (default the first ${DEFAULT_READ_PAGES}); ignored for images.`,
    ),
});
export type BarcodeReadBody = z.infer<typeof barcodeReadBody>;

export const barcodeReadResult = z.object({
  codes: z
    .array(
      z.object({
        type: z
          .string()
          .describe(
            'The symbology: qrcode, code128, code39, ean13, ean8, upca, itf, datamatrix, pdf417, aztec, …',
          ),
        text: z.string(),
        bounds: z
          .object({
            left: z.number().int(),
            top: z.number().int(),
            width: z.number().int(),
            height: z.number().int(),
          })
          .describe(
            'The box around the code in pixels of the image (of the page rendered at 150 dpi for a PDF).',
          ),
        page: z.number().int().optional().describe('The PDF page it is on.'),
      }),
    )
    .describe('Every code found, empty when none.'),
});
export type BarcodeReadResult = z.infer<typeof barcodeReadResult>;

export const codeContentTypes: Record<CodeOutputFormat, string> = { png: 'image/png', svg: 'image/svg+xml' };
