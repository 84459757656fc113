import { createJsonHandler } from '#shared/http/stack.ts';
import { parseRangeSpec } from '#shared/pdf/ranges.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { extractPdfText } from '#shared/pdf/to-text.ts';
import { pdfToTextRoute } from '#shared/routes/pdf-tools.ts';

export const handler = createJsonHandler(pdfToTextRoute, async (request) => {
  // Malformed pages are refused before anything is downloaded.
  const pages = request.body.pages === undefined ? undefined : parseRangeSpec(request.body.pages, 'pages');
  const source = await downloadPdf(request.body.sourceUrl, request, request.body.password);
  return extractPdfText(source.path, { pages, layout: request.body.layout });
});
