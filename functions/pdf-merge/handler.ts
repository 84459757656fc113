import { createFileHandler } from '#shared/http/file-handler.ts';
import { mergePdfs } from '#shared/pdf/merge.ts';
import { PDF_TYPE } from '#shared/pdf/output.ts';
import { pdfMergeBody } from '#shared/pdf/schemas.ts';
import { downloadBatch } from '#shared/pdf/sources.ts';

export const handler = createFileHandler('pdf-merge', pdfMergeBody, async (request) => {
  const sources = await downloadBatch(request.body.sources, ['pdf'], request);
  const path = await request.workspace.file('merged.pdf');
  await mergePdfs(
    sources.map((source) => source.path),
    path,
    request.onProgress,
  );
  return { path, contentType: PDF_TYPE, fileName: `${sources[0]?.baseName ?? 'merged'}.pdf` };
});
