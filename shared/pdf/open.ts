import { readFile } from 'node:fs/promises';
import { PDFCatalog, type PDFContext, PDFDict, PDFDocument, PDFName, PDFRef } from 'pdf-lib';
import { ApiError } from '#shared/errors.ts';
import { mapNativeError } from '#shared/native-errors.ts';
import { type PdfLimits, pdfLimits } from '#shared/pdf/limits.ts';
import { checkPageTree } from '#shared/pdf/page-tree.ts';
import { parsePdfContext } from '#shared/pdf/parse.ts';
import { pdfiumReads } from '#shared/pdf/pdfium.ts';
import { hasPdfHeader } from '#shared/source/sniff.ts';

export interface OpenOptions {
  /** pdf-info reads what it can of an encrypted file; every other operation refuses it. */
  allowEncrypted?: boolean;
  /** Default `pdfLimits.maxPages`; `undefined` counts every page. */
  maxPages?: number | undefined;
  /** Parse limits; tests lower them. */
  limits?: PdfLimits;
}

export interface OpenedPdf {
  doc: PDFDocument;
  /** Undefined only for an encrypted file whose page tree is itself encrypted. */
  pageCount: number | undefined;
  encrypted: boolean;
  /** From the header, or from the catalog's /Version when that is later. */
  version: string;
  /**
   * What was repaired while opening, as viewers repair it (empty for a sound file). pdfium is
   * given the repaired document then, so that both engines read the same pages.
   */
  repairs: string[];
}

export const encryptedPdfError = () =>
  new ApiError(
    'encrypted_pdf',
    'The PDF is encrypted (password-protected); remove the protection and send it again.',
  );

// pdf-lib keeps its constructor private; `load` would parse without a budget.
const DocumentFromContext = PDFDocument as unknown as new (
  context: PDFContext,
  ignoreEncryption: boolean,
  updateMetadata: boolean,
) => PDFDocument;

/**
 * The header may follow up to 1024 bytes of anything (a mail gateway's banner, a byte-order mark),
 * as readers allow. No end marker is required: scanners omit it, and viewers read such files; a
 * file really cut short fails where its objects are parsed.
 */
function checkHeader(bytes: Uint8Array): void {
  if (!hasPdfHeader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) {
    throw new ApiError('invalid_source_file', 'The file is not a PDF: it has no %PDF- header.');
  }
}

/**
 * Parses with pdf-lib, which refuses a whole file for one object it cannot parse. When pdfium, the
 * more lenient reader, opens such a file, it is parsed again with those objects left out, as pdfium
 * leaves them out. Budget refusals (too large, too slow) are final.
 */
async function parseLeniently(
  bytes: Uint8Array,
  limits: PdfLimits | undefined,
  repairs: string[],
): Promise<PDFContext> {
  try {
    return await parsePdfContext(bytes, limits, false, repairs);
  } catch (error) {
    if (error instanceof ApiError || !(await pdfiumReads(bytes))) mapNativeError('pdf-lib', error);
  }
  repairs.push('objects that could not be parsed left out');
  try {
    return await parsePdfContext(bytes, limits, true, repairs);
  } catch (error) {
    mapNativeError('pdf-lib', error);
  }
}

const pagesKey = PDFName.of('Pages');

function versionOf(doc: PDFDocument): string {
  const header = /%PDF-(\d+\.\d+)/.exec(doc.context.header.toString())?.[1] ?? '1.4';
  // The catalog is unread when an encrypted file keeps it in an object stream.
  const catalog: unknown = doc.catalog;
  const stated = catalog instanceof PDFDict ? catalog.get(PDFName.of('Version')) : undefined;
  const catalogVersion =
    stated instanceof PDFName ? /^(\d+\.\d+)$/.exec(stated.decodeText())?.[1] : undefined;
  return catalogVersion && Number(catalogVersion) > Number(header) ? catalogVersion : header;
}

/**
 * pdf-lib reaches the pages through the catalog's own accessors, which it gives only to a /Root
 * dictionary of /Type /Catalog (as the PDF reference requires); any other /Root would fail as a
 * TypeError at the first page read.
 */
function checkCatalog(doc: PDFDocument, repairs: string[]): void {
  const { context } = doc;
  const root = context.trailerInfo.Root;
  const found = context.lookup(root);
  if (
    root instanceof PDFRef &&
    found instanceof PDFDict &&
    !(found instanceof PDFCatalog) &&
    found.has(pagesKey)
  ) {
    // A catalog without /Type, or with a misspelt one, is read by its /Pages, as viewers read it.
    const entries = new Map(found.entries());
    entries.set(PDFName.Type, PDFName.of('Catalog'));
    const catalog = PDFCatalog.fromMapWithContext(entries, context);
    context.assign(root, catalog);
    (doc as unknown as { catalog: PDFCatalog }).catalog = catalog;
    repairs.push('a document catalog without /Type /Catalog read by its /Pages');
  }
  const catalog: unknown = doc.catalog;
  if (!(catalog instanceof PDFCatalog)) {
    throw new ApiError(
      'invalid_source_file',
      'The PDF could not be read: its document catalog (/Root) is missing or is not a /Type /Catalog dictionary.',
    );
  }
}

/**
 * Whether the trailer in use names a security handler: its /Encrypt is a dictionary. An /Encrypt
 * that is null, a number or a reference to no object encrypts nothing, for pdfinfo and qpdf alike;
 * it is dropped, so that no output carries it on. (Which trailer is in use: see parse.ts.)
 */
function isEncrypted(context: PDFContext, repairs: string[]): boolean {
  const { Encrypt } = context.trailerInfo;
  if (Encrypt === undefined) return false;
  if (context.lookup(Encrypt) instanceof PDFDict) return true;
  context.trailerInfo.Encrypt = undefined;
  repairs.push('an /Encrypt that is no dictionary left out');
  return false;
}

/**
 * Opens PDF bytes for any operation: a header check, a parse within the limits
 * of `pdfLimits`, encryption, the catalog and a safe walk of the page tree. Every failure is a 4xx
 * ApiError.
 */
export async function openPdf(bytes: Uint8Array, options: OpenOptions = {}): Promise<OpenedPdf> {
  checkHeader(bytes);
  const repairs: string[] = [];
  const context = await parseLeniently(bytes, options.limits, repairs);
  const encrypted = isEncrypted(context, repairs);
  if (encrypted && !options.allowEncrypted) throw encryptedPdfError();
  const doc = new DocumentFromContext(context, true, false);
  const maxPages = 'maxPages' in options ? options.maxPages : pdfLimits.maxPages;
  let pageCount: number | undefined;
  try {
    checkCatalog(doc, repairs);
    pageCount = checkPageTree(context, maxPages, repairs);
  } catch (error) {
    // An encrypted file may keep its catalog and page tree inside encrypted object streams: nothing to read.
    if (!encrypted) throw error;
  }
  return { doc, pageCount, encrypted, version: versionOf(doc), repairs };
}

/** Reads a PDF from the workspace and opens it (the whole file is needed in memory by pdf-lib). */
export async function openPdfFile(path: string, options: OpenOptions = {}): Promise<OpenedPdf> {
  return openPdf(await readFile(path), options);
}

/** The page count of a document opened without allowEncrypted, where it is always known. */
export function pagesOf(opened: OpenedPdf): number {
  if (opened.pageCount === undefined) throw encryptedPdfError();
  return opened.pageCount;
}
