import { readFile } from 'node:fs/promises';
import { PDFCatalog, type PDFContext, PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { HttpError } from '#shared/http/errors.ts';
import { mapNativeError } from '#shared/native-errors.ts';
import { type PdfLimits, pdfLimits } from '#shared/pdf/limits.ts';
import { checkPageTree } from '#shared/pdf/page-tree.ts';
import { parsePdfContext } from '#shared/pdf/parse.ts';

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
}

/** The file tail where readers look for the end marker (the PDF reference's implementation note). */
const tailBytes = 1024;

export const encryptedPdfError = () =>
  new HttpError(
    'encrypted_pdf',
    'The PDF is encrypted (password-protected); remove the protection and send it again.',
  );

// pdf-lib keeps its constructor private; `load` would parse without a budget.
const DocumentFromContext = PDFDocument as unknown as new (
  context: PDFContext,
  ignoreEncryption: boolean,
  updateMetadata: boolean,
) => PDFDocument;

function checkFrame(bytes: Uint8Array): void {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = buffer.subarray(0, tailBytes).indexOf('%PDF-');
  if (header < 0)
    throw new HttpError('invalid_source_file', 'The file is not a PDF: it has no %PDF- header.');
  // Some writers pad the file with white space or NUL bytes after the marker.
  let end = buffer.length;
  while (end > 0 && (buffer[end - 1]! <= 0x20 || buffer[end - 1] === 0x7f)) end -= 1;
  if (buffer.subarray(Math.max(0, end - tailBytes), end).indexOf('%%EOF') < 0) {
    throw new HttpError(
      'invalid_source_file',
      'The PDF is incomplete: it does not end with the %%EOF marker (was it cut off?).',
    );
  }
}

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
function checkCatalog(doc: PDFDocument): void {
  const catalog: unknown = doc.catalog;
  if (!(catalog instanceof PDFCatalog)) {
    throw new HttpError(
      'invalid_source_file',
      'The PDF could not be read: its document catalog (/Root) is missing or is not a /Type /Catalog dictionary.',
    );
  }
}

/**
 * Opens PDF bytes for any operation: frame checks (header, end marker), a parse within the limits
 * of `pdfLimits`, encryption, the catalog and a safe walk of the page tree. Every failure is a 4xx
 * HttpError.
 */
export async function openPdf(bytes: Uint8Array, options: OpenOptions = {}): Promise<OpenedPdf> {
  checkFrame(bytes);
  let context: PDFContext;
  try {
    context = await parsePdfContext(bytes, options.limits);
  } catch (error) {
    mapNativeError('pdf-lib', error);
  }
  const doc = new DocumentFromContext(context, true, false);
  const encrypted = doc.isEncrypted;
  if (encrypted && !options.allowEncrypted) throw encryptedPdfError();
  const maxPages = 'maxPages' in options ? options.maxPages : pdfLimits.maxPages;
  let pageCount: number | undefined;
  try {
    checkCatalog(doc);
    pageCount = checkPageTree(context, maxPages);
  } catch (error) {
    // An encrypted file may keep its catalog and page tree inside encrypted object streams: nothing to read.
    if (!encrypted) throw error;
  }
  return { doc, pageCount, encrypted, version: versionOf(doc) };
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
