import { downloadImage } from '#shared/image/download.ts';
import { optimizeImage } from '#shared/image/optimize.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { imageOptimizeRoute } from '#shared/routes/image.ts';

export const handler = createFileHandler(imageOptimizeRoute, async (request) => {
  const { sourceUrl, ...options } = request.body;
  const source = await downloadImage(sourceUrl, request);
  const file = await optimizeImage(source, options, request.workspace);
  return {
    path: file.path,
    contentType: file.contentType,
    fileName: `${source.baseName}.${file.format}`,
    headers: { 'X-Original-Size': String(file.originalSize), 'X-Output-Size': String(file.outputSize) },
  };
});
