import { writeFile } from 'node:fs/promises';
import { ApiError } from '#shared/errors.ts';
import { pdfLimits } from '#shared/pdf/limits.ts';
import { openPdfFile, pagesOf } from '#shared/pdf/open.ts';
import { extractPages, savePdf } from '#shared/pdf/output.ts';
import {
  eachPage,
  formatRange,
  type PageRange,
  pageCountOf,
  type RangeTerm,
  resolveRanges,
} from '#shared/pdf/ranges.ts';
import { writeZip } from '#shared/pdf/zip.ts';
import type { Workspace } from '#shared/workspace.ts';

export interface SplitOptions {
  /** Parsed `ranges`; undefined: one file per page. */
  ranges: readonly RangeTerm[] | undefined;
  /** Names the ZIP entries: `<baseName>-<range>.pdf`. */
  baseName: string;
  workspace: Workspace;
  onProgress?: (percent: number) => void;
}

export interface SplitResult {
  path: string;
  /** One range gives a PDF, several a ZIP of PDFs. */
  kind: 'pdf' | 'zip';
  ranges: PageRange[];
}

/** Ranges whose pages add up past the page limit would multiply the document; they are refused. */
function checkTotal(ranges: readonly PageRange[]): void {
  const total = ranges.reduce((sum, range) => sum + pageCountOf(range), 0);
  if (total > pdfLimits.maxPages) {
    throw new ApiError(
      'invalid_range',
      `ranges: the ranges select ${total} pages in all; at most ${pdfLimits.maxPages} are written per request.`,
    );
  }
}

/** Splits a PDF into one document per range (default: per page). */
export async function splitPdf(sourcePath: string, options: SplitOptions): Promise<SplitResult> {
  const opened = await openPdfFile(sourcePath);
  const pageCount = pagesOf(opened);
  const ranges = options.ranges ? resolveRanges(options.ranges, pageCount, 'ranges') : eachPage(pageCount);
  checkTotal(ranges);
  const [only] = ranges;
  if (ranges.length === 1 && only) {
    const path = await options.workspace.file('split.pdf');
    await writeFile(path, await savePdf(await extractPages(opened.doc, only)));
    return { path, kind: 'pdf', ranges };
  }
  const path = await options.workspace.file('split.zip');
  await writeZip(path, async (add) => {
    for (const [index, range] of ranges.entries()) {
      const bytes = await savePdf(await extractPages(opened.doc, range));
      await add(`${options.baseName}-${formatRange(range)}.pdf`, bytes);
      options.onProgress?.(Math.round(((index + 1) / ranges.length) * 100));
    }
  });
  return { path, kind: 'zip', ranges };
}
