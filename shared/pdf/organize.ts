import { writeFile } from 'node:fs/promises';
import { pdfLimits } from '#shared/pdf/limits.ts';
import { openPdfFile, pagesOf } from '#shared/pdf/open.ts';
import { copyInfo, copyPagesInto, newPdf, savePdf } from '#shared/pdf/output.ts';
import { dropUnreachable } from '#shared/pdf/prune.ts';
import { pageSequence, type RangeTerm } from '#shared/pdf/ranges.ts';

/**
 * Writes a PDF of the source's pages in the order `pages` names them (repeats give copies; pages
 * not named are left out), with the source's Info and the links between the pages kept.
 */
export async function organizePdf(
  sourcePath: string,
  outputPath: string,
  pages: readonly RangeTerm[],
): Promise<number[]> {
  const opened = await openPdfFile(sourcePath);
  const order = pageSequence(pages, pagesOf(opened), pdfLimits.maxPages, 'pages');
  const out = await newPdf();
  copyInfo(opened.doc, out);
  await copyPagesInto(
    out,
    opened.doc,
    order.map((page) => page - 1),
  );
  dropUnreachable(out.context);
  await writeFile(outputPath, await savePdf(out));
  return order;
}
