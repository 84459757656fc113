import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { PDF_TYPE, ZIP_TYPE } from '#shared/pdf/limits.ts';
import { parseRangeSpec } from '#shared/pdf/ranges.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { splitPdf } from '#shared/pdf/split.ts';
import { pdfSplitRoute } from '#shared/routes/pdf.ts';

export const handler = createFileHandler(pdfSplitRoute, async (request) => {
  // Malformed ranges are refused before anything is downloaded.
  const ranges =
    request.body.ranges === undefined ? undefined : parseRangeSpec(request.body.ranges, 'ranges');
  const source = await downloadPdf(request.body.sourceUrl, request, request.body.password);
  const result = await splitPdf(source.path, {
    ranges,
    baseName: source.baseName,
    workspace: request.workspace,
    onProgress: request.onProgress,
  });
  return {
    path: result.path,
    contentType: result.kind === 'zip' ? ZIP_TYPE : PDF_TYPE,
    fileName: `${source.baseName}.${result.kind}`,
  };
});
