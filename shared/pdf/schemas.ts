import * as z from 'zod';
import { formFieldInfo } from '#shared/pdf/draw-schemas.ts';
import {
  compressionLevels,
  maxListedPageSizes,
  pdfPageSizes,
  rangeSyntax,
  rasterFormats,
  rotationAngles,
} from '#shared/pdf/limits.ts';
import { password, pdfPassword } from '#shared/pdf/password-schema.ts';
import { permissionNames } from '#shared/pdf/permission-schema.ts';
import { httpUrlField } from '#shared/source/url-schema.ts';
import { tiers } from '#shared/tiers.ts';

const url = httpUrlField();
const sourceUrl = url.describe('An absolute http(s) URL of the PDF; the format is read from its bytes.');

/** The schema admits the largest batch of any tier; the caller's own tier is checked in the handler. */
const batch = (min: number, what: string) =>
  z
    .array(url)
    .min(min)
    .max(tiers.enterprise.maxBatchFiles)
    .describe(
      `${what}, in order: at least ${min}, at most the tier's batch size (free ${tiers.free.maxBatchFiles}, ` +
        `pro ${tiers.pro.maxBatchFiles}, enterprise ${tiers.enterprise.maxBatchFiles}).`,
    );

const rangeText = (what: string) =>
  z
    .string()
    .min(1)
    .max(1000)
    .describe(
      `${what} in range syntax, e.g. ${rangeSyntax}: single pages and inclusive ranges separated by commas; ` +
        '"7-" runs to the last page.',
    );

export const pdfMergeBody = z.strictObject({
  sources: batch(2, 'URLs of the PDFs to merge'),
  password: pdfPassword(
    'One password for the encrypted sources: each encrypted source is decrypted with it (its user or its owner ' +
      'password; a source it does not open answers 400 `invalid_password`, naming the source by its place), ' +
      'sources that are not encrypted are read as they are. Without it an encrypted source answers 400 ' +
      '`encrypted_pdf`. The merged PDF is not encrypted.',
  ).optional(),
});
export type PdfMergeBody = z.infer<typeof pdfMergeBody>;

export const pdfSplitBody = z.strictObject({
  sourceUrl,
  password,
  ranges: rangeText('The documents to cut out, one per range,').optional(),
});
export type PdfSplitBody = z.infer<typeof pdfSplitBody>;

export const pdfCompressBody = z.strictObject({
  sourceUrl,
  password,
  level: z
    .enum(compressionLevels)
    .default('medium')
    .describe(
      'How hard raster images are compressed: low (200 dpi, JPEG 85), medium (150, 75), high (100, 60).',
    ),
});
export type PdfCompressBody = z.infer<typeof pdfCompressBody>;

/** The resolutions pages are rendered at. */
export const dpiRange = { min: 36, max: 300 } as const;

export const pdfToImageBody = z.strictObject({
  sourceUrl,
  password,
  outputFormat: z
    .enum([...rasterFormats, 'jpeg'])
    .default('png')
    .describe('The image format of the pages; jpeg is an alias of jpg.'),
  dpi: z
    .number()
    .int()
    .min(dpiRange.min)
    .max(dpiRange.max)
    .default(150)
    .describe('Resolution: pixels per inch of the page.'),
  pages: rangeText('The pages to render').optional(),
});
export type PdfToImageBody = z.infer<typeof pdfToImageBody>;

export const imageToPdfBody = z.strictObject({
  sources: batch(1, 'URLs of the images, one page each'),
  pageSize: z
    .enum(pdfPageSizes)
    .default('fit')
    .describe(
      'fit: each page takes its image’s size (at the image’s own dpi, else 72); a4 and letter: the image is ' +
        'scaled to fit and centred, the page turned to landscape for wide images.',
    ),
  margin: z
    .number()
    .min(0)
    .max(200)
    .default(0)
    .describe('White space around each image, in points (1/72 in).'),
});
export type ImageToPdfBody = z.infer<typeof imageToPdfBody>;

export const pdfInfoBody = z.strictObject({ sourceUrl, password });
export type PdfInfoBody = z.infer<typeof pdfInfoBody>;

const text = (what: string) =>
  z.string().nullable().describe(`${what} from the document information; null when absent.`);

