import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import { numberPdfPages } from '#shared/pdf/page-numbers.ts';
import { parseRangeSpec } from '#shared/pdf/ranges.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { pdfPageNumbersRoute } from '#shared/routes/pdf-draw.ts';

export const handler = createFileHandler(pdfPageNumbersRoute, async (request) => {
  const { sourceUrl, password, pages, ...options } = request.body;
  // Malformed pages are refused before anything is downloaded.
  const ranges = pages === undefined ? undefined : parseRangeSpec(pages, 'pages');
  const source = await downloadPdf(sourceUrl, request, password);
  const path = await request.workspace.file('numbered.pdf');
  await numberPdfPages(source.path, path, { ...options, pages: ranges });
  return { path, contentType: PDF_TYPE, fileName: `${source.baseName}.pdf` };
});
