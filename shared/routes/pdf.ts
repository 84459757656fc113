import {
  levelSettings,
  maxFormDraws,
  maxListedPageSizes,
  PDF_TYPE,
  pdfLimits,
  rangeSyntax,
  rasterFormats,
  rasterTypes,
  renderPageLimitSeconds,
  ZIP_TYPE,
} from '#shared/pdf/limits.ts';
import {
  dpiRange,
  imageToPdfBody,
  pdfCompressBody,
  pdfInfoBody,
  pdfInfoResult,
  pdfMergeBody,
  pdfSplitBody,
  pdfToImageBody,
} from '#shared/pdf/schemas.ts';
import { samplePhoto, sampleTransparent } from '#shared/routes/samples.ts';
import { bufferedSizing, streamedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, fileRouteNeeds, type RouteSpec, sourceErrors } from '#shared/routes/types.ts';
import { imageInputFormats } from '#shared/source/formats.ts';

/**
 * The fields every PDF route that answers a file shares: POST, streamed, sized for PDFs (2 GiB,
 * 300 s, /tmp for the source and its outputs), running async jobs, under the PDF tag, reading and
 * writing a PDF. A row spreads it first and states what differs (`formats`, `produces`).
 */
export const pdfFileRow = {
  method: 'POST',
  kind: 'file',
  sizing: streamedSizing(2048, 300, 3),
  jobStore: 'run',
  formats: { categories: ['pdf'], inputs: ['pdf'], outputs: ['pdf'] },
  tierNeeds: fileRouteNeeds,
  tag: 'PDF',
  produces: [PDF_TYPE],
} as const satisfies Partial<RouteSpec>;

export const samplePdf =
  'https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf';
const sampleOnePage = 'https://www.w3.org/WAI/ER/tests/xhtml/testfiles/resources/pdf/dummy.pdf';

export const readRules =
  'The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size ' +
  'limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order ' +
  'mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged ' +
  'cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its ' +
  '`/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed ' +
  'twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the ' +
  'tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it ' +
  '(corners put in order; else the CropBox, a parent’s box, US Letter). Files ' +
  `cut inside their objects or before their trailer, more than ${pdfLimits.maxPages} pages or more than ` +
  `${pdfLimits.maxParsedObjects / 1e6} million objects answer 400 \`invalid_source_file\` within a bounded ` +
  'time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` ' +
  'is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) ' +
  'and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` ' +
  'that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf).';

const batchRules =
  'Sources are downloaded four at a time under the source rules; an error names the source by its place ' +
  '(`sources.2: …`). More sources than the tier’s batch size (free 5, pro 50, enterprise 200) answer 400 ' +
  '`validation_failed` naming the tier that takes them; together the sources may not exceed the tier’s ' +
  'size limit (413 `source_too_large`).';

export const rangeRules =
  `Range syntax: ${rangeSyntax}, pages counted from 1, "7-" to the last page, spaces allowed. A malformed, ` +
  'reversed or zero range answers 400 `invalid_range` before anything is downloaded; a range past the last ' +
  'page answers it after.';

export const activeContentRule =
  'The PDF written carries no active content: document JavaScript, open actions other than a plain view, ' +
  'additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to ' +
  'actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are ' +
  'removed; web links, links to pages and page-turn actions stay.';

const level = (name: keyof typeof levelSettings) =>
  `${name} ${levelSettings[name].dpi} dpi / JPEG ${levelSettings[name].quality}`;

export const pdfMergeRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-merge',
  function: 'pdf-merge',
  summary: 'Merge PDFs into one, in order',
  description:
    `${batchRules} ${readRules} Every page of every source is appended in order, with its size, crop box, ` +
    'rotation and resources (inherited ones included); the first source’s title and author are kept. ' +
    'Outlines (bookmarks) and interactive form fields are not carried over. Images, fonts, content ' +
    'streams and other drawing objects that the sources hold in equal copies (one document given twice, ' +
    'documents of one template) are stored once. The result is written with ' +
    `object streams and may hold at most ${pdfLimits.maxPages} pages. The file is named after the first ` +
    `source: \`<name>.pdf\`. ${activeContentRule}`,
  body: pdfMergeBody,
  example: { sources: [samplePdf, sampleOnePage] },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password', 'validation_failed'],
});

