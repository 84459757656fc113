import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { fillPdfForm } from '#shared/pdf/form-fill.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { pdfFormFillRoute } from '#shared/routes/pdf-draw.ts';

export const handler = createFileHandler(pdfFormFillRoute, async (request) => {
  const { sourceUrl, password, fields, flatten } = request.body;
  const source = await downloadPdf(sourceUrl, request, password);
  const path = await request.workspace.file('filled.pdf');
  await fillPdfForm(source.path, path, { fields, flatten });
  return { path, contentType: PDF_TYPE, fileName: `${source.baseName}.pdf` };
});
