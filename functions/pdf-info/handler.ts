import { createJsonHandler } from '#shared/http/stack.ts';
import { readPdfInfo } from '#shared/pdf/info.ts';
import { pdfInfoBody } from '#shared/pdf/schemas.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';

export const handler = createJsonHandler('pdf-info', pdfInfoBody, async (request) => {
  const source = await downloadPdf(request.body.sourceUrl, request);
  return readPdfInfo(source.path, source.sizeBytes);
});
