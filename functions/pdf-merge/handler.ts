import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import { mergePdfs } from '#shared/pdf/merge.ts';
import { downloadPdfBatch } from '#shared/pdf/sources.ts';
import { pdfMergeRoute } from '#shared/routes/pdf.ts';

export const handler = createFileHandler(pdfMergeRoute, async (request) => {
  const sources = await downloadPdfBatch(request.body.sources, request, request.body.password);
  const path = await request.workspace.file('merged.pdf');
  await mergePdfs(
    sources.map((source) => source.path),
    path,
    request.onProgress,
  );
  return { path, contentType: PDF_TYPE, fileName: `${sources[0]?.baseName ?? 'merged'}.pdf` };
});
