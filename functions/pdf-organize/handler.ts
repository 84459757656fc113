import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import { organizePdf } from '#shared/pdf/organize.ts';
import { parseRangeSpec } from '#shared/pdf/ranges.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { pdfOrganizeRoute } from '#shared/routes/pdf-tools.ts';

export const handler = createFileHandler(pdfOrganizeRoute, async (request) => {
  // Malformed pages are refused before anything is downloaded.
  const pages = parseRangeSpec(request.body.pages, 'pages');
  const source = await downloadPdf(request.body.sourceUrl, request, request.body.password);
  const path = await request.workspace.file('organized.pdf');
  await organizePdf(source.path, path, pages);
  return { path, contentType: PDF_TYPE, fileName: `${source.baseName}.pdf` };
});
