import { maxTextCharacters, pdfLimits } from '#shared/pdf/limits.ts';
import {
  pdfMetadataBody,
  pdfOrganizeBody,
  pdfProtectBody,
  pdfRotateBody,
  pdfToTextBody,
  pdfToTextResult,
  pdfUnlockBody,
} from '#shared/pdf/schemas.ts';
import { activeContentRule, pdfFileRow, rangeRules, readRules, samplePdf } from '#shared/routes/pdf.ts';
import { bufferedSizing } from '#shared/routes/sizing.ts';
import { defineRoute, type RouteSpec, sourceErrors } from '#shared/routes/types.ts';

export const pdfRotateRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-rotate',
  function: 'pdf-rotate',
  summary: 'Turn pages of a PDF by a quarter, half or three-quarter turn',
  description:
    `${readRules} ${rangeRules} Each page named by \`pages\` (default all; a page named twice is turned ` +
    'once) is turned clockwise by `angle` on top of its own rotation, inherited from the page tree when ' +
    'the page states none (a rotation that is no multiple of 90 counts as 0, as viewers count it). Page ' +
    'content, sizes, links, outlines, forms and document information stay as they are. The file is named ' +
    `\`<name>.pdf\`. ${activeContentRule}`,
  body: pdfRotateBody,
  example: { sourceUrl: samplePdf, angle: 90, pages: '1-3' },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password', 'invalid_range'],
});

export const pdfOrganizeRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-organize',
  function: 'pdf-organize',
  summary: 'Reorder, repeat or leave out the pages of a PDF',
  description:
    `${readRules} ${rangeRules} The new document holds the pages \`pages\` names, in the order written ` +
    '(`"3,1-2,2,5-"`: page 3, pages 1 and 2, page 2 again, then page 5 to the end); a page named again ' +
    'is copied again, pages not named are left out. Pages keep their size, crop box, rotation and ' +
    'resources (stored once however often a page is repeated), and links between the pages kept; the ' +
    'title, author, subject, keywords and creator are kept. Outlines and interactive form fields are not ' +
    `carried over. \`pages\` may name at most ${pdfLimits.maxPages} pages in all. The file is named ` +
    `\`<name>.pdf\`. ${activeContentRule}`,
  body: pdfOrganizeBody,
  example: { sourceUrl: samplePdf, pages: '3,1-2,2,5-' },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password', 'invalid_range'],
});

export const pdfMetadataRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-metadata',
  function: 'pdf-metadata',
  summary: 'Set or remove the title, author and other document information of a PDF',
  description:
    `${readRules} Each field given sets that entry of the document information, \`null\` removes it, and ` +
    'a field not given stays as it is. Keywords are stored in the Info dictionary joined by ", ". Dates ' +
    'are ISO 8601 with a time zone and are stored in UTC. The XMP metadata stream is then written anew ' +
    'from the Info dictionary (dc:title, dc:creator, dc:description, dc:subject, pdf:Keywords, ' +
    'pdf:Producer, xmp:CreatorTool, xmp:CreateDate, xmp:ModifyDate), so that both state the same; other ' +
    'XMP properties the source held are not kept, and an Info entry that is no text, or a date that ' +
    'does not parse, is removed. Pages and everything else stay as they are. The file is named ' +
    `\`<name>.pdf\`. ${activeContentRule}`,
  body: pdfMetadataBody,
  example: {
    sourceUrl: samplePdf,
    title: 'Trace-based compilation',
    author: 'A. Gal',
    keywords: ['JIT', 'tracing'],
    creationDate: '2009-06-15T09:00:00Z',
    producer: null,
  },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password'],
});

