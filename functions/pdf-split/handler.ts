import { createFileHandler } from '#shared/http/file-handler.ts';
import { PDF_TYPE } from '#shared/pdf/output.ts';
import { parseRangeSpec } from '#shared/pdf/ranges.ts';
import { pdfSplitBody } from '#shared/pdf/schemas.ts';
import { downloadPdf } from '#shared/pdf/sources.ts';
import { splitPdf } from '#shared/pdf/split.ts';
import { ZIP_TYPE } from '#shared/pdf/zip.ts';

export const handler = createFileHandler('pdf-split', pdfSplitBody, async (request) => {
  // Malformed ranges are refused before anything is downloaded.
  const ranges =
    request.body.ranges === undefined ? undefined : parseRangeSpec(request.body.ranges, 'ranges');
  const source = await downloadPdf(request.body.sourceUrl, request);
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