export const pdfInfoResult = z.object({
  pages: z
    .number()
    .int()
    .nullable()
    .describe(
      'The page count; null only for a file that needs a user password and whose page tree is encrypted as well.',
    ),
  encrypted: z.boolean().describe('Whether the file is encrypted (password or permissions protection).'),
  pdfVersion: z.string().describe('e.g. "1.7": the header’s version, or the catalog’s when that is later.'),
  title: text('Title'),
  author: text('Author'),
  creator: text('The application that made the original document,'),
  producer: text('The software that wrote the PDF,'),
  pageSizes: z
    .array(z.object({ width: z.number(), height: z.number() }))
    .describe(
      `Page sizes in points (1/72 in) as displayed (crop box, rotation applied), for the first ` +
        `${maxListedPageSizes} pages.`,
    ),
  sizeBytes: z.number().int().describe('The size of the source file.'),
  permissions: z
    .object(
      Object.fromEntries(permissionNames.map((name) => [name, z.boolean()])) as Record<
        (typeof permissionNames)[number],
        z.ZodBoolean
      >,
    )
    .nullable()
    .describe(
      'For an encrypted file, what it allows a reader who opens it with the user password, from its /P entry ' +
        '(read without a password): `print` (bit 3), `modify` its content (bit 4), `copy` text and graphics ' +
        '(bit 5), `annotate` (bit 6), `fillForms` (bit 9 from revision 3, bit 6 before). The owner password ' +
        'allows everything. null when the file is not encrypted.',
    ),
  formFields: z
    .array(formFieldInfo)
    .describe(
      'The fields of the interactive form, the first 1000 (empty without a form, or for an encrypted file).',
    ),
});
export type PdfInfoResult = z.infer<typeof pdfInfoResult>;

export const pdfRotateBody = z.strictObject({
  sourceUrl,
  password,
  angle: z
    .union(rotationAngles.map((angle) => z.literal(angle)))
    .describe('Degrees clockwise, added to each page’s own rotation: 90, 180 or 270.'),
  pages: rangeText('The pages to turn (default all)').optional(),
});
export type PdfRotateBody = z.infer<typeof pdfRotateBody>;

export const pdfOrganizeBody = z.strictObject({
  sourceUrl,
  password,
  pages: rangeText(
    'The pages of the new document, in their new order; a page may be named more than once, pages not named are left out,',
  ),
});
export type PdfOrganizeBody = z.infer<typeof pdfOrganizeBody>;

export const pdfToTextBody = z.strictObject({
  sourceUrl,
  password,
  pages: rangeText('The pages to read (default all; each page once, in page order)').optional(),
  layout: z
    .boolean()
    .default(false)
    .describe(
      'false: the text in reading order; true: lines and columns placed by where their characters stand, columns kept apart by spaces.',
    ),
});
export type PdfToTextBody = z.infer<typeof pdfToTextBody>;

export const pdfToTextResult = z.object({
  pages: z
    .array(
      z.object({
        number: z.number().int().describe('The page number, counted from 1.'),
        text: z.string().describe('The page’s text; lines are separated by "\\n".'),
      }),
    )
    .describe('The selected pages, in page order.'),
  characters: z.number().int().describe('Characters (Unicode code points) of all pages together.'),
});
export type PdfToTextResult = z.infer<typeof pdfToTextResult>;

const infoText = (what: string) =>
  z.string().max(4096).nullable().optional().describe(`${what}; null removes it, absent leaves it as it is.`);
const infoDate = (what: string) =>
  z.iso
    .datetime({ offset: true })
    .nullable()
    .optional()
    .describe(`${what}, ISO 8601 (e.g. "2026-11-28T09:30:00Z"); null removes it, absent leaves it as it is.`);

export const pdfMetadataBody = z.strictObject({
  sourceUrl,
  password,
  title: infoText('The title'),
  author: infoText('The author'),
  subject: infoText('The subject'),
  keywords: z
    .array(z.string().min(1).max(256))
    .max(100)
    .nullable()
    .optional()
    .describe('Keywords; null removes them, absent leaves them as they are.'),
  creator: infoText('The application that made the original document'),
  producer: infoText('The software that wrote the PDF'),
  creationDate: infoDate('When the document was made'),
  modDate: infoDate('When the document was last changed'),
});
export type PdfMetadataBody = z.infer<typeof pdfMetadataBody>;

const permission = (what: string) => z.boolean().default(true).describe(`${what} (default true).`);

export const pdfProtectBody = z.strictObject({
  sourceUrl,
  password,
  ownerPassword: pdfPassword(
    'The owner password: opening the file with it gives every right, whatever `permissions` says.',
  ),
  userPassword: pdfPassword(
    'The user password: when given, the file opens only with it (or the owner password); without it, the file ' +
      'opens without a password, under `permissions`.',
  ).optional(),
  permissions: z
    .strictObject({
      print: permission('Printing, at full resolution'),
      copy: permission(
        'Copying text and graphics (extraction for accessibility stays allowed, as PDF 2.0 requires)',
      ),
      modify: permission('Changing the content, and inserting, deleting and turning pages'),
      annotate: permission('Adding and changing comments (annotations)'),
      fillForms: permission('Filling in form fields'),
    })
    .default({ print: true, copy: true, modify: true, annotate: true, fillForms: true })
    .describe(
      'What a reader who opens the file without the owner password may do; each is allowed unless set to false.',
    ),
});
export type PdfProtectBody = z.infer<typeof pdfProtectBody>;

export const pdfUnlockBody = z.strictObject({
  sourceUrl,
  password: pdfPassword(
    'The user or the owner password of the encrypted source; a wrong one answers 400 `invalid_password`.',
  ),
});
export type PdfUnlockBody = z.infer<typeof pdfUnlockBody>;
