import { createJsonHandler } from '#shared/http/stack.ts';
import { readPdfInfo } from '#shared/pdf/info.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { pdfInfoRoute } from '#shared/routes/pdf.ts';

export const handler = createJsonHandler(pdfInfoRoute, async (request) => {
  const source = await downloadPdf(request.body.sourceUrl, request, request.body.password);
  return readPdfInfo(source.path, source.sizeBytes, source.encryption);
});