export const pdfToTextRoute = defineRoute({
  method: 'POST',
  path: '/pdf-to-text',
  function: 'pdf-to-text',
  kind: 'json',
  sizing: bufferedSizing(2048, true),
  formats: { categories: ['pdf'], inputs: ['pdf'], outputs: ['json'] },
  tag: 'PDF',
  summary: 'The text of PDF pages, in reading order or laid out in columns',
  description:
    `${readRules} ${rangeRules} The text of the pages \`pages\` names (default all; each page once, in ` +
    'page order) is read by PDFium from the characters the pages draw, through their fonts’ Unicode ' +
    'maps; text drawn as images (scans) is not read. Without `layout` it comes in reading order: in the ' +
    'order the page draws it, lines ending where PDFium finds a line break and words apart by a space ' +
    'where PDFium finds a gap. With `layout: true` characters are placed by their positions: characters ' +
    'at one height form a line, top to bottom; the first of a line, and one after a gap wider than two ' +
    'characters, goes to the column its left edge gives at the page’s median character width, the others ' +
    'follow the one before them (as `pdftotext -layout` does, more simply), so that columns side by side ' +
    'stay apart by two spaces at least; the page is laid out as stored, before its rotation. Lines ' +
    'are separated by "\\n", trailing spaces dropped. `characters` counts the Unicode code points of ' +
    `all pages; an answer may carry at most ${maxTextCharacters.toLocaleString('en-US')} of them: past ` +
    'that the answer is 400 `validation_failed` naming the pages that fit.',
  body: pdfToTextBody,
  response: pdfToTextResult,
  example: { sourceUrl: samplePdf, pages: '1-2', layout: true },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password', 'invalid_range', 'validation_failed'],
});

export const pdfProtectRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-protect',
  function: 'pdf-protect',
  summary: 'Encrypt a PDF with AES-256: owner and user passwords, permissions',
  description:
    `${readRules} The document is written as every output is (active content removed, below), then ` +
    'encrypted by qpdf with AES-256 (PDF 2.0, security handler revision 6). `ownerPassword` opens it with ' +
    'every right. Without `userPassword` the file opens without a ' +
    'password, and viewers hold the reader to `permissions`; with it, the file opens only with one of the two ' +
    'passwords. Each permission is allowed unless set to false: `print` (at full resolution), `copy` (text and ' +
    'graphics; extraction for accessibility stays allowed, as PDF 2.0 requires), `modify` (the content, and ' +
    'inserting, deleting or turning pages), `annotate`, `fillForms`. Permissions are honoured by viewers, not ' +
    'enforced by the cipher: a file that opens without a password can be read in full. The file is named ' +
    `\`<name>.pdf\`. ${activeContentRule}`,
  body: pdfProtectBody,
  example: {
    sourceUrl: samplePdf,
    ownerPassword: 'owner-secret',
    userPassword: 'reader',
    permissions: { copy: false, modify: false },
  },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password'],
});

export const pdfUnlockRoute = defineRoute({
  ...pdfFileRow,
  path: '/pdf-unlock',
  function: 'pdf-unlock',
  summary: 'Remove the encryption of a PDF, given its user or owner password',
  description:
    `${readRules.replace(/ Encrypted \(.*$/, '')} The source is decrypted by qpdf with \`password\`, its user or ` +
    'its owner password, whatever its encryption: RC4 (40 to 128 bit), AES-128 or AES-256 (security handler ' +
    'revisions 2 to 6); a wrong password answers 400 `invalid_password`, a security handler other than the ' +
    'standard one 400 `encrypted_pdf`. The PDF comes back without encryption or restrictions, pages and ' +
    'document information as they were; a source that was not encrypted comes back as it is. The file is ' +
    `named \`<name>.pdf\`. ${activeContentRule}`,
  body: pdfUnlockBody,
  example: { sourceUrl: samplePdf, password: 'reader' },
  errors: [...sourceErrors, 'encrypted_pdf', 'invalid_password'],
});

export const pdfToolRoutes: RouteSpec[] = [
  pdfRotateRoute,
  pdfOrganizeRoute,
  pdfMetadataRoute,
  pdfToTextRoute,
  pdfProtectRoute,
  pdfUnlockRoute,
];
