import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { imagesToPdf } from '#shared/pdf/image-to-pdf.ts';
import { PDF_TYPE } from '#shared/pdf/limits.ts';
import { downloadBatch } from '#shared/pdf/sources.ts';
import { imageToPdfRoute } from '#shared/routes/pdf.ts';
import { imageInputFormats } from '#shared/source/formats.ts';

export const handler = createFileHandler(imageToPdfRoute, async (request) => {
  const { sources: urls, pageSize, margin } = request.body;
  const sources = await downloadBatch(urls, imageInputFormats, request);
  const path = await request.workspace.file('images.pdf');
  await imagesToPdf(
    sources.map((source) => ({ path: source.path, format: source.format ?? 'png' })),
    path,
    { pageSize, margin, workspace: request.workspace, onProgress: request.onProgress },
  );
  return { path, contentType: PDF_TYPE, fileName: `${sources[0]?.baseName ?? 'images'}.pdf` };
});
