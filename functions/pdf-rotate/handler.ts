import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import { parseRangeSpec } from '#shared/pdf/ranges.ts';
import { rotatePdf } from '#shared/pdf/rotate.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { pdfRotateRoute } from '#shared/routes/pdf-tools.ts';

export const handler = createFileHandler(pdfRotateRoute, async (request) => {
  // Malformed pages are refused before anything is downloaded.
  const pages = request.body.pages === undefined ? undefined : parseRangeSpec(request.body.pages, 'pages');
  const source = await downloadPdf(request.body.sourceUrl, request, request.body.password);
  const path = await request.workspace.file('rotated.pdf');
  await rotatePdf(source.path, path, { angle: request.body.angle, pages });
  return { path, contentType: PDF_TYPE, fileName: `${source.baseName}.pdf` };
});
