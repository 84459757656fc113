import { readFile } from 'node:fs/promises';
import { PDFDict, PDFHexString, PDFName, PDFNumber, type PDFPage, PDFString } from 'pdf-lib';
import type { SourceEncryption } from '#shared/pdf/decrypt.ts';
import { type FormField, listFormFields } from '#shared/pdf/forms.ts';
import { maxListedPageSizes } from '#shared/pdf/limits.ts';
import { type OpenedPdf, openPdf } from '#shared/pdf/open.ts';
import { visibleBox } from '#shared/pdf/page-box.ts';
import { readWithPdfium } from '#shared/pdf/pdfium-info.ts';
import type { Permissions } from '#shared/pdf/permission-schema.ts';
import { readPermissions } from '#shared/pdf/permissions.ts';

export interface PdfInfo {
  /** Null only for a file that needs a user password and whose page tree is encrypted too. */
  pages: number | null;
  encrypted: boolean;
  pdfVersion: string;
  title: string | null;
  author: string | null;
  creator: string | null;
  producer: string | null;
  /** Points, as displayed (crop box, rotation applied), for the first 100 pages. */
  pageSizes: Array<{ width: number; height: number }>;
  sizeBytes: number;
  /** For an encrypted file, what it allows; null otherwise. */
  permissions: Permissions | null;
  /** The interactive form's fields, the first `maxListedFormFields`. */
  formFields: FormField[];
}

/** Form fields /pdf-info lists at most. */
export const maxListedFormFields = 1000;

const maxTextLength = 1000;

const round = (value: number) => Math.round(value * 100) / 100;

/** Control characters other than tab and line breaks are noise in titles; dropped. */
function cleanText(text: string | undefined): string | null {
  const clean = text?.replace(/[^\P{Cc}\t\n\r]/gu, '').trim();
  return clean ? clean.slice(0, maxTextLength) : null;
}

/** An Info entry as text; undefined when absent or not text. */
function infoText(opened: OpenedPdf, key: string): string | undefined {
  const info = opened.doc.context.lookup(opened.doc.context.trailerInfo.Info);
  const value = info instanceof PDFDict ? info.lookup(PDFName.of(key)) : undefined;
  return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
}

/** The size a viewer shows: the crop box clipped to the media box, turned by /Rotate. */
export function displayedSize(page: PDFPage): { width: number; height: number } {
  const [left, bottom, right, top] = visibleBox(page.doc.context, page.node);
  const box = { width: right - left, height: top - bottom };
  const rotate = page.node.Rotate();
  const quarterTurns = rotate instanceof PDFNumber ? Math.round(rotate.asNumber() / 90) : 0;
  const sideways = ((quarterTurns % 2) + 2) % 2 === 1;
  const width = round(Math.abs(box.width));
  const height = round(Math.abs(box.height));
  return sideways ? { width: height, height: width } : { width, height };
}

/**
 * The permissions of an encrypted file from its /Encrypt dictionary, which is never itself
 * encrypted: /R and /P are read without a password. Null when /P is missing or no integer.
 */
function permissionsOf(opened: OpenedPdf): Permissions | null {
  const { context } = opened.doc;
  const encrypt = context.lookup(context.trailerInfo.Encrypt);
  if (!(encrypt instanceof PDFDict)) return null;
  const p = encrypt.lookup(PDFName.of('P'));
  const r = encrypt.lookup(PDFName.of('R'));
  if (!(p instanceof PDFNumber) || !Number.isInteger(p.asNumber())) return null;
  return readPermissions(r instanceof PDFNumber ? r.asNumber() : 2, p.asNumber());
}

/**
 * Facts about a PDF without reading its content streams. Encrypted files are reported, not
 * refused: pdf-lib cannot decrypt, so pdfium reads what a viewer shows without a password (a file
 * protected by permissions only: its pages, sizes and information); a file that needs a user
 * password keeps what pdf-lib reads of its structure, and null information strings. A file that
 * was decrypted with its password (`decryptedFrom`: how it was encrypted) is read as any other, and
 * reported as encrypted, with the permissions it had.
 */
export async function readPdfInfo(
  path: string,
  sizeBytes: number,
  decryptedFrom?: SourceEncryption,
): Promise<PdfInfo> {
  const bytes = await readFile(path);
  const opened = await openPdf(bytes, { allowEncrypted: true, maxPages: undefined });
  const decrypted = opened.encrypted ? await readWithPdfium(bytes, maxListedPageSizes) : undefined;
  const text = (key: string) =>
    opened.encrypted ? cleanText(decrypted?.info.get(key)) : cleanText(infoText(opened, key));
  const pageSizes =
    opened.pageCount !== undefined
      ? opened.doc.getPages().slice(0, maxListedPageSizes).map(displayedSize)
      : (decrypted?.pageSizes ?? []);
  return {
    pages: opened.pageCount ?? decrypted?.pages ?? null,
    encrypted: opened.encrypted || decryptedFrom !== undefined,
    pdfVersion: opened.version,
    title: text('Title'),
    author: text('Author'),
    creator: text('Creator'),
    producer: text('Producer'),
    pageSizes,
    sizeBytes,
    permissions: decryptedFrom?.permissions ?? (opened.encrypted ? permissionsOf(opened) : null),
    formFields: opened.encrypted ? [] : listFormFields(opened.doc, maxListedFormFields),
  };
}
