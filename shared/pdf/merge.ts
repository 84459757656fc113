import { writeFile } from 'node:fs/promises';
import { ApiError, inField } from '#shared/errors.ts';
import { storeIdenticalOnce } from '#shared/pdf/dedupe.ts';
import { pdfLimits } from '#shared/pdf/limits.ts';
import { openPdfFile, pagesOf } from '#shared/pdf/open.ts';
import { copyInfo, copyPagesInto, newPdf, savePdf } from '#shared/pdf/output.ts';

/**
 * Appends every page of every source, in order, to one new document. Pages are copied with their
 * inherited size, crop box, rotation and resources; the first source's title and author are kept.
 * Sources are opened one at a time, so only one source document is in memory besides the result.
 * Fonts, images and other drawing objects that the sources carry in equal copies are stored once.
 */
export async function mergePdfs(
  sourcePaths: readonly string[],
  outputPath: string,
  onProgress?: (percent: number) => void,
): Promise<{ pages: number }> {
  const merged = await newPdf();
  let pages = 0;
  for (const [index, path] of sourcePaths.entries()) {
    const opened = await openPdfFile(path).catch((error: unknown) => {
      throw inField(`sources.${index}`, error);
    });
    pages += pagesOf(opened);
    if (pages > pdfLimits.maxPages) {
      throw new ApiError(
        'validation_failed',
        `sources: together the PDFs have more than ${pdfLimits.maxPages} pages, the most one merge writes.`,
      );
    }
    if (index === 0) copyInfo(opened.doc, merged);
    await copyPagesInto(merged, opened.doc, opened.doc.getPageIndices());
    onProgress?.(Math.round(((index + 1) / sourcePaths.length) * 90));
  }
  // Sources made from one template, or one source given twice, carry equal fonts and images.
  storeIdenticalOnce(merged);
  await writeFile(outputPath, await savePdf(merged));
  return { pages };
}
