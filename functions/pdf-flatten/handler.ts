import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { flattenPdf } from '#shared/pdf/form-fill.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { pdfFlattenRoute } from '#shared/routes/pdf-draw.ts';

export const handler = createFileHandler(pdfFlattenRoute, async (request) => {
  const source = await downloadPdf(request.body.sourceUrl, request, request.body.password);
  const path = await request.workspace.file('flattened.pdf');
  await flattenPdf(source.path, path);
  return { path, contentType: PDF_TYPE, fileName: `${source.baseName}.pdf` };
});
