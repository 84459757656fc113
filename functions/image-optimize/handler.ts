import { createFileHandler } from '#shared/http/file-handler.ts';
import { downloadImage } from '#shared/image/download.ts';
import { optimizeImage } from '#shared/image/optimize.ts';
import { imageOptimizeBody } from '#shared/image/schemas.ts';

export const handler = createFileHandler('image-optimize', imageOptimizeBody, async (request) => {
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
