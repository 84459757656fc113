import { imageInputFormats } from '#shared/formats.ts';
import { createFileHandler } from '#shared/http/file-handler.ts';
import { imagesToPdf } from '#shared/pdf/image-to-pdf.ts';
import { PDF_TYPE } from '#shared/pdf/output.ts';
import { imageToPdfBody } from '#shared/pdf/schemas.ts';
import { downloadBatch } from '#shared/pdf/sources.ts';

export const handler = createFileHandler('image-to-pdf', imageToPdfBody, async (request) => {
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