export const pdfSplitRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-split',
  function: 'pdf-split',
  formats: { categories: ['pdf'], inputs: ['pdf'], outputs: ['pdf', 'zip'] },
  summary: 'Split a PDF into one PDF per range, or per page',
  description:
    `${readRules} ${rangeRules} Without \`ranges\`, every page becomes its own PDF. One range answers ` +
    'that PDF (`<name>.pdf`); several answer a ZIP (`<name>.zip`) of `<name>-<range>.pdf` files in the ' +
    'order given, e.g. `report-1-3.pdf`, `report-5.pdf` (an open range is named by its last page; a range ' +
    `given twice is written once). The ranges may select at most ${pdfLimits.maxPages} pages in all. Pages ` +
    `keep their size and rotation; each file keeps the title and author. ${activeContentRule}`,
  body: pdfSplitBody,
  produces: [PDF_TYPE, ZIP_TYPE],
  example: { sourceUrl: samplePdf, ranges: '1-3,5,7-' },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password', 'invalid_range'],
});

export const pdfCompressRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-compress',
  function: 'pdf-compress',
  summary: 'Make a PDF smaller by recompressing its images',
  description:
    `${readRules} Raster images (8-bit gray or RGB, JPEG or Flate) are downsampled so that none holds ` +
    'more pixels than the level’s resolution needs at the largest size it is drawn at on any page ' +
    '(placements read by PDFium, form XObjects included; a soft mask follows its image; an image drawn ' +
    'only in a pattern, an annotation or a glyph, or a file PDFium cannot lay out, falls back to what ' +
    'the largest page needs), and re-encoded as JPEG with chroma at half resolution and a photo-tuned ' +
    'quantisation table ' +
    `(${level('low')}; ${level('medium')}; ${level('high')}); soft masks stay lossless; an image is only ` +
    'replaced when that saves at least 10 %. CMYK, indexed, 1-bit, JBIG2, JPEG 2000 and CCITT images, ' +
    'text, fonts and vector content are left as they are. Unfiltered streams are deflated, Flate streams ' +
    'are compressed again at the highest level when that saves at least 5 %, equal copies of an object ' +
    '(an image embedded twice) are stored once, unreachable objects dropped, and the file is written ' +
    'with object streams (or without, when that is smaller). The answer is never larger than the source, ' +
    'byte for byte: when the result is not smaller, the source’s own bytes come back unchanged (also when ' +
    'the source carried active content that the cleaned file would have lost). `X-Original-Size` and ' +
    `\`X-Output-Size\` give both sizes in bytes. The file is named \`<name>.pdf\`. ${activeContentRule}`,
  body: pdfCompressBody,
  example: { sourceUrl: samplePdf, level: 'high' },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password'],
});

export const pdfToImageRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-to-image',
  function: 'pdf-to-image',
  formats: { categories: ['pdf'], inputs: ['pdf'], outputs: [...rasterFormats, 'zip'] },
  summary: 'Render PDF pages to PNG, JPEG or WebP images',
  description:
    `${readRules} ${rangeRules} Pages are rendered by PDFium with annotations, on white, at \`dpi\` ` +
    'pixels per inch (a 8.5 × 11 in page at 150 dpi is 1275 × 1650 pixels), rotation applied, and encoded ' +
    'by sharp (jpg and webp at quality 85); the image states its dpi. Pages selected more than once are ' +
    'rendered once, in page order. One page answers the image itself (`<name>.<outputFormat>`); several ' +
    'answer a ZIP (`<name>.zip`) of `<name>-<page>.<outputFormat>`. A page that would exceed ' +
    `${pdfLimits.maxRenderPixels / 1e6} million pixels answers 400 \`validation_failed\` naming a dpi that ` +
    `fits every selected page, before anything is rendered; a page too large even at ${dpiRange.min} dpi ` +
    'answers 400 `invalid_source_file`. PDFs over 500 MB are not rendered (413 `source_too_large`). Form ' +
    'XObjects and tiling patterns that draw themselves lose the reference that closes the loop before ' +
    `rendering; a page whose nested forms and patterns would still be drawn more than ${maxFormDraws} times ` +
    'answers 400 `invalid_source_file`. Each page renders within ' +
    `${renderPageLimitSeconds} s, or the time the request has left when that is less; past it the answer is ` +
    '400 `invalid_source_file` naming the page and the limit. ' +
    'JPEG 2000 images stating more than 100 megapixels are left out; when the renderer fails on a page, ' +
    'it is rendered again without its JPEG 2000 images, else 400 `invalid_source_file` names the page.',
  body: pdfToImageBody,
  produces: [...Object.values(rasterTypes), ZIP_TYPE],
  example: { sourceUrl: samplePdf, outputFormat: 'webp', dpi: 100, pages: '1-2' },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password', 'invalid_range', 'validation_failed'],
});

