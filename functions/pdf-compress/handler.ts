import { createFileHandler } from '#shared/http/file-handler.ts';
import { compressPdf } from '#shared/pdf/compress.ts';
import { PDF_TYPE } from '#shared/pdf/output.ts';
import { pdfCompressBody } from '#shared/pdf/schemas.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';

export const handler = createFileHandler('pdf-compress', pdfCompressBody, async (request) => {
  const source = await downloadPdf(request.body.sourceUrl, request);
  const path = await request.workspace.file('compressed.pdf');
  const result = await compressPdf(source.path, path, request.body.level, request.onProgress);
  return {
    path,
    contentType: PDF_TYPE,
    fileName: `${source.baseName}.pdf`,
    headers: { 'X-Original-Size': String(result.originalBytes), 'X-Output-Size': String(result.outputBytes) },
  };
});
