import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { compressPdf } from '#shared/pdf/compress.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { pdfCompressRoute } from '#shared/routes/pdf.ts';

export const handler = createFileHandler(pdfCompressRoute, async (request) => {
  const source = await downloadPdf(request.body.sourceUrl, request, request.body.password);
  const path = await request.workspace.file('compressed.pdf');
  const result = await compressPdf(source.path, path, request.body.level, request.onProgress);
  return {
    path,
    contentType: PDF_TYPE,
    fileName: `${source.baseName}.pdf`,
    headers: { 'X-Original-Size': String(result.originalBytes), 'X-Output-Size': String(result.outputBytes) },
  };
});