export const imageToPdfRoute = defineRoute({
  ...pdfFileRow,
  path: '/image-to-pdf',
  function: 'image-to-pdf',
  formats: { categories: ['pdf'], inputs: imageInputFormats, outputs: ['pdf'] },
  summary: 'Make a PDF of images, one page each',
  description:
    `${batchRules} Each source is read as the image format its bytes show (${imageInputFormats.join(', ')}), ` +
    'under the image routes’ pixel limits; EXIF orientation is applied and of an animation the first frame ' +
    'is used. A JPEG that needs no turning or colour conversion is placed byte for byte; other photographs ' +
    '(WebP, AVIF, HEIC, turned or CMYK JPEGs) become JPEG at quality 92; everything else is stored ' +
    'lossless, transparency as a soft mask. `fit` pages take the image’s size at its own resolution (72 dpi ' +
    'when it states none) plus the margin, at most 200 in a side (larger images are scaled down); a4 and ' +
    'letter pages hold the image scaled to fit inside the margins and centred, in landscape for images ' +
    'wider than tall. The file is named after the first source: `<name>.pdf`. The PDF written carries no ' +
    'active content.',
  body: imageToPdfBody,
  example: { sources: [samplePhoto, sampleTransparent], pageSize: 'a4', margin: 36 },
  errors: [...sourceErrors, 'validation_failed'],
});

export const pdfInfoRoute = defineRoute({
  method: 'POST',
  path: '/pdf-info',
  function: 'pdf-info',
  kind: 'json',
  sizing: bufferedSizing(2048, true),
  formats: { categories: ['pdf'], inputs: ['pdf'], outputs: ['json'] },
  tag: 'PDF',
  summary: 'Page count, version, document information and page sizes of a PDF',
  description:
    `${readRules.replace(/ Encrypted \(.*$/, '')} Read from the document structure without rendering; ` +
    `the page limit does not apply. Encrypted files are described, not refused: \`encrypted\` is true; a ` +
    'file that opens without a password (permission protection only) is read as viewers read it, its pages, ' +
    'page sizes and information included; of a file that needs a user password the information strings are ' +
    'null, and pages is null when its page tree is encrypted too. With `password` (the user or the owner ' +
    'password) an encrypted file is decrypted by qpdf and described in full, `encrypted` still true; a wrong ' +
    'one answers 400 `invalid_password`. `permissions` says what an encrypted file allows (read from its ' +
    '`/Encrypt` dictionary, with or without a password); null for a file that is not encrypted. pageSizes lists the first ' +
    `${maxListedPageSizes} pages as displayed (the ` +
    'CropBox clipped to the MediaBox, rotation applied). formFields lists the interactive form’s fields ' +
    '(fully qualified name, kind, value), the first 1000; a form that cannot be read lists none.',
  body: pdfInfoBody,
  response: pdfInfoResult,
  example: { sourceUrl: samplePdf },
  errors: [...sourceErrors, 'invalid_password'],
});

export const pdfRoutes: RouteSpec[] = [
  pdfMergeRoute,
  pdfSplitRoute,
  pdfCompressRoute,
  pdfToImageRoute,
  imageToPdfRoute,
  pdfInfoRoute,
];
