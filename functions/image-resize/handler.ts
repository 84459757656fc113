import { downloadImage } from '#shared/image/download.ts';
import { resizeImage } from '#shared/image/resize.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { imageResizeRoute } from '#shared/routes/image.ts';

export const handler = createFileHandler(imageResizeRoute, async (request) => {
  const { sourceUrl, ...options } = request.body;
  const source = await downloadImage(sourceUrl, request);
  const file = await resizeImage(source, options, request.workspace);
  return { path: file.path, contentType: file.contentType, fileName: `${source.baseName}.${file.format}` };
});
