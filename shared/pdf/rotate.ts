import { writeFile } from 'node:fs/promises';
import { type PDFDocument, PDFName, PDFNumber, type PDFPage } from 'pdf-lib';
import type { RotationAngle } from '#shared/pdf/limits.ts';
import { openPdfFile, pagesOf } from '#shared/pdf/open.ts';
import { savePdf } from '#shared/pdf/output.ts';
import { eachPage, pagesOf as pagesIn, type RangeTerm, resolveRanges } from '#shared/pdf/ranges.ts';

export interface RotateOptions {
  angle: RotationAngle;
  /** Parsed `pages`; undefined: every page. */
  pages: readonly RangeTerm[] | undefined;
}

/**
 * A page's own rotation, inherited from the page tree when the page states none. A value that is no
 * multiple of 90 (or no number) is read as 0, as viewers read it.
 */
export function rotationOf(page: PDFPage): number {
  const stated = page.doc.context.lookup(page.node.getInheritableAttribute(PDFName.Rotate));
  const angle = stated instanceof PDFNumber ? stated.asNumber() : 0;
  return Number.isInteger(angle) && angle % 90 === 0 ? ((angle % 360) + 360) % 360 : 0;
}

/** Turns the pages numbered `pages` (1-based) by `angle` on top of their own rotation. */
export function rotatePages(doc: PDFDocument, pages: readonly number[], angle: RotationAngle): void {
  const all = doc.getPages();
  for (const number of pages) {
    const page = all[number - 1]!;
    page.node.set(PDFName.Rotate, PDFNumber.of((rotationOf(page) + angle) % 360));
  }
}

/** Rotates the selected pages (default all) of a PDF and writes the document to `outputPath`. */
export async function rotatePdf(
  sourcePath: string,
  outputPath: string,
  options: RotateOptions,
): Promise<void> {
  const opened = await openPdfFile(sourcePath);
  const pageCount = pagesOf(opened);
  const ranges = options.pages ? resolveRanges(options.pages, pageCount, 'pages') : eachPage(pageCount);
  rotatePages(opened.doc, pagesIn(ranges), options.angle);
  await writeFile(outputPath, await savePdf(opened.doc));
}
