import { PDFDict, PDFHexString, PDFName, PDFNumber, type PDFPage, PDFString } from 'pdf-lib';
import { maxListedPageSizes } from '#shared/pdf/limits.ts';
import { type OpenedPdf, openPdfFile } from '#shared/pdf/open.ts';
import { visibleBox } from '#shared/pdf/page-box.ts';

export interface PdfInfo {
  /** Null only for an encrypted file whose page tree is encrypted too. */
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
}

const maxTextLength = 1000;

const round = (value: number) => Math.round(value * 100) / 100;

/** An Info entry as text; null when absent, not text, or unreadable (encrypted strings are). */
function infoText(opened: OpenedPdf, key: string): string | null {
  if (opened.encrypted) return null;
  const info = opened.doc.context.lookup(opened.doc.context.trailerInfo.Info);
  const value = info instanceof PDFDict ? info.lookup(PDFName.of(key)) : undefined;
  if (!(value instanceof PDFString || value instanceof PDFHexString)) return null;
  // Control characters other than tab and line breaks are noise in titles; drop them.
  const text = value
    .decodeText()
    .replace(/[^\P{Cc}\t\n\r]/gu, '')
    .trim();
  return text === '' ? null : text.slice(0, maxTextLength);
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

/** Facts about a PDF without reading its content streams. Encrypted files are reported, not refused. */
export async function readPdfInfo(path: string, sizeBytes: number): Promise<PdfInfo> {
  const opened = await openPdfFile(path, { allowEncrypted: true, maxPages: undefined });
  const pageSizes =
    opened.pageCount === undefined
      ? []
      : opened.doc.getPages().slice(0, maxListedPageSizes).map(displayedSize);
  return {
    pages: opened.pageCount ?? null,
    encrypted: opened.encrypted,
    pdfVersion: opened.version,
    title: infoText(opened, 'Title'),
    author: infoText(opened, 'Author'),
    creator: infoText(opened, 'Creator'),
    producer: infoText(opened, 'Producer'),
    pageSizes,
    sizeBytes,
  };
}
